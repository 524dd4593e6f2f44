"""Stored deals -> the engine, and back: the one bridge between rows and ``scoring.rules``.

Deal rows keep card points per original side (None for a side that was already out); the
engine takes points per side still in play. Which sides are in play at a deal is itself decided
by the engine, so the rows are fed to it one at a time. When an edit of an earlier deal changes
who is out, a later row may no longer match the sides in play: the engine then refuses it with
a message naming that deal, and the edit is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from django.utils.translation import gettext_noop

from scoring import rules
from scoring.models import Deal, Series

#: A row entered for other players than those now in play, with as many of them (three players).
OTHER_SIDES = gettext_noop(
    "This deal was entered for other players than the ones now in play; undo it first."
)


def entered_sides(row: Deal) -> tuple[int, ...]:
    """The original sides a stored deal has card points for."""
    return tuple(side for side in range(rules.MAX_SIDES) if row.points[side] is not None)


def engine_deal(row: Deal, sides: Sequence[int]) -> rules.Deal:
    """The engine's view of a stored deal, for the original ``sides`` (in order) it was for."""
    # A side without points (None) is the engine's to refuse, as any other bad value.
    points = cast("tuple[int, ...]", tuple(row.points[side] for side in sides))
    return rules.Deal(points, tuple(bool(row.tricks[side]) for side in sides))


def engine_series(series: Series, rows: Iterable[Deal]) -> rules.Series:
    """The engine's running series after the stored ``rows`` (in deal order).

    Raises ``InvalidDeal`` naming the first row that no longer fits (after an edit): a deal
    after the end of the series, or a deal for other sides than the ones in play.
    """
    running = rules.Series(series.shape.sides, rules=series.ruleset)
    for number, row in enumerate(rows, start=1):
        sides = entered_sides(row)
        in_play = running.in_play
        if sides != in_play and len(sides) == len(in_play) and not running.finished:
            raise rules.InvalidDeal(OTHER_SIDES, number=number)
        try:
            deal = engine_deal(row, sides)
        except rules.InvalidDeal as error:  # a row no form could have written
            raise error.in_deal(number) from None
        # A finished series or a different number of sides: the engine says why it refuses.
        running.add(deal)
    return running


def replay_rows(series: Series, rows: Iterable[Deal]) -> rules.SeriesState:
    """The engine's state of a series after its stored deals."""
    return engine_series(series, rows).state


def row_values(deal: rules.Deal, in_play: Sequence[int]) -> dict[str, int | bool | None]:
    """Column values of a deal row: per original side, None where a side was out."""
    if len(deal.points) != len(in_play):
        raise ValueError(f"a deal for {len(in_play)} sides has {len(deal.points)} values")
    values: dict[str, int | bool | None] = {}
    for side in range(rules.MAX_SIDES):
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
