"""Benchmark of the league pages: the demo league (about 150,000 deals) against a 100-deal one.

Builds, or reuses when they are already there, two SQLite databases in ``$BENCH_DIR`` (default
``/tmp``): the demo league
(``scoring.demo``: 200 players, 5,000 series) and the same generator stopped after 100 deals.
Each size runs in its own process (one ``DATABASE_URL`` each), logged in as the league's owner
through Django's test client, and times every page: the median of several requests after one
warm-up request, in three rounds that alternate the sizes (each figure keeps its best round).
The standings are read from stored running totals (``scoring.leagues.totals``), so every filter
costs the same whatever its range: thirteen filters (date ranges, seasons, rulesets), each one's
first view and then its median. Also timed: the first view right after a series ended (that one
series is folded in), the views after "finish, undo, finish again", and once more with no
running totals at all (every series folded, the first view after the migration), which is
printed apart.

Prints, per page, both times and the ratio demo / small (the goal is at most 1.5). It never
asserts a speed.

Run with ``make bench`` or ``.venv/bin/python benchmarks/league_pages.py [--rebuild]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quick import QUICK, scaled, tag  # noqa: E402

BENCH_DIR = Path(os.environ.get("BENCH_DIR", "/tmp"))
DATABASES = {
    "demo": BENCH_DIR / f"kozel_bench_league_demo{tag()}.sqlite3",
    "small": BENCH_DIR / f"kozel_bench_league_100{tag()}.sqlite3",
}
REPEATS = scaled(40, 2)
ROUNDS = scaled(3, 1)
GOAL = 1.5
#: Not a page view anyone waits for often: printed apart, without the goal.
REBUILT = "standings from nothing"
#: Thirteen standings filters, more than any cache of recent filters would hold: seasons, date
#: ranges, months, a single evening, rulesets, with and without dates.
FILTERS = [
    "date_from=2024-01-01&date_to=2024-12-31&rules=",
    "date_from=2025-01-01&date_to=2025-12-31&rules=",
    "date_from=2026-01-01&date_to=2026-12-31&rules=",
    "date_from=2024-09-01&date_to=2025-05-31&rules=",
    "date_from=2025-03-01&date_to=2025-03-31&rules=",
    "date_from=2025-06-14&date_to=2025-06-14&rules=",
    "date_from=2025-07-01&rules=",
    "date_to=2024-06-30&rules=",
    "rules=classic",
    "rules=eggs-double",
    "date_from=2025-01-01&date_to=2025-12-31&rules=classic",
    "date_from=2024-04-01&date_to=2026-04-01&rules=tie-penalty",
    "date_from=2026-02-01&date_to=2026-08-31&rules=eggs-stacking",
]
FIRST_VIEW = "13 filters, first views"


def _setup_django(size: str) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{DATABASES[size]}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def build(size: str, rebuild: bool) -> str:
    """Make the database for ``size`` unless it is there; say what it holds."""
    path = DATABASES[size]
    if rebuild and path.exists():
        path.unlink()
    _setup_django(size)
    from django.core.management import call_command

    from scoring.demo import demo_generate
    from scoring.models import Deal, League, Series

    call_command("migrate", verbosity=0)
    if not League.objects.filter(name="Demo club").exists():
        started = time.perf_counter()
        if size == "demo":
            demo_generate(**({"players": 24, "series": 120} if QUICK else {}))
        else:
            demo_generate(max_deals=100)
        print(f"  built {path} in {time.perf_counter() - started:.0f} s", flush=True)
    return (
        f"{Series.objects.count():,} series, {Deal.objects.count():,} deals "
        f"in {League.objects.count()} league(s)"
    )


def measure(size: str) -> dict[str, float]:
    """Median seconds per page for the league of the database ``size``."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.test import Client
    from django.test.utils import setup_test_environment

    from scoring import rules
    from scoring.leagues import services as league_services
    from scoring.leagues import totals
    from scoring.models import League, PairResult, Player, RunningTotal
    from scoring.table import services

    setup_test_environment()
    league = League.objects.get(name="Demo club")
    if not league.share_token:
        league = league_services.share_renew(league=league)
    owner = get_user_model().objects.get(username="demo")
    client = Client()
    client.force_login(owner)
    first, second = Player.objects.filter(league=league).order_by("pk")[:2]
    pages = {
        "league page": f"/leagues/{league.pk}/",
        "standings": f"/leagues/{league.pk}/standings/",
        "standings, one season": f"/leagues/{league.pk}/standings/"
        "?date_from=2024-01-01&date_to=2024-12-31&rules=",
        "public standings": f"/public/{league.share_token}/",
        "public history": f"/public/{league.share_token}/history/",
        "head to head": f"/leagues/{league.pk}/head-to-head/?first={first.pk}&second={second.pk}",
        "members": f"/leagues/{league.pk}/members/",
    }
    results = {}
    standings_url = pages["standings"]
    for url in pages.values():
        client.get(url)  # templates compiled, running totals folded
    # The first view after a series ends: that one series is folded into the running totals.
    # Each time in a transaction rolled back afterwards, so every repeat starts from the same
    # totals. Then "finish, undo, finish again": the undo takes that series' totals out, the
    # finish again folds it once more.
    seated = list(Player.objects.filter(league=league).order_by("pk")[:4])
    steps = ("a series ended", "its last deal undone", "finished again")
    timed: dict[str, tuple[list[float], list[float]]] = {step: ([], []) for step in steps}

    def view(step: str) -> None:
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(standings_url)
        timed[step][0].append(time.perf_counter() - started)
        timed[step][1].append(time.process_time() - started_cpu)
        if response.status_code != 200:
            raise SystemExit(f"standings after {step}: {response.status_code}")

    def play_to_the_end(series):
        number = series.deal_count + 1
        while not series.finished:
            series = services.deal_record(
                series_id=series.pk, number=number, points=(0, 120), tricks=(False, True)
            ).series
            number += 1
        return series

    for _ in range(REPEATS):
        with transaction.atomic():
            ended = play_to_the_end(
                services.series_start(
                    mode="teams",
                    players=seated,
                    first_dealer=0,
                    ruleset=rules.PRESETS["classic"],
                    league=league,
                )
            )
            view("a series ended")
            services.deal_undo(series_id=ended.pk, number=ended.deal_count, version=ended.version)
            view("its last deal undone")
            ended.refresh_from_db()
            play_to_the_end(ended)
            view("finished again")
            transaction.set_rollback(True)
    for step, (wall, cpu) in timed.items():
        results[f"standings, {step}"] = statistics.median(wall)
        results[f"standings, {step} (CPU)"] = statistics.median(cpu)
    # Thirteen filters: each one's first view, then (below) each one's median.
    first_wall, first_cpu = [], []
    for query in FILTERS:
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(f"{standings_url}?{query}")
        first_wall.append(time.perf_counter() - started)
        first_cpu.append(time.process_time() - started_cpu)
        if response.status_code != 200:
            raise SystemExit(f"standings ?{query}: {response.status_code}")
        pages[f"standings ?{query}"] = f"{standings_url}?{query}"
    results[FIRST_VIEW] = statistics.median(first_wall)
    results[f"{FIRST_VIEW} (CPU)"] = statistics.median(first_cpu)
    results[f"{FIRST_VIEW}, slowest"] = max(first_wall)
    results[f"{FIRST_VIEW}, slowest (CPU)"] = max(first_cpu)
    # Once: no running totals at all (the first view after the migration): every series folded.
    rebuilt, rebuilt_cpu = [], []
    for _ in range(scaled(2, 1)):
        with transaction.atomic():
            RunningTotal.objects.filter(league=league).delete()
            PairResult.objects.filter(league=league).delete()
            League.objects.filter(pk=league.pk).update(
                totals_until=None, totals_until_series=None, totals_rulesets=[]
            )
            started, started_cpu = time.perf_counter(), time.process_time()
            client.get(standings_url)
            rebuilt.append(time.perf_counter() - started)
            rebuilt_cpu.append(time.process_time() - started_cpu)
            transaction.set_rollback(True)
    results[REBUILT] = statistics.median(rebuilt)
    results[f"{REBUILT} (CPU)"] = statistics.median(rebuilt_cpu)
    totals.totals_update(league)
    for name, url in pages.items():
        response = client.get(url)  # warm-up
        if response.status_code != 200:
            raise SystemExit(f"{name}: {url} answered {response.status_code}")
        wall, cpu = [], []
        for _ in range(REPEATS):
            started, started_cpu = time.perf_counter(), time.process_time()
            client.get(url)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        results[name] = statistics.median(wall)
        results[f"{name} (CPU)"] = statistics.median(cpu)
    return results


def child(size: str, rebuild: bool) -> None:
    holds = build(size, rebuild)
    print(json.dumps({"holds": holds, "times": measure(size)}))


def _child_run(size: str, rebuild: bool) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", size, *(["--rebuild"] if rebuild else [])],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode != 0:
        print(done.stdout, done.stderr, sep="\n")
        raise SystemExit(f"{size}: the measuring process failed")
    lines = done.stdout.strip().splitlines()
    for line in lines[:-1]:
        print(line)
    return json.loads(lines[-1])


def main() -> None:
    rebuild = "--rebuild" in sys.argv
    found: dict[str, dict] = {}
    # Rounds alternate the sizes, and each figure keeps its best round: a busy moment of a
    # shared machine only ever adds time, to one size or the other.
    for round_ in range(ROUNDS):
        for size in ("small", "demo"):
            if round_ == 0:
                print(f"{size}: preparing {DATABASES[size]} ...", flush=True)
            result = _child_run(size, rebuild and round_ == 0)
            if size not in found:
                found[size] = result
                print(f"{size}: {result['holds']}")
                continue
            best = found[size]["times"]
            for name, value in result["times"].items():
                best[name] = min(best[name], value)
    print()
    print(f"Median of {REPEATS} requests, best of {ROUNDS} rounds: wall-clock, then this process's")
    print("CPU time (steadier when other programs load the machine). Ratio = demo / 100 deals.")
    print()
    header = f"{'page':<66} {'100 deals':>10} {'demo':>10} {'ratio':>6} {'CPU ratio':>10}"
    print(f"{header}  goal <= {GOAL}")
    times = {size: found[size]["times"] for size in found}
    for name, small in times["small"].items():
        if name.endswith("(CPU)") or name == REBUILT:
            continue
        demo = times["demo"][name]
        ratio = demo / small
        cpu_key = f"{name} (CPU)"
        cpu_ratio = times["demo"].get(cpu_key, demo) / max(times["small"].get(cpu_key, small), 1e-9)
        flag = "" if min(ratio, cpu_ratio) <= GOAL else "  over the goal"
        print(
            f"{name:<66} {small * 1000:>8.1f}ms {demo * 1000:>8.1f}ms "
            f"{ratio:>6.2f} {cpu_ratio:>10.2f}{flag}"
        )
    small, demo = times["small"][f"{REBUILT} (CPU)"], times["demo"][f"{REBUILT} (CPU)"]
    print()
    print("Once, with no running totals at all (the first view after the migration): every")
    print("finished series is folded.")
    print(f"{REBUILT:<66} {small * 1000:>8.1f}ms {demo * 1000:>8.1f}ms  (CPU)")
    worst = max(
        times["demo"][f"{name} (CPU)"] / max(times["small"][f"{name} (CPU)"], 1e-9)
        for name in times["small"]
        if name.startswith(("standings", "public standings", FIRST_VIEW))
        and not name.endswith("(CPU)")
        and name != REBUILT
    )
    print(f"Worst CPU ratio of a standings view (every filter, every step): {worst:.2f}")


if __name__ == "__main__":
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--child") + 1], "--rebuild" in sys.argv)
    else:
        main()
