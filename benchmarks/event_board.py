"""Benchmark of a club night's leaderboard: one event in its league against 50.

Builds a fresh SQLite database under /tmp with two leagues: one holding a single event (8
players, 2 rounds, every series played out through the services), the other 50 such events,
the first of which is timed. The two are timed in turns, three rounds, each figure keeping its
best round (a busy machine slows one round, not the comparison). Prints the queries and the
median time of the leaderboard (and its htmx refresh, and the organiser's screen) for both, and
their ratio (the goal: the same queries, about the same time). Never asserts a speed.

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


def _measure(client, url: str, headers: dict) -> tuple[int, float]:
    from django.db import connection, reset_queries
    from django.test.utils import CaptureQueriesContext

    response = client.get(url, headers=headers)
    assert response.status_code == 200, response.status_code
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
                {"HX-Request": "1"},
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


if __name__ == "__main__":
    main()
