"""Benchmark of the league pages: the demo league (about 150,000 deals) against a 100-deal one.

Builds, or reuses when they are already there, two SQLite databases in ``$BENCH_DIR`` (default
``/tmp``): the demo league (``scoring.management.demo``: 200 players, 5,000 series) and the same
generator stopped after 100 deals. Each size runs in its own process (one ``DATABASE_URL`` each),
logged in as the league's owner through Django's test client, and times every page: the median of
several requests after one warm-up request, in three rounds that alternate the sizes (each figure
keeps its best round). The standings only read the running totals the league's writes fold
(``scoring.standings.running_totals``), so every filter costs the same whatever its range: thirteen
filters (date ranges, seasons, rulesets), each one's first view and then its median. Also timed:
"finish, undo, finish again" (each write, with its fold, then the view after it), and apart, without
the goal, what a write costs that changes an OLD series and so refolds every series finished after
it (1, 10, 100, 1,000 of them, and all: a change to the league's first series), and the fold of a
whole league from nothing (``manage.py fold_standings`` after a release that starts the totals
afresh). And a season's standings (issue #39: 2024, the best ten nights count, three nights to be
ranked), for members and behind the public link, and its first view while its numbers are not
cached (its version bumped before each request).

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
from datetime import date
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
REBUILT = "fold of the whole league from nothing"
#: A change to an old series refolds the series finished after it: this many of them (None:
#: every one, a change to the league's first series). Printed apart, without the goal.
REFOLDS = (1, 10, 100, 1000, None)
OLD_CHANGE = "a deal of an old series undone, refolding {} later series"
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
SEASON_FIRST = "season standings, first view (numbers not cached)"


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

    from scoring.management.demo import demo_generate
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
    from django.db.models import F
    from django.test import Client
    from django.test.utils import setup_test_environment

    from scoring import rules
    from scoring.leagues import services as league_services
    from scoring.models import League, Player, Season, Series
    from scoring.standings.running_totals import totals_fold
    from scoring.table import deals, services
    from tests.helpers import totals_forget

    setup_test_environment()
    league = League.objects.get(name="Demo club")
    if not league.share_token:
        league = league_services.share_renew(league=league)
    owner = get_user_model().objects.get(username="demo")
    client = Client()
    client.force_login(owner)
    first, second = Player.objects.filter(league=league).order_by("pk")[:2]
    # A season of the demo's first year (issue #39): the best ten nights count, three nights to
    # be ranked; its page read as the standings are, cached by version after a first view.
    season, _made = Season.objects.get_or_create(
        league=league,
        name="Bench season",
        defaults={
            "starts_on": date(2024, 1, 1),
            "ends_on": date(2024, 12, 31),
            "best_nights": 10,
            "min_nights": 3,
        },
    )
    pages = {
        "league page": f"/leagues/{league.pk}/",
        "standings": f"/leagues/{league.pk}/standings/",
        "standings, one season": f"/leagues/{league.pk}/standings/"
        "?date_from=2024-01-01&date_to=2024-12-31&rules=",
        "public standings": f"/public/{league.share_token}/",
        "public history": f"/public/{league.share_token}/history/",
        "head to head": f"/leagues/{league.pk}/head-to-head/?first={first.pk}&second={second.pk}",
        "members": f"/leagues/{league.pk}/members/",
        "season standings (best 10 nights, 2024)": season.get_absolute_url(),
        "public season standings": f"/public/{league.share_token}/seasons/{season.pk}/",
    }
    results = {}
    standings_url = pages["standings"]
    totals_fold(league_id=league.pk)  # a database built before the writes folded
    for url in pages.values():
        client.get(url)  # templates compiled
    # "Finish, undo, finish again": the deal that ends a series folds it into the running
    # totals, the undo takes its totals out, the finish again folds it once more; each write is
    # timed, then the standings view after it. Each time in a transaction rolled back
    # afterwards, so every repeat starts from the same totals.
    seated = list(Player.objects.filter(league=league).order_by("pk")[:4])
    steps = (
        "the deal that ends a series (folds it)",
        "standings after a series ended",
        "its last deal undone (its totals out)",
        "standings after the undo",
        "finished again (folds it)",
        "standings after it finished again",
    )
    timed: dict[str, tuple[list[float], list[float]]] = {step: ([], []) for step in steps}

    def timing(step: str, work):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = work()
        timed[step][0].append(time.perf_counter() - started)
        timed[step][1].append(time.process_time() - started_cpu)
        return result

    def view(step: str) -> None:
        response = timing(step, lambda: client.get(standings_url))
        if response.status_code != 200:
            raise SystemExit(f"{step}: {response.status_code}")

    def deal(series, number: int):
        return deals.deal_record(
            series_id=series.pk, number=number, points=(0, 120), tricks=(False, True)
        ).series

    def play_to_the_end(series, step: str):
        """Side 0 loses every deal until the series ends; the deal that ends it is timed."""
        number = series.deal_count + 1
        while not series.finished:
            started, started_cpu = time.perf_counter(), time.process_time()
            series = deal(series, number)
            if series.finished:
                timed[step][0].append(time.perf_counter() - started)
                timed[step][1].append(time.process_time() - started_cpu)
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
                ),
                steps[0],
            )
            view(steps[1])
            timing(
                steps[2],
                lambda e=ended: deals.deal_undo(
                    series_id=e.pk, number=e.deal_count, version=e.version
                ),
            )
            view(steps[3])
            ended.refresh_from_db()
            play_to_the_end(ended, steps[4])
            view(steps[5])
            transaction.set_rollback(True)
    for step, (wall, cpu) in timed.items():
        results[step] = statistics.median(wall)
        results[f"{step} (CPU)"] = statistics.median(cpu)
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
    # The season's page when its numbers are not cached yet (a result or its rules changed):
    # its version bumped before each request, outside the time.
    fresh_wall, fresh_cpu = [], []
    for _ in range(scaled(10, 2)):
        Season.objects.filter(pk=season.pk).update(version=F("version") + 1)
        started, started_cpu = time.perf_counter(), time.process_time()
        response = client.get(season.get_absolute_url())
        fresh_wall.append(time.perf_counter() - started)
        fresh_cpu.append(time.process_time() - started_cpu)
        if response.status_code != 200:
            raise SystemExit(f"season: {response.status_code}")
    results[SEASON_FIRST] = statistics.median(fresh_wall)
    results[f"{SEASON_FIRST} (CPU)"] = statistics.median(fresh_cpu)
    results[FIRST_VIEW] = statistics.median(first_wall)
    results[f"{FIRST_VIEW} (CPU)"] = statistics.median(first_cpu)
    results[f"{FIRST_VIEW}, slowest"] = max(first_wall)
    results[f"{FIRST_VIEW}, slowest (CPU)"] = max(first_cpu)
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
    # Last, so that their big rolled-back writes leave the pages' figures alone. Apart: a
    # change to an old series (its last deal undone) refolds every series after it, in
    # the writing request; and the whole league folded from nothing (fold_standings).
    order = list(
        Series.objects.filter(league=league, finished=True)
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)
    )
    for later in REFOLDS:
        index = 0 if later is None else max(len(order) - 1 - later, 0)
        wall_cpu: tuple[list[float], list[float]] = ([], [])
        for _ in range(scaled(3, 1)):
            with transaction.atomic():
                old = Series.objects.get(pk=order[index])
                started, started_cpu = time.perf_counter(), time.process_time()
                deals.deal_undo(series_id=old.pk, number=old.deal_count, version=old.version)
                wall_cpu[0].append(time.perf_counter() - started)
                wall_cpu[1].append(time.process_time() - started_cpu)
                transaction.set_rollback(True)
        name = OLD_CHANGE.format(len(order) - 1 - index)
        results[name] = statistics.median(wall_cpu[0])
        results[f"{name} (CPU)"] = statistics.median(wall_cpu[1])
    rebuilt, rebuilt_cpu = [], []
    for _ in range(scaled(2, 1)):
        with transaction.atomic():
            totals_forget(league)
            started, started_cpu = time.perf_counter(), time.process_time()
            totals_fold(league_id=league.pk)
            rebuilt.append(time.perf_counter() - started)
            rebuilt_cpu.append(time.process_time() - started_cpu)
            transaction.set_rollback(True)
    results[REBUILT] = statistics.median(rebuilt)
    results[f"{REBUILT} (CPU)"] = statistics.median(rebuilt_cpu)
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
        if name.endswith("(CPU)") or name == REBUILT or name.startswith("a deal of an old"):
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
    print()
    print("Apart, without the goal: writes that refold the standings (wall-clock, then CPU).")
    apart = [name for name in times["demo"] if name.startswith(("a deal of an old", REBUILT))]
    for name in apart:
        if name.endswith("(CPU)"):
            continue
        small = times["small"].get(name)
        shown = "" if small is None else f"{small * 1000:>8.1f}ms"
        print(
            f"{name:<66} {shown:>10} {times['demo'][name] * 1000:>8.1f}ms "
            f"{times['demo'][name + ' (CPU)'] * 1000:>8.1f}ms CPU"
        )
    worst = max(
        times["demo"][f"{name} (CPU)"] / max(times["small"][f"{name} (CPU)"], 1e-9)
        for name in times["small"]
        if name.startswith(("standings", "public standings", FIRST_VIEW))
        and not name.endswith("(CPU)")
    )
    print(f"Worst CPU ratio of a standings view (every filter, every step): {worst:.2f}")


if __name__ == "__main__":
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--child") + 1], "--rebuild" in sys.argv)
    else:
        main()
