"""``manage.py seating``: a club night's schedule without the web, as JSON anyone can check."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.events import seating


class Command(BaseCommand):
    help = (
        "Seat players 1..N for R rounds of a club night: partners repeat as little as possible, "
        "opponents as evenly as possible, sit-outs (or tables of three) rotate. Prints the "
        "rounds (each table's seats clockwise, partners opposite) and the fairness figures."
    )

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, required=True, help="how many players")
        parser.add_argument("--rounds", type=int, required=True, help="how many rounds")
        parser.add_argument("--seed", type=int, default=0, help="the random seed (0)")
        parser.add_argument(
            "--three-player-tables",
            action="store_true",
            help="seat the players left over at tables of three instead of sitting them out",
        )
        parser.add_argument("--json", action="store_true", help="print JSON (the default)")

    def handle(self, *args, players, rounds, seed, three_player_tables, **options):
        if not 3 <= players <= 200:
            raise CommandError("--players must be between 3 and 200")
        if not 1 <= rounds <= 60:
            raise CommandError("--rounds must be between 1 and 60")
        try:
            plan = seating.schedule(
                range(1, players + 1),
                rounds,
                seed=seed,
                three_player_tables=three_player_tables,
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        document = {
            "rounds": [r.as_json() for r in plan],
            "figures": seating.figures(plan, range(1, players + 1)).as_json(),
        }
        self.stdout.write(json.dumps(document, separators=(",", ":")))
