"""Data for `make lighthouse`: a game in progress and a league with standings, in a fresh database.

Prints one JSON object: the pages to measure and the Cookie header of a browser that is logged in
as the league's owner and holds the game's scoring link (Lighthouse sends it with every request).
Run by benchmarks/lighthouse.sh with DATABASE_URL pointing at a throw-away SQLite file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
    get_user_model,
)
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.urls import NoReverseMatch, reverse  # noqa: E402

from scoring import rules  # noqa: E402
from scoring.models import League, Membership, Role, Series  # noqa: E402
from scoring.table import deals, services  # noqa: E402
from scoring.web.sessions import SESSION_LINKS, SESSION_STARTED  # noqa: E402

# A game in progress, 8:10 after seven deals with eggs and a naked deal (side 0's card points;
# side 1 has the rest): the scoreboard with its deal form, the page used most.
GAME = [60, 0, 100, 40, 75, 95, 61]
LEAGUE_PLAYERS = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zhenya", "Ilya"]


def play(series: Series, side_zero_points: list[int]) -> Series:
    for points in side_zero_points:
        series.refresh_from_db()
        if series.finished:
            break
        tricks = (points > 0, True) if points in (0, 120) else None
        deals.deal_record(
            series_id=series.pk,
            number=series.deal_count + 1,
            points=(points, 120 - points),
            tricks=tricks,
        )
    series.refresh_from_db()
    return series


def start(names: list[str], league: League | None = None) -> Series:
    players = services.players_resolve(names=names, league=league, known=None)
    return services.series_start(
        mode="teams",
        players=players,
        first_dealer=0,
        ruleset=rules.PRESETS["classic"],
        league=league,
    )


def main() -> None:
    owner = get_user_model().objects.create_user("lighthouse", password=None)
    game = play(start(["Anna", "Boris", "Vera", "Gleb"]), GAME)

    league = League.objects.create(name="Thursday club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    for number in range(16):
        # Seats 0, 5, 2 and 7 places apart: four different players, a different table each time.
        names = [LEAGUE_PLAYERS[(number * 3 + seat * 5) % len(LEAGUE_PLAYERS)] for seat in range(4)]
        series = start(names, league)
        # Most series are played to the goat; the newest one is still going.
        play(series, [20, 100, 45, 0, 60, 30, 110, 25, 80, 15, 70, 5] * 3 if number < 15 else GAME)

    session = SessionStore()
    session[SESSION_KEY] = str(owner.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = owner.get_session_auth_hash()
    session[SESSION_LINKS] = {game.table.score_token: game.table_id}
    session[SESSION_STARTED] = [game.table_id]  # the phone that started the game: its links too
    session.create()

    pages = {"scoreboard": reverse("table_link", args=[game.table.score_token])}  # its table
    try:
        pages["standings"] = reverse("league_standings", args=[league.pk])
    except NoReverseMatch:
        print("lighthouse: no standings page yet (league_standings)", file=sys.stderr)
    print(
        json.dumps(
            {
                "pages": pages,
                "cookie": f"{settings.SESSION_COOKIE_NAME}={session.session_key}",
                "deals": game.deal_count,
                "league_series": Series.objects.filter(league=league).count(),
            }
        )
    )


if __name__ == "__main__":
    main()
