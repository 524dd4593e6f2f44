"""Benchmark of the history exports: the demo league (about 150,000 deals) downloaded whole.

Reuses the demo database of ``league_pages.py`` (built there when it is missing) and downloads
``/history/export.csv?league=…`` and ``/history/export.json?league=…`` as the league's owner
through Django's test client, reading each stream to its end as a browser would. Prints the
wall-clock and CPU time of each (best of a few), its size, and whether it ends with its closing
mark. The goals (issue 14): the CSV under 5 s, the JSON under 20 s, well inside the 30 s worker
timeout. It never asserts a speed.

Run with ``make bench`` or ``.venv/bin/python benchmarks/exports.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from league_pages import DATABASES, _setup_django  # noqa: E402
from quick import scaled  # noqa: E402

GOALS = {"csv": 5.0, "json": 20.0}
ROUNDS = scaled(2, 1)


def measure() -> dict:
    _setup_django("demo")
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.test.utils import setup_test_environment

    from scoring.models import League, Series

    setup_test_environment()
    league = League.objects.get(name="Demo club")
    client = Client()
    client.force_login(get_user_model().objects.get(username="demo"))
    found = {"series": Series.objects.filter(league=league).count()}
    for kind in GOALS:
        best: tuple[float, float] | None = None
        for _ in range(ROUNDS):
            started, started_cpu = time.perf_counter(), time.process_time()
            response = client.get(f"/history/export.{kind}?league={league.pk}")
            size, tail = 0, b""
            for piece in response.streaming_content:
                size += len(piece)
                tail = (tail + piece)[-200:]
            took = (time.perf_counter() - started, time.process_time() - started_cpu)
            best = took if best is None or took[0] < best[0] else best
        text = tail.decode("utf-8", "replace")
        closed = (
            text.rstrip().endswith('"complete":true}')
            if kind == "json"
            else text.rstrip().endswith(f"# end of export: {found['series']} series")
        )
        found[kind] = {
            "status": response.status_code,
            "wall": best[0],
            "cpu": best[1],
            "bytes": size,
            "closed": closed,
        }
    return found


def main() -> None:
    if not DATABASES["demo"].exists():
        print("building the demo database (league_pages.py) ...", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "league_pages.py"), "--child", "demo"],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
    done = subprocess.run(
        [sys.executable, __file__, "--child"], check=True, capture_output=True, text=True, cwd=ROOT
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"History exports of the demo league ({found['series']:,} series), best of {ROUNDS}:")
    print(f"{'download':<10} {'status':>6} {'wall':>8} {'CPU':>8} {'size':>10}  closing mark  goal")
    for kind, goal in GOALS.items():
        row = found[kind]
        flag = "" if row["wall"] < goal else "  over the goal"
        print(
            f"{kind:<10} {row['status']:>6} {row['wall']:>7.1f}s {row['cpu']:>7.1f}s "
            f"{row['bytes'] / 1e6:>8.1f}MB  {'yes' if row['closed'] else 'NO':<12}  < {goal:.0f} s"
            f"{flag}"
        )


if __name__ == "__main__":
    if "--child" in sys.argv:
        print(json.dumps(measure()))
    else:
        main()
