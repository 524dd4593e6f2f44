"""Helpers for the table's tests: what the database holds, and an independent replay to check it.

Imported explicitly by tests/test_services.py, tests/test_views_table.py and their neighbours.
"""

from __future__ import annotations

import re

from django.test import Client

from scoring import rules
from scoring.models import Deal, DealEvent, Player, Seat, Series

#: The three players of the three-player tests.
THREE = ("Ira", "Kolya", "Lida")


def db_snapshot() -> tuple:
    """Everything a request could change in the table's tables, as plain comparable data."""
    return (
        list(Series.objects.order_by("pk").values()),
        list(Seat.objects.order_by("pk").values()),
        list(Deal.objects.order_by("pk").values()),
        list(DealEvent.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
    )


def independent_state(series: Series) -> rules.SeriesState:
    """The engine's replay of the stored rows, read straight from the columns (no bridge)."""
    deals = []
    for row in Deal.objects.filter(series=series).order_by("number"):
        sides = [side for side in range(3) if row.points[side] is not None]
        deals.append(
            rules.Deal(
                tuple(row.points[side] for side in sides),
                tuple(bool(row.tricks[side]) for side in sides),
            )
        )
    return rules.replay(series.shape.sides, deals, rules=series.ruleset)


def assert_stored_matches_replay(series: Series) -> rules.SeriesState:
    """The derived fields on the series and its seats are exactly what a replay says."""
    series.refresh_from_db()
    state = independent_state(series)
    assert series.deal_count == len(state.deals)
    assert series.totals == list(state.totals)
    assert series.finished == state.finished
    assert (series.finished_at is not None) == state.finished
    assert series.winner_side == state.winner
    assert series.goat_sides == list(state.goats)
    assert series.eggs == state.eggs
    assert series.multiplier == state.multiplier
    for seat in series.seats.all():
        assert seat.total == state.totals[seat.side]
        assert seat.is_goat == (seat.side in state.goats)
        assert seat.is_winner == (state.winner == seat.side)
        tally = rules.side_tallies(state)[seat.side]
        assert (seat.deals_played, seat.deals_won, seat.deals_lost) == (
            tally.played,
            tally.won,
            tally.lost,
        )
        assert (seat.deals_naked, seat.deals_eggs, seat.narrow_saves) == (
            tally.naked,
            tally.eggs,
            tally.narrow_saves,
        )
    return state


def deal_data(response, **fields) -> dict:
    """The POST of the deal form shown in ``response``, with its hidden fields, plus ``fields``."""
    html = response.content.decode()
    number = re.search(r'name="number" value="(\d+)"', html)
    key = re.search(r'name="entry_key" value="([^"]+)"', html)
    assert number and key, "the page has no deal form"
    return {"number": number.group(1), "entry_key": key.group(1), **fields}


def undo_data(response) -> dict:
    """The POST of the undo button shown in ``response``: the deal and the series' version."""
    html = response.content.decode()
    form = re.search(
        r'action="/series/\d+/undo/".*?name="number" value="(\d+)".*?name="version" value="(\d+)"',
        html,
        re.DOTALL,
    )
    assert form, "the page has no undo button"
    return {"number": form.group(1), "version": form.group(2)}


def edit_data(response, **fields) -> dict:
    """The POST of the edit form shown in ``response``: its version, plus ``fields``."""
    version = re.search(r'name="version" value="(\d+)"', response.content.decode())
    assert version, "the page has no edit form"
    return {"version": version.group(1), **fields}


def play(client: Client, series: Series, htmx: bool = False, **fields):
    """Open the scoreboard, fill in the deal form with ``fields`` and submit it."""
    url = series.get_absolute_url()
    headers = {"HX-Request": "true"} if htmx else {}
    page = client.get(url, headers=headers)
    return client.post(f"{url}deals/", deal_data(page, **fields), headers=headers)
