"""``manage.py fold_standings``: bring every league's running totals up to date now.

Every write of a league series folds its running totals; this folds what no write did (a release
that starts the totals afresh, a database restored by other means, a repair). Safe on a live
site at any time; a league up to date costs a query.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from scoring.models import League
from scoring.standings.running_totals import totals_fold


class Command(BaseCommand):
    help = (
        "Fold every league's finished series into its standings' running totals now, so that "
        "the standings show them (run once after migrate; safe at any time)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--league", type=int, nargs="+", metavar="ID", help="fold only these leagues"
        )

    def handle(self, *args, **options):
        started = time.perf_counter()
        leagues = League.objects.order_by("pk")
        if options["league"]:
            leagues = leagues.filter(pk__in=options["league"])
        folded = touched = 0
        for league in leagues.iterator():
            count = totals_fold(league_id=league.pk)
            folded += count
            touched += 1 if count else 0
            if count and options["verbosity"] > 1:
                self.stdout.write(f"league {league.pk}: {count} series folded")
        self.stdout.write(
            f"{folded} finished series folded in {touched} of {leagues.count()} leagues "
            f"({time.perf_counter() - started:.1f} s)."
        )
