"""Helpers for the league tests: logged-in clients, finished series, and what the league holds.

Imported explicitly by the league, standings, ratings and authorization tests.
"""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import Deal, League, Membership, Player, Series, StandingsSnapshot
from tests.conftest import record, start_series

TEAMS = ("Anna", "Boris", "Vera", "Gleb")  # Anna & Vera (side 0) against Boris & Gleb (side 1)


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Hash test passwords cheaply: the real hasher costs half a second per user."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def logged_in(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def play_out(series: Series, *, loser: int = 0, eggs: int = 0) -> Series:
    """Finish a two-side series: ``eggs`` deals of 60:60, then ``loser`` goes naked until out."""
    for _ in range(eggs):
        record(series, [60, 60], [True, True])
    points = [0, 120] if loser == 0 else [120, 0]
    tricks = [False, True] if loser == 0 else [True, False]
    while not series.finished:
        record(series, points, tricks)
    return series


def finished(league: League | None, names=TEAMS, *, loser: int = 0, mode="teams", eggs=0):
    return play_out(start_series(league=league, names=names, mode=mode), loser=loser, eggs=eggs)


def league_snapshot(league: League) -> tuple:
    """Everything a league action could change, as plain comparable data."""
    league = League.objects.get(pk=league.pk)
    return (
        (league.name, league.rules, league.invite_token, league.invite_role, league.share_token),
        list(Membership.objects.filter(league=league).order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
        list(Series.objects.order_by("pk").values()),
        list(Deal.objects.order_by("pk").values()),
        League.objects.count(),
    )


__all__ = [
    "TEAMS",
    "StandingsSnapshot",
    "fast_passwords",
    "finished",
    "league_snapshot",
    "logged_in",
    "play_out",
]
