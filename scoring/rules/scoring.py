"""Scoring one deal (RULES.md, "One deal (two sides)" and "One deal (three sides)")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .deal import Deal, shown
from .errors import InvalidDeal
from .errors import gettext_noop as _
from .ruleset import CLASSIC, Ruleset

#: Defeat points (очки поражения) of a losing side, by how badly it lost.
SAVED = 2  # at or above the save line
BEATEN = 4  # below it, with at least one trick
NAKED = 6  # "naked" (голые): no trick (or, with naked="points", no card points)


@dataclass(frozen=True, slots=True)
class DealScore:
    """What one deal costs each side given, multiplier applied, and whether it was eggs."""

    defeat: tuple[int, ...]
    eggs: bool


def defeat_of_loser(points: int, took_trick: bool, save_line: int, naked: str) -> int:
    """A losing side's defeat points: 2 at or above the save line, else 4, or 6 when naked."""
    if points >= save_line:
        return SAVED
    if naked == "points":
        return NAKED if points == 0 else BEATEN
    return BEATEN if took_trick else NAKED


def base_defeat(deal: Deal, rules: Ruleset) -> tuple[int, ...]:
    """Defeat points per side before any eggs multiplier."""
    points = deal.points
    took = deal.took_trick
    if len(points) == 2:
        first, second = points
        if first == second:  # 60:60, eggs
            return (SAVED, SAVED) if rules.eggs == "both-two" else (0, 0)
        # A side with 61 or more wins; the other loses.
        if first > second:
            return (0, defeat_of_loser(second, took[1], rules.save_line, rules.naked))
        return (defeat_of_loser(first, took[0], rules.save_line, rules.naked), 0)
    # Three sides: the top side scores 0, or 2 each when several share the top.
    top = max(points)
    shared_top = points.count(top) > 1
    return tuple(
        (SAVED if shared_top else 0)
        if number == top
        else defeat_of_loser(number, took[side], rules.save_line_three, rules.naked)
        for side, number in enumerate(points)
    )


def score_deal(
    points: Sequence[int] | Deal,
    tricks: Sequence[bool] | None = None,
    *,
    rules: Ruleset = CLASSIC,
    multiplier: int = 1,
) -> DealScore:
    """Score one deal on its own: defeat points per side (times ``multiplier``) and eggs."""
    if not isinstance(rules, Ruleset):
        raise TypeError("rules must be a Ruleset")
    deal = points if isinstance(points, Deal) else Deal(_as_tuple(points), _as_tuple(tricks))
    if type(multiplier) is not int or multiplier < 1:
        raise InvalidDeal(
            _("The eggs multiplier is a whole number from 1 up, not %(value)s."),
            {"value": shown(multiplier)},
        )
    defeat = base_defeat(deal, rules)
    if multiplier != 1:
        defeat = tuple(value * multiplier for value in defeat)
    return DealScore(defeat=defeat, eggs=deal.is_eggs)


def _as_tuple(values):
    """A tuple of ``values`` when it is a collection; anything else goes to ``Deal`` to refuse."""
    if values is None or isinstance(values, (str, bytes)):
        return values
    try:
        return tuple(values)
    except (TypeError, OverflowError):
        return values


#: Memo of ``base_defeat`` per scoring house rules, keyed by (points, tricks); ``Series`` uses it.
_DEFEAT_MEMOS: dict[tuple[object, ...], dict[tuple[object, ...], tuple[int, ...]]] = {}
#: A memo stops growing here (all valid deals with their trick answers number about 21,000).
MEMO_LIMIT = 30_000


def defeat_memo(rules: Ruleset) -> dict[tuple[object, ...], tuple[int, ...]]:
    """The memo of ``base_defeat`` shared by every ruleset that scores deals like ``rules``."""
    key = (rules.save_line, rules.save_line_three, rules.naked, rules.eggs == "both-two")
    memo = _DEFEAT_MEMOS.get(key)
    if memo is None:
        memo = _DEFEAT_MEMOS[key] = {}
    return memo
