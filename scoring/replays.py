"""Stored deals -> the engine, and back: the one bridge between rows and ``scoring.rules``.

Deal rows keep card points per original side (None for a side that was already out); the
engine takes points per side still in play. Which sides are in play at a deal is itself decided
by the engine, so the rows are fed to it one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring import rules
from scoring.models import Deal, Series

MAX_SIDES = 3


def engine_deal(row: Deal, in_play: Sequence[int]) -> rules.Deal:
    """The engine's view of a stored deal, given the sides that were in play for it."""
    return rules.Deal(
        tuple(row.points[side] for side in in_play),
        tuple(bool(row.tricks[side]) for side in in_play),
    )


def engine_series(series: Series, rows: Iterable[Deal]) -> rules.Series:
    """The engine's running series after the stored ``rows`` (in deal order)."""
    running = rules.Series(series.shape.sides, rules=series.ruleset)
    for row in rows:
        running.add(engine_deal(row, running.in_play))
    return running


def replay_rows(series: Series, rows: Iterable[Deal]) -> rules.SeriesState:
    """The engine's state of a series after its stored deals."""
    return engine_series(series, rows).state


def row_values(deal: rules.Deal, in_play: Sequence[int]) -> dict[str, int | bool | None]:
    """Column values of a deal row: per original side, None where a side was out."""
    values: dict[str, int | bool | None] = {}
    for side in range(MAX_SIDES):
        if side in in_play:
            index = in_play.index(side)
            values[f"points_{side}"] = deal.points[index]
            values[f"tricks_{side}"] = deal.took_trick[index]
        else:
            values[f"points_{side}"] = None
            values[f"tricks_{side}"] = None
    return values


def row_snapshot(row: Deal) -> dict[str, list]:
    """A deal row as plain data, for the audit trail and exports."""
    return {"points": list(row.points), "tricks": list(row.tricks)}
