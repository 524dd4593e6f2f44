"""``manage.py export_history``: a backup (JSON, links included) or a spreadsheet (CSV)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from scoring.backup.csv_export import history_csv
from scoring.backup.json_export import export_json
from scoring.models import Series


class Command(BaseCommand):
    help = (
        "Export series with their seats, deals and audit trail (and, for a league exported "
        "whole, its club nights and change log). JSON (the default) is a backup that "
        "import_history restores exactly, links included unless --no-secrets; CSV has one row "
        "per series for spreadsheets."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument("--league", type=int, help="only this league's series")
        parser.add_argument("--series", type=int, action="append", help="only this series (repeat)")
        parser.add_argument(
            "--no-secrets",
            action="store_true",
            help="leave out score/watch links, league invites, public links and members",
        )

    def handle(self, *args, **options):
        series = Series.objects.all()
        if options["league"] is not None:
            series = series.filter(league_id=options["league"])
        if options["series"]:
            series = series.filter(pk__in=options["series"])
        if options["format"] == "json":
            pieces = export_json(series, secrets=not options["no_secrets"])
        else:
            pieces = history_csv(series)
        target = options["output"]
        try:
            if target == "-":
                for piece in pieces:
                    sys.stdout.write(piece)
                sys.stdout.flush()
            else:
                with open(target, "w", encoding="utf-8", newline="") as handle:
                    for piece in pieces:
                        handle.write(piece)
        except OSError as error:
            raise CommandError(f"Cannot write {target}: {error}") from None
        if target != "-":
            self.stderr.write(
                self.style.SUCCESS(f"Exported {series.count():,} series to {target}.")
            )
