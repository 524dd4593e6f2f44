"""``manage.py demo_data``: a realistic league played through the engine (``make demo-data``)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from scoring.management.demo import LEAGUE_NAME, SEED, demo_generate


class Command(BaseCommand):
    help = (
        "Fill the database with a demo league: 200 players, 5,000 series, about 150,000 deals, "
        "every deal scored by the engine. The same seed gives the same league."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--seed", type=int, default=SEED, help="random seed (default %(default)s)"
        )
        parser.add_argument("--players", type=int, default=200)
        parser.add_argument("--series", type=int, default=5000)
        parser.add_argument(
            "--max-deals", type=int, default=None, help="stop once this many deals are played"
        )
        parser.add_argument("--league", default=LEAGUE_NAME, help="the league's name")
        parser.add_argument(
            "--password",
            default=None,
            help="password for the new user 'demo' (the league's owner); without it "
            "the demo users cannot log in",
        )

    def handle(self, *args, **options):
        started = time.perf_counter()
        verbose = options["verbosity"] > 1
        try:
            summary = demo_generate(
                seed=options["seed"],
                players=options["players"],
                series=options["series"],
                max_deals=options["max_deals"],
                league_name=options["league"],
                password=options["password"],
                progress=self.stdout.write if verbose else None,
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        elapsed = time.perf_counter() - started
        self.stdout.write(
            self.style.SUCCESS(
                f"{summary.league.name}: {summary.players:,} players, {summary.series:,} series, "
                f"{summary.deals:,} deals, {summary.events:,} audit events in {elapsed:.1f} s"
            )
        )
