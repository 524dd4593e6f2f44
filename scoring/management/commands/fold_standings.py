"""``manage.py fold_standings``: bring every league's running totals up to date now.

The standings fold a league's newly finished series into its running totals on the first view
that needs them (``scoring.leagues.totals``). After a deploy that starts the totals afresh (or an
import of a big league) that first view would fold the whole league while its visitor waits
(about a second for 5,000 series, holding the league's row): run this once after ``migrate`` and
no visitor waits. Safe to run at any time, on a live site, as often as wanted: a league already
up to date costs one index seek.
"""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand

from scoring.leagues.totals import totals_update
from scoring.models import League


class Command(BaseCommand):
    help = (
        "Fold every league's finished series into its standings' running totals now, so that "
        "no visitor's first standings view has to (run once after migrate; safe at any time)."
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
            count = totals_update(league)
            folded += count
            touched += 1 if count else 0
            if count and options["verbosity"] > 1:
                self.stdout.write(f"league {league.pk}: {count} series folded")
        self.stdout.write(
            f"{folded} finished series folded in {touched} of {leagues.count()} leagues "
            f"({time.perf_counter() - started:.1f} s)."
        )
