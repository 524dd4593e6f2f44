"""Realistic data behind the pages the browser tests open, made through the services."""

from __future__ import annotations

from scoring import rules
from scoring.leagues import services as league_services
from scoring.models import League, Series
from tests.helpers import make_user, record, start_series

LEAGUE_PLAYERS = ("Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor")


def played(series: Series) -> Series:
    """A series with an eggs deal, a naked deal and ordinary ones, still in progress."""
    for points, tricks in [
        ((60, 60), None),
        ((0, 120), (False, True)),
        ((40, 80), None),
        ((100, 20), None),
    ]:
        record(series, points, tricks)
    return series


def finished(series: Series) -> Series:
    """Side 0 loses deals until it is out: the goat screen."""
    while not series.finished:
        record(series, (20, 100))
    return series


def a_league(owner=None, *, name: str = "Thursday club", series: int = 4) -> League:
    """A league whose owner is ``owner`` (a new user if None), with finished series and one live.

    The tables change every series, so the standings have several players and pairs.
    """
    owner = owner or make_user("olga")
    league = league_services.league_create(name=name, user=owner, ruleset=rules.PRESETS["classic"])
    for number in range(series):
        names = [LEAGUE_PLAYERS[(number + seat) % len(LEAGUE_PLAYERS)] for seat in range(4)]
        finished(played(start_series(names=names, league=league)))
    played(start_series(names=LEAGUE_PLAYERS[:4], league=league))
    return league
