"""Benchmark of the scoring engine: how many deals per second ``replay`` scores.

Generates (seeded, outside the timed part) about 100,000 random valid deals spread over many
complete series, every preset with two and three sides, using the engine itself to know when a
series is over. Then times replaying every series from its stored deals, best of three:

- the headline, ``rules engine``: what the site does on every page that shows a series, i.e.
  building each ``Deal`` from its stored points and tricks (validation included) and replaying;
- ``replay only``: the same series from ready-made ``Deal`` objects.

The last line is the headline figure (wall-clock, best of three). On a busy machine the CPU-time
figure printed before it shows what the engine costs regardless of the other load.

Run with ``make bench`` or ``.venv/bin/python benchmarks/rules_engine.py [deals]``.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quick import scaled

from scoring.rules import POSSIBLE_SIDE_POINTS, PRESETS, Deal, Series, replay
from scoring.rules.cards import is_possible_split

DEALS = scaled(100_000, 2_000)
SEED = 20240229
REPEATS = scaled(3, 1)
TWO_SIDE_POINTS = sorted(POSSIBLE_SIDE_POINTS)


def random_points(rng: random.Random, sides: int) -> tuple[int, ...]:
    """A valid split of the 120 card points between ``sides`` sides (eggs now and then)."""
    if sides == 2:
        if rng.random() < 0.08:
            return (60, 60)
        first = rng.choice(TWO_SIDE_POINTS)
        return (first, 120 - first)
    while True:
        first = rng.randint(0, 120)
        second = rng.randint(0, 120 - first)
        points = (first, second, 120 - first - second)
        if is_possible_split(points):
            return points


def random_deal(rng: random.Random, sides: int) -> tuple[tuple[int, ...], tuple[bool, ...] | None]:
    """Stored form of a deal: its points and, when some side has 0 points, its tricks."""
    points = random_points(rng, sides)
    if 0 not in points:
        return points, None
    return points, tuple(number > 0 or rng.random() < 0.5 for number in points)


def generate(total: int, seed: int = SEED) -> list[tuple[int, object, list]]:
    """Complete series (sides, rules, stored deals) until they hold ``total`` deals in all."""
    rng = random.Random(seed)
    presets = list(PRESETS.values())
    series_list = []
    count = 0
    while count < total:
        sides = rng.choice((2, 3))
        rules = rng.choice(presets)
        if sides == 3 and rng.random() < 0.5:
            rules = rules.__class__(**{**rules.to_dict(), "ending": "first-out"})
        series = Series(sides, rules=rules)
        stored = []
        while not series.finished:
            points, tricks = random_deal(rng, len(series.in_play))
            series.add(Deal(points, tricks))
            stored.append((points, tricks))
        series_list.append((sides, rules, stored))
        count += len(stored)
    return series_list


def best_of(repeats: int, run, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        run()
        best = min(best, clock() - start)
    return best


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else DEALS
    started = time.perf_counter()
    series_list = generate(total)
    generated = time.perf_counter() - started
    deals = sum(len(stored) for _, _, stored in series_list)
    built = [
        (sides, rules, [Deal(points, tricks) for points, tricks in stored])
        for sides, rules, stored in series_list
    ]

    def from_stored() -> None:
        for sides, rules, stored in series_list:
            replay(sides, [Deal(points, tricks) for points, tricks in stored], rules=rules)

    def from_deals() -> None:
        for sides, rules, deal_objects in built:
            replay(sides, deal_objects, rules=rules)

    headline = best_of(REPEATS, from_stored)
    replay_only = best_of(REPEATS, from_deals)
    cpu = best_of(REPEATS, from_stored, time.process_time)
    print(f"generated {deals:,} deals in {len(series_list):,} series in {generated:.2f} s")
    print(f"replay only (ready-made Deal objects): {deals / replay_only:,.0f} deals/s")
    print(f"CPU time, not wall-clock: {deals / cpu:,.0f} deals/s", end="")
    print(f" (load average {os.getloadavg()[0]:.1f})" if hasattr(os, "getloadavg") else "")
    print(f"rules engine: {deals / headline:,.0f} deals/s")


if __name__ == "__main__":
    main()
