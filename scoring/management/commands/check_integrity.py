"""``manage.py check_integrity``: replay every series and compare with what is stored."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from scoring.table.integrity import check_all, series_repair


class Command(BaseCommand):
    help = (
        "Replay every series with the rules engine and report each stored total, winner or goat "
        "that disagrees with the replay. Exits with status 1 while anything disagrees; --fix "
        "stores the replay's result again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--fix", action="store_true", help="store the replay's result where it disagrees"
        )
        parser.add_argument(
            "--series", type=int, nargs="+", metavar="ID", help="check only these series"
        )

    def handle(self, *args, **options):
        started = time.perf_counter()
        checked, findings = check_all(options["series"])
        for finding in findings:
            self.stdout.write(f"{'' if finding.repairable else '[cannot repair] '}{finding}")
        repaired = 0
        if options["fix"]:
            for finding in findings:
                if finding.repairable and series_repair(series_id=finding.series_id):
                    repaired += 1
                    self.stdout.write(f"series {finding.series_id}: repaired")
        elapsed = time.perf_counter() - started
        left = len(findings) - repaired
        summary = (
            f"Checked {checked:,} series in {elapsed:.1f} s: {len(findings):,} disagreed with "
            f"the engine, {repaired:,} repaired."
        )
        if left:
            hint = "" if options["fix"] else " Run with --fix to repair."
            raise CommandError(f"{summary} {left:,} still disagree.{hint}", returncode=1)
        self.stdout.write(self.style.SUCCESS(summary))
