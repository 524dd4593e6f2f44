"""One deal's input and its validation (RULES.md, "Bad input is refused").

A ``Deal`` is checked when it is made, so a deal that exists is a deal that could have happened
at a real table; what depends on the series (how many sides are still in play, whether the
series is over) is checked by ``replay``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import DEAL_TOTAL, POSSIBLE_SIDE_POINTS, is_possible_split
from .errors import InvalidDeal
from .errors import gettext_noop as _

#: A deal is played by two or three sides (the two teams, two players or three players).
MIN_SIDES = 2
MAX_SIDES = 3

#: Every valid split of the 120 points between two or three sides (the fast path's answer).
_VALID_SPLITS: frozenset[tuple[int, ...]] = frozenset(
    [(a, DEAL_TOTAL - a) for a in sorted(POSSIBLE_SIDE_POINTS)]
    + [
        (a, b, DEAL_TOTAL - a - b)
        for a in range(DEAL_TOTAL + 1)
        for b in range(DEAL_TOTAL + 1 - a)
        if is_possible_split((a, b, DEAL_TOTAL - a - b))
    ]
)

_set = object.__setattr__


@dataclass(frozen=True, slots=True, init=False)
class Deal:
    """Card points per side still in play, in side order, and per side whether it took a trick.

    ``tricks`` may be None only when no side has 0 points: a side with points took a trick, and
    for a side with 0 points the scorekeeper must say (a trick of 6-9s is worth nothing).
    """

    points: tuple[int, ...]
    tricks: tuple[bool, ...] | None = None

    def __init__(self, points: Sequence[int], tricks: Sequence[bool] | None = None) -> None:
        # Fast path for the usual input: a tuple of ints that is a valid split, and tricks that
        # are None (no side at 0) or a tuple of bools that fits. Anything else goes through the
        # full checks below, which accept exactly the same deals and say why they refuse.
        if type(points) is tuple and _all_ints(points) and points in _VALID_SPLITS:
            if tricks is None:
                if 0 not in points:
                    _set(self, "points", points)
                    _set(self, "tricks", None)
                    return
            elif type(tricks) is tuple and len(tricks) == len(points):
                for number, took in zip(points, tricks):  # noqa: B905 (lengths checked)
                    if took is not True and (took is not False or number):
                        break  # not a bool, or "no trick" with points: refused below
                else:
                    _set(self, "points", points)
                    _set(self, "tricks", tricks)
                    return
        points = _whole_numbers(points)
        _set(self, "points", points)
        _set(self, "tricks", _tricks(tricks, points))

    @property
    def took_trick(self) -> tuple[bool, ...]:
        """Per side: did it take at least one trick."""
        if self.tricks is None:
            return (True,) * len(self.points)
        return self.tricks

    @property
    def is_eggs(self) -> bool:
        """60:60, "eggs" (яйца): only two sides can split the deal evenly in two."""
        return len(self.points) == 2 and self.points[0] == self.points[1]


def _all_ints(values: tuple[Any, ...]) -> bool:
    for value in values:  # noqa: SIM110 (a loop beats all() on two or three items)
        if type(value) is not int:
            return False
    return True


def _whole_numbers(raw: Any) -> tuple[int, ...]:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise InvalidDeal(_("Enter the card points of every side."))
    count = _length(raw)
    if count is None or not MIN_SIDES <= count <= MAX_SIDES:
        raise InvalidDeal(
            _("A deal has two or three sides, not %(count)s."),
            {"count": shown(raw) if count is None else count},
        )
    points = []
    for side, value in enumerate(raw):
        number = _whole_number(value)
        if number is None:
            raise InvalidDeal(
                _("Card points are whole numbers; %(value)s is not one."),
                {"value": shown(value)},
                side=side,
                field="points",
            )
        if not 0 <= number <= DEAL_TOTAL:
            raise InvalidDeal(
                _("Card points are between 0 and 120; %(value)s is not."),
                {"value": number if -(10**4000) < number < 10**4000 else shown(number)},
                side=side,
                field="points",
            )
        points.append(number)
    total = sum(points)
    if total != DEAL_TOTAL:
        raise InvalidDeal(
            _("The card points add up to %(total)s, but every deal has 120 in all."),
            {"total": total},
        )
    for side, number in enumerate(points):
        if number not in POSSIBLE_SIDE_POINTS:
            raise InvalidDeal(
                _("%(value)s is impossible: no set of cards is worth that."),
                {"value": number},
                side=side,
                field="points",
            )
    if not is_possible_split(tuple(points)):
        raise InvalidDeal(_("The cards cannot be split into piles worth these points."))
    return tuple(points)


def _length(raw: Sequence[Any]) -> int | None:
    """``len(raw)``, or None when Python cannot hold it (a ``range`` of 10**30 numbers, say)."""
    try:
        return len(raw)
    except (OverflowError, TypeError):
        return None


def _whole_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    try:
        return operator.index(value)
    except TypeError:
        return None


def shown(value: Any) -> str:
    """A refused value as a message shows it: at most 20 characters, whatever it is."""
    try:
        text = str(value)
    except Exception:  # e.g. an int too long to print, or an object whose str() fails
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 20 else text[:19] + "…"


def _tricks(raw: Any, points: tuple[int, ...]) -> tuple[bool, ...] | None:
    if raw is None:
        for side, number in enumerate(points):
            if number == 0:
                raise InvalidDeal(
                    _("Say whether the side with 0 points took a trick."), side=side, field="tricks"
                )
        return None
    if (
        isinstance(raw, (str, bytes))
        or not isinstance(raw, Sequence)
        or _length(raw) != len(points)
    ):
        raise InvalidDeal(
            _("Say for each of the %(count)s sides whether it took a trick."),
            {"count": len(points)},
            field="tricks",
        )
    tricks = []
    for side, (took, number) in enumerate(zip(raw, points, strict=True)):
        if not isinstance(took, bool):
            raise InvalidDeal(
                _("Answer yes or no: did this side take a trick?"), side=side, field="tricks"
            )
        if number > 0 and not took:
            raise InvalidDeal(
                _("A side with %(value)s card points took at least one trick."),
                {"value": number},
                side=side,
                field="tricks",
            )
        tricks.append(took)
    return tuple(tricks)
