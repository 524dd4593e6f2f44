"""What the load test sends, how often, and when a step holds: shared by its parts."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from quick import QUICK, scaled

from scoring import rules  # the engine alone (pure Python); ``load`` put the project on the path

WORKERS = 4  # gunicorn's workers (sync, as kozel_site/gunicorn.conf.py runs them behind the proxy)
PHONES = 4  # a table's phones; the first one scores
TABLES_PER_SCREEN = 10  # a club night's tables: one big screen each
PLAYERS_PER_TABLE = 4
ROUNDS = 5  # a club night's planned rounds (round 1 is played)
DEAL_EVERY = scaled(60, 1)  # seconds between a table's deals
WARM_UP = scaled(10, 1)
WINDOW = scaled(60, 6)  # >= DEAL_EVERY: every table posts a deal in it
TIMEOUT = 5.0  # seconds a request may take before it counts as failed
#: p99 budgets: a poll and a big screen's refresh 200 ms; what a person taps and waits for (a
#: deal: the board read and the form posted; a rematch: posted and its board shown) 300 ms.
BUDGET_MS = {"live poll": 200, "big screen": 200, "deal": 300, "rematch": 300}
LADDER = [1, 2] if QUICK else [10, 25, 50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1200, 1600]
START = 1 if QUICK else 100
MAX_SITE_TABLES = int(os.environ.get("LOADTEST_MAX_TABLES") or scaled(800, 2))
#: Side 0's card points, deal after deal (the other side takes the rest of 120): classic rules
#: end such a series at the goat after 10 or 11 deals. QUICK: a 3-deal series (4 points each).
POINTS = (100,) if QUICK else (70, 45, 60, 85, 35, 75, 50, 20, 65, 60, 40, 90)
GOAL_TABLES, GOAL_SHARE = 200, 0.5
GOAL = f"N >= {GOAL_TABLES} and >= {GOAL_SHARE:.0%} of bare Django's N, each kind on each database"


@dataclass(frozen=True)
class Kind:
    """A kind of table the load test measures: what its phones send (as printed), whether it has
    big screens, and how a table goes on once its game reaches the goat."""

    key: str
    name: str
    sends: tuple[str, ...]
    screens: bool
    rematch: bool  # True: its scoring phone posts the rematch; False: its next pre-made game


CLUB = Kind(
    "club",
    "club-night tables",
    ("live poll", "big screen", "deal", "board GET", "deal POST"),
    screens=True,
    rematch=False,
)
KITCHEN = Kind(
    "kitchen",
    "kitchen tables",
    ("live poll", "deal", "board GET", "deal POST", "rematch"),
    screens=False,
    rematch=True,
)
KINDS = {kind.key: kind for kind in (CLUB, KITCHEN)}


def kinds_asked() -> list[Kind]:
    """The kinds ``LOADTEST_KINDS`` names (``club,kitchen`` by default), in that order."""
    asked = (os.environ.get("LOADTEST_KINDS") or "club,kitchen").replace(" ", "").split(",")
    unknown = [key for key in asked if key not in KINDS]
    if unknown or not asked:
        raise SystemExit(f"LOADTEST_KINDS: {', '.join(unknown)} unknown (club, kitchen)")
    return [KINDS[key] for key in dict.fromkeys(asked)]


def points(table: int, number: int) -> int:
    """Side 0's card points in deal ``number`` of a game at table ``table`` (every game of a
    table takes the same deals, so it lasts ``series_length(table)``)."""
    return POINTS[(table + number - 1) % len(POINTS)]


def series_length(offset: int) -> int:
    """Deals until the goat of a series whose deals take ``POINTS`` from ``offset`` on."""
    series, number = rules.Series(2, rules=rules.PRESETS["classic"]), 0
    while not series.finished:
        scored = POINTS[(offset + number) % len(POINTS)]
        series.add((scored, rules.DEAL_TOTAL - scored))
        number += 1
    return number


def mean_series_length() -> float:
    """Deals a game lasts, on average over the tables (one deal in that many ends a game)."""
    lengths = [series_length(offset) for offset in range(len(POINTS))]
    return sum(lengths) / len(lengths)


def played_before(table: int) -> int:
    """Deals kitchen table ``table``'s first game has had before the run: spread over the game,
    so that in every step about one deal in ``mean_series_length()`` ends a game (a table's
    deal a minute would otherwise bring its first goat only after ten steps)."""
    return table % series_length(table)


def series_per_table() -> int:
    """Enough pre-made club-night games for a table that takes part in every step of a search."""
    deals = (len(LADDER) + 1) * math.ceil((WARM_UP + WINDOW) / DEAL_EVERY)  # and a warm-up
    shortest = min(series_length(offset) for offset in range(len(POINTS)))
    return math.ceil(deals / shortest) + 1
