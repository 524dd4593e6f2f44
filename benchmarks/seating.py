"""Benchmark of the club night's seating: 40 players over 6 rounds (the goal is at most 2 s).

Prints the time of each size, the median of a few seeds, and its fairness figures. It never
asserts a speed. Run with ``make bench`` or ``.venv/bin/python benchmarks/seating.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from quick import scaled  # noqa: E402

from scoring.events.seating import figures, schedule  # noqa: E402

SIZES = (
    (12, 4, False),
    (13, 4, True),
    (13, 6, False),
    (13, 6, True),
    (20, 5, False),
    (24, 6, False),
    (40, 6, False),
)
SEEDS = scaled(5, 1)


def main() -> None:
    for players, rounds, trios in SIZES:
        times = []
        for seed in range(SEEDS):
            started = time.perf_counter()
            plan = schedule(range(1, players + 1), rounds, seed=seed, three_player_tables=trios)
            times.append(time.perf_counter() - started)
        fair = figures(plan)
        kind = " (tables of three)" if trios else ""
        print(
            f"seating {players:>2} players x {rounds} rounds{kind}:"
            f" {statistics.median(times) * 1000:7.1f} ms  repeated partners"
            f" {fair.repeated_partners}, repeated opponents {fair.repeated_opponents}"
        )


if __name__ == "__main__":
    main()
