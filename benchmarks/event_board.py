"""Benchmark of a club night's pages: one event in its league against 50, then an evening of 12
players against one of 40, both over 6 rounds.

Builds a fresh SQLite database under /tmp with two leagues: one holding a single event (8
players, 2 rounds, every series played out through the services), the other 50 such events,
the first of which is timed. The two are timed in turns, three rounds, each figure keeping its
best round (a busy machine slows one round, not the comparison). Prints the queries and the
median time of the leaderboard (and its htmx refresh, and the organiser's screen) for both, and
their ratio (the goal: the same queries, about the same time).

Then two evenings of six rounds, every round played (an egg and a deal or two at each table, one
table to the goat) and the sixth in play: 12 players and 40. For each it prints the queries and
the median time of the big screen (the page, its poll with news, its poll with none: a 204), the
public page (and its poll) and a player's "Find your seat" page (and its poll), and the ratio of
the 40-player evening to the 12-player one (the goals: the same queries, at most 1.5×). Never
asserts a speed.

Run with ``make bench`` or ``.venv/bin/python benchmarks/event_board.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quick import scaled, tag  # noqa: E402

DATABASE = Path(f"/tmp/kozel_bench_events{tag()}.sqlite3")
EVENTS = scaled(50, 3)
REPEATS = scaled(30, 2)
ROUNDS = scaled(3, 1)
#: The two evenings compared: players, over EVENING_ROUNDS rounds.
SMALL, LARGE = 12, scaled(40, 16)
EVENING_ROUNDS = scaled(6, 2)


def _setup() -> None:
    if DATABASE.exists():
        DATABASE.unlink()
    os.environ["DATABASE_URL"] = f"sqlite:///{DATABASE}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _evening(league, players, number: int):
    from scoring import rules
    from scoring.events import services
    from scoring.models import EventTable
    from scoring.table import deals

    event = services.event_create(
        league=league,
        name=f"Night {number}",
        players=players,
        rounds=2,
        length="goat",
        length_value=None,
        ruleset=rules.PRESETS["classic"],
        three_player_tables=False,
        tie_break="difference",
        seed=number,
    )
    for round_number in (1, 2):
        for table in EventTable.objects.filter(round__event=event, round__number=round_number):
            series, deal = table.series, 1
            if deal == 1:  # an egg first, for the awards
                series = deals.deal_record(
                    series_id=series.pk, number=1, points=(60, 60), tricks=(True, True)
                ).series
                deal = 2
            while not series.finished:
                loser = deal % 2 if table.number == 1 else 0
                points = (0, 120) if loser == 0 else (120, 0)
                tricks = (False, True) if loser == 0 else (True, False)
                series = deals.deal_record(
                    series_id=series.pk, number=deal, points=points, tricks=tricks
                ).series
                deal += 1
        services.round_finish(event=event)
        if round_number == 1:
            services.round_start(event=event)
    return event


def _whole_evening(league, players, rounds: int):
    """Every round played (an egg and a deal or two a table, table 1 to the goat), the last one
    in play."""
    from scoring import rules
    from scoring.events import services
    from scoring.models import EventTable
    from scoring.table import deals

    event = services.event_create(
        league=league,
        name=f"Evening of {len(players)}",
        players=players,
        rounds=rounds,
        length="deals",
        length_value=8,
        ruleset=rules.PRESETS["classic"],
        three_player_tables=False,
        tie_break="difference",
        seed=len(players),
    )
    for number in range(1, rounds + 1):
        for table in EventTable.objects.filter(round__event=event, round__number=number):
            series = deals.deal_record(
                series_id=table.series_id, number=1, points=(60, 60), tricks=(True, True)
            ).series
            played = [(0, 120)] * 2 if table.number == 1 else [(30, 90), (70, 50)]
            for deal, points in enumerate(played, start=2):
                tricks = (False, True) if points[0] == 0 else None
                series = deals.deal_record(
                    series_id=series.pk, number=deal, points=points, tricks=tricks
                ).series
        if number < rounds:
            services.round_finish(event=event)
            services.round_start(event=event)
    event.refresh_from_db()
    return event


def _measure(client, url: str, headers: dict, status: int = 200) -> tuple[int, float]:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    response = client.get(url, headers=headers)
    assert response.status_code == status, response.status_code
    reset_queries()  # Django empties the log as each request starts
    with CaptureQueriesContext(connection) as queries:
        client.get(url, headers=headers)
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        client.get(url, headers=headers)
        times.append(time.perf_counter() - started)
    return len(queries), statistics.median(times)


def main() -> None:
    _setup()
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from scoring.models import League, Membership, Player, Role

    setup_test_environment()
    owner = get_user_model().objects.create_user("organiser", password="x")
    started = time.perf_counter()
    firsts = {}
    for size in (1, EVENTS):
        league = League.objects.create(name=f"Club of {size}")
        Membership.objects.create(league=league, user=owner, role=Role.OWNER)
        players = [Player.objects.create(name=f"Player {n}", league=league) for n in range(1, 9)]
        firsts[size] = _evening(league, players, 1)
        for number in range(2, size + 1):
            _evening(league, players, number)
    print(f"  built {1 + EVENTS} events in {time.perf_counter() - started:.0f} s", flush=True)
    client = Client()
    client.force_login(owner)

    def pages(event) -> dict[str, tuple[str, dict]]:
        return {
            "leaderboard": (f"{event.get_absolute_url()}board/", {}),
            "leaderboard refresh (htmx)": (
                f"{event.get_absolute_url()}board/",
                {"HX-Request": "true"},
            ),
            "organiser's screen": (event.get_absolute_url(), {}),
        }

    best: dict[int, dict[str, tuple[int, float]]] = {1: {}, EVENTS: {}}
    for _ in range(ROUNDS):
        for size, event in firsts.items():
            for name, (url, headers) in pages(event).items():
                queries, seconds = _measure(client, url, headers)
                kept = best[size].get(name)
                if kept is None or seconds < kept[1]:
                    best[size][name] = (queries, seconds)
    for name in pages(firsts[1]):
        (q1, t1), (qn, tn) = best[1][name], best[EVENTS][name]
        print(
            f"{name:<28} 1 event: {q1:>2} queries {t1 * 1000:6.1f} ms   "
            f"{EVENTS} events: {qn:>2} queries {tn * 1000:6.1f} ms   ratio {tn / t1:.2f}"
        )
    evenings(owner)


def evenings(owner) -> None:
    """The big screen, the public page and a player's seat page: 12 players against 40."""
    from django.test import Client

    from scoring.events import leaderboard
    from scoring.events.forms import seat_key
    from scoring.models import League, Membership, Player, Role

    started = time.perf_counter()
    league = League.objects.create(name="Club of evenings")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    everyone = [Player.objects.create(name=f"Guest {n}", league=league) for n in range(LARGE)]
    events = {
        size: _whole_evening(league, everyone[:size], EVENING_ROUNDS) for size in (SMALL, LARGE)
    }
    print(
        f"  built evenings of {SMALL} and {LARGE} players over {EVENING_ROUNDS} rounds "
        f"in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    member = Client()
    member.force_login(owner)
    htmx = {"HX-Request": "true"}

    def pages(event) -> dict[str, tuple]:
        visitor = Client()
        seat = f"/public/events/{event.share_token}/seat/"
        picked = visitor.post(seat, {"player": seat_key(event, event.present[-1])})
        assert picked.status_code == 302, picked.status_code
        version = leaderboard.version(event)
        board = f"{event.get_absolute_url()}board/?present=1"
        public = f"/public/events/{event.share_token}/"
        return {
            "big screen": (member, board, {}, 200),
            "big screen poll, news": (member, f"{board}&version=old", htmx, 200),
            "big screen poll, none (204)": (member, f"{board}&version={version}", htmx, 204),
            "public page": (visitor, public, {}, 200),
            "public page poll, none (204)": (visitor, f"{public}?version={version}", htmx, 204),
            "seat page": (visitor, seat, {}, 200),
            "seat page poll, news": (visitor, f"{seat}?version=old", htmx, 200),
            "seat page poll, none (204)": (visitor, f"{seat}?version={version}", htmx, 204),
        }

    urls = {size: pages(event) for size, event in events.items()}
    best: dict[int, dict[str, tuple[int, float]]] = {SMALL: {}, LARGE: {}}
    for _ in range(ROUNDS):
        for size in (SMALL, LARGE):
            for name, (client, url, headers, status) in urls[size].items():
                queries, seconds = _measure(client, url, headers, status)
                kept = best[size].get(name)
                if kept is None or seconds < kept[1]:
                    best[size][name] = (queries, seconds)
    for name in urls[SMALL]:
        (qs, ts), (ql, tl) = best[SMALL][name], best[LARGE][name]
        print(
            f"{name:<28} {SMALL} players: {qs:>2} queries {ts * 1000:6.1f} ms   "
            f"{LARGE} players: {ql:>2} queries {tl * 1000:6.1f} ms   ratio {tl / ts:.2f}"
            f"{'' if qs == ql else '   (queries differ)'}"
        )


if __name__ == "__main__":
    main()
