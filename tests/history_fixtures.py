"""Helpers for the history's tests: series played to the end, and logged-in browsers.

Imported explicitly by tests/test_history.py, tests/test_records.py, tests/test_exports.py and
tests/test_views_history.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.test import Client

from scoring import rules
from scoring.models import League, Series
from tests.conftest import record, start_series

#: Side 0 loses with 31 card points: 2 defeat points with the classic save line.
SIDE_0_LOSES = (31, 89)
SIDE_1_LOSES = (89, 31)
LONG = rules.Ruleset(target=999)  # a series that never ends within a test


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def play_deals(series: Series, deals: Sequence) -> Series:
    """Record each deal (points, or (points, tricks)) through the service."""
    for deal in deals:
        if isinstance(deal[0], tuple):
            record(series, deal[0], deal[1])
        else:
            record(series, deal)
    return series


def finished_series(
    *,
    goat: int = 0,
    names: Sequence[str] = ("Anna", "Boris", "Vera", "Gleb"),
    league: League | None = None,
    eggs: bool = False,
) -> Series:
    """A two-side series played until side ``goat`` is the goat (six deals lost by 2)."""
    mode = "teams" if len(names) == 4 else "duel"
    series = start_series(mode=mode, names=names, league=league)
    loses = SIDE_0_LOSES if goat == 0 else SIDE_1_LOSES
    deals = [(60, 60)] if eggs else []
    play_deals(series, [*deals, *[loses] * 6])
    series.refresh_from_db()
    assert series.finished
    return series


def long_series(deals: int, *, league: League | None = None) -> Series:
    """A series still in progress after ``deals`` deals, sides losing in turn."""
    series = start_series(ruleset=LONG, league=league)
    play_deals(series, [SIDE_0_LOSES if n % 2 else SIDE_1_LOSES for n in range(deals)])
    return series
