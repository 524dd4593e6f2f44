"""Benchmark: do the history pages cost the same on a big league as on a tiny one?

Times the history list, the score sheet and the player page on two SQLite databases:

- the demo league of ``make demo-data`` (200 players, 5,000 series, about 150,000 deals);
- the same generator's first 100 deals: one series played to its end (26 deals), then 33 of
  2 deals and 8 of 1 (42 series: enough for two full history pages).

Each database is generated once (seeded, through the engine) and reused from
``$BENCH_DIR`` (default ``/tmp/kozel-bench``); a reused database is migrated first when the
schema has changed since it was made. Each size runs in its own process, with
``DATABASE_URL`` set before Django starts, and requests pages through Django's test client as
the league's owner: three warm-up requests, then the best of ``REPEATS``, in ``ROUNDS`` rounds
that alternate the two sizes. Times are the process's CPU time per request (SQLite runs in the
process, so that is all the work a request costs): on a shared machine, wall-clock times of the
same page swing by a factor of two from one run to the next, CPU times hardly. Prints, per page,
both times, their ratio and the queries per request; asserts nothing (the goal is a ratio of at
most 1.5).

The same page is picked the same way in both databases: the newest history page and the second
one, the score sheet of a 26-deal series, and the player pages of the most active player and of
the median one among those with a finished series (a player without one has no record, streaks
or chart to show: that page would be a different one).

Run with ``make bench`` or ``.venv/bin/python benchmarks/history_pages.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from quick import scaled, tag

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(os.environ.get("BENCH_DIR", "/tmp/kozel-bench"))
REPEATS = scaled(25, 2)
ROUNDS = scaled(3, 1)
SEED = 20250301
#: The small database: the first series to its end (26 deals), then 33 of 2 and 8 of 1: 100 deals
#: in 42 series (three history pages).
SMALL_CAPS = (26, *(2,) * 33, *(1,) * 8)
SIZES = {
    "small": {
        "file": f"history-100-deals-{SEED}-v2.sqlite3",
        "players": 12,
        "series": len(SMALL_CAPS),
        "caps": SMALL_CAPS,
    },
    "demo": {
        "file": f"history-demo-{SEED}{tag()}.sqlite3",
        "players": scaled(200, 24),
        "series": scaled(5000, 120),
        "caps": None,
    },
}


def prepare(kind: str) -> None:
    """Migrate the database and fill it with the league, unless it is there already.

    A database cached by an older checkout is migrated first (data migrations included, such as
    0003's replay that fills the seats' deal figures), so it is measured with today's schema.
    """
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from scoring.management.demo import demo_generate
    from scoring.models import League

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    if plan and League.objects.exists():
        names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _ in plan)
        print(f"migrated {kind}: {names} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    call_command("createcachetable", verbosity=0)
    if not League.objects.exists():
        size = SIZES[kind]
        started = time.perf_counter()
        summary = demo_generate(
            seed=SEED, players=size["players"], series=size["series"], deal_caps=size["caps"]
        )
        print(
            f"generated {kind}: {summary.series:,} series, {summary.deals:,} deals "
            f"in {time.perf_counter() - started:.0f} s",
            file=sys.stderr,
        )


def pages(sheet_deals: int) -> tuple[dict[str, str], int]:
    """The pages to time, and the deal count of the score sheet picked."""
    from django.db.models import Count, Q

    from scoring.models import Player, Series

    newest = list(Series.objects.order_by("-created_at", "-pk").values_list("pk", flat=True))
    lengths = Series.objects.values_list("pk", "deal_count")
    sheet, deals = min(lengths, key=lambda item: (abs(item[1] - sheet_deals), -item[0]))
    players = list(
        Player.objects.annotate(
            played=Count("seats"), finished=Count("seats", filter=Q(seats__series__finished=True))
        )
        .filter(finished__gt=0)
        .order_by("-played", "pk")
        .values_list("pk", flat=True)
    )
    urls = {
        "history, newest page": "/history/",
        "history, second page": f"/history/?before={newest[19]}",
        "series sheet": f"/series/{sheet}/sheet/",
        "player, most active": f"/players/{players[0]}/",
        "player, median": f"/players/{players[len(players) // 2]}/",
    }
    return urls, deals


def measure(kind: str, sheet_deals: int) -> dict:
    """Run inside the child process: time every page on this database."""
    import django

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    django.setup()
    prepare(kind)

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from scoring.models import Deal, Player, Series

    client = Client()
    client.force_login(get_user_model().objects.get(username="demo"))
    results = {}
    urls, deals = pages(sheet_deals)
    for name, url in urls.items():
        for _ in range(3):
            assert client.get(url).status_code == 200, url
        times = []
        for _ in range(REPEATS):
            started = time.process_time()
            client.get(url)
            times.append(time.process_time() - started)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        results[name] = {
            "ms": min(times) * 1000,
            "queries": len(queries.captured_queries),
        }
    results["_sheet_deals"] = deals
    results["_size"] = {
        "series": Series.objects.count(),
        "deals": Deal.objects.count(),
        "players": Player.objects.count(),
    }
    return results


def run(kind: str, sheet_deals: int) -> dict:
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{BENCH_DIR / SIZES[kind]['file']}")
    env.setdefault("LOG_LEVEL", "WARNING")
    done = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(sheet_deals)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    sys.stderr.write(done.stderr if done.returncode else "")
    if done.returncode:
        raise SystemExit(f"measuring the {kind} database failed")
    for line in done.stderr.splitlines():
        if line.startswith(("generated", "migrated")):
            print(line)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]))))
        return
    small = run("small", max(SMALL_CAPS))
    demo = run("demo", small["_sheet_deals"])  # a score sheet of the same length in both
    for _ in range(ROUNDS - 1):  # alternate, so a busy moment of the machine hits both sizes
        for result, again in ((small, run("small", max(SMALL_CAPS))),
                              (demo, run("demo", small["_sheet_deals"]))):  # fmt: skip
            for name, figures in again.items():
                if not name.startswith("_") and figures["ms"] < result[name]["ms"]:
                    result[name] = figures
    for label, sizes in (("100-deal", small["_size"]), ("demo", demo["_size"])):
        print(
            f"{label} database: {sizes['players']:,} players, {sizes['series']:,} series, "
            f"{sizes['deals']:,} deals"
        )
    print(
        f"CPU time per request, best of {ROUNDS} x {REPEATS}, as the league's owner; sheets of "
        f"{small['_sheet_deals']} and {demo['_sheet_deals']} deals"
    )
    print(f"{'page':<28}{'100 deals':>11}{'demo':>11}{'ratio':>8}{'queries':>10}")
    for name in (key for key in small if not key.startswith("_")):
        a, b = small[name], demo[name]
        ratio = b["ms"] / a["ms"]
        flag = "" if ratio <= 1.5 else "  > 1.5"
        print(
            f"{name:<28}{a['ms']:>9.1f}ms{b['ms']:>9.1f}ms{ratio:>8.2f}"
            f"{a['queries']:>5} / {b['queries']:<3}{flag}"
        )


if __name__ == "__main__":
    main()
