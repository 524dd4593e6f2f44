"""``manage.py import_history FILE``: restore what export_history (or a JSON download) wrote."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.backup.json_import import ImportRefused, history_import_text


class Command(BaseCommand):
    help = (
        "Restore a JSON export: leagues, players, series, deals and audit events, club nights "
        "and league changes with their ids and dates. Refuses, changing nothing, if any of those "
        "ids is already in the database."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the JSON file ('-' reads stdin)")

    def handle(self, *args, **options):
        path = options["file"]
        try:
            if path == "-":
                text = sys.stdin.read()
            else:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"Cannot read {path}: {error}") from None
        try:
            summary = history_import_text(text)
        except ImportRefused as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported {summary.leagues} leagues, {summary.players} players, "
                f"{summary.series} series, {summary.deals} deals and {summary.events} events, "
                f"{summary.club_nights} club nights and {summary.changes} league changes"
                + (
                    f"; {summary.new_users} new accounts without a password"
                    if summary.new_users
                    else ""
                )
                + "."
            )
        )
