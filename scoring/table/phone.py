"""What a phone needs to score a series offline (static/js/offline.js with kozel-rules.js):
the house rules, the seats, and each recorded deal's raw points and tricks, as plain data."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from scoring.table.replays import entered_sides
from scoring.table.scoreboard import Scoreboard


def board_data(board: Scoreboard) -> dict[str, Any]:
    """The scoreboard as the phone's engine replays it: the same deals, the same rules."""
    series = board.series
    shape = series.shape
    deals = []
    for row in board.rows:
        sides = entered_sides(row)
        deals.append(
            [[row.points[side] for side in sides], [bool(row.tricks[side]) for side in sides]]
        )
    return {
        "series": series.pk,
        "version": series.version,
        "next": board.next_number,
        # A club night's round of N deals: the phone takes no deal past it, offline too.
        "limit": series.deal_limit,
        "url": reverse("deal_record", args=[series.pk]),
        "rules": board.state.rules.to_dict(),
        "sides": shape.sides,
        "seatSides": list(shape.seat_sides),
        "firstDealer": series.first_dealer,
        "seats": [seat.player.name for seat in board.seats],
        "names": [side.name for side in board.sides],
        "deals": deals,
    }
