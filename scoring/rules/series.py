"""A series (пулька) deal by deal: totals, eggs multiplier, who is out, the goat and the winner.

RULES.md, "A series (пулька) and who is the goat". ``replay`` is the one place that decides
everything derived from a series' deals; the site stores its results but never recomputes them
another way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .deal import MAX_SIDES, MIN_SIDES, Deal, shown
from .errors import InvalidDeal
from .errors import gettext_noop as _
from .ruleset import CLASSIC, Ruleset
from .scoring import MEMO_LIMIT, NAKED, base_defeat, defeat_memo


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """One deal within its series; per-side tuples are over the series' original sides."""

    number: int  # 1-based position in the series
    deal: Deal
    in_play: tuple[int, ...]  # the sides the deal's points were for, in order
    defeat: tuple[int, ...]  # 0 for a side no longer in play
    eggs: bool
    multiplier: int  # what this deal's defeat points were multiplied by
    totals: tuple[int, ...]  # running totals after this deal
    out: tuple[int, ...]  # sides that went out with this deal

    @property
    def losers(self) -> tuple[int, ...]:
        """Sides that scored defeat points with this deal."""
        return tuple(side for side, value in enumerate(self.defeat) if value)

    @property
    def naked(self) -> tuple[int, ...]:
        """Sides charged the naked defeat in this deal (original side indices).

        That is a loss of 6 (times the eggs multiplier): under ``naked="tricks"`` a side that
        took no trick, under ``naked="points"`` a side with 0 card points, trick or not. Read
        from the defeat points, which ``score_deal`` decided: a loser's base defeat is 2, 4 or
        6, so only the naked defeat comes to six times the multiplier.
        """
        charged = NAKED * self.multiplier
        return tuple(side for side, value in enumerate(self.defeat) if value == charged)

    def points_of(self, side: int) -> int | None:
        """The card points of an original side in this deal, None if it was out."""
        try:
            return self.deal.points[self.in_play.index(side)]
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class SeriesState:
    """Where a series stands after its deals."""

    rules: Ruleset
    totals: tuple[int, ...]
    in_play: tuple[int, ...]
    out: tuple[int, ...]
    goats: tuple[int, ...]
    winner: int | None
    finished: bool
    eggs: int
    multiplier: int
    deals: tuple[DealOutcome, ...]

    @property
    def sides(self) -> int:
        return len(self.totals)

    @property
    def to_target(self) -> tuple[int, ...]:
        """Per side, the defeat points it can still take before it is out (0 once there)."""
        return tuple(max(self.rules.target - total, 0) for total in self.totals)

    @property
    def goats_with_eggs(self) -> bool:
        """The goat(s) of a series in which eggs fell are "goats with eggs" (a label only)."""
        return bool(self.goats) and self.eggs > 0


class Series:
    """A series being played: add deals one at a time; ``state`` says where it stands."""

    __slots__ = (
        "_eggs",
        "_finished",
        "_goats",
        "_in_play",
        "_memo",
        "_multiplier",
        "_out",
        "_outcomes",
        "_target",
        "_totals",
        "_winner",
        "rules",
    )

    def __init__(self, sides: int, *, rules: Ruleset = CLASSIC) -> None:
        if isinstance(sides, bool) or not isinstance(sides, int):
            raise TypeError("sides must be a number of sides or a sequence of sides")
        if not MIN_SIDES <= sides <= MAX_SIDES:
            raise ValueError(f"a series has two or three sides, not {sides}")
        if not isinstance(rules, Ruleset):
            raise TypeError("rules must be a Ruleset")
        self.rules = rules
        self._target = rules.target
        self._memo = defeat_memo(rules)
        self._totals: tuple[int, ...] = (0,) * sides
        self._in_play = tuple(range(sides))
        self._out: list[int] = []
        self._goats: tuple[int, ...] = ()
        self._winner: int | None = None
        self._finished = False
        self._eggs = 0
        self._multiplier = 1
        self._outcomes: list[DealOutcome] = []

    def add(self, deal: Deal | Sequence[int]) -> DealOutcome:
        """Score the next deal (a ``Deal`` or its points); a refused deal raises ``InvalidDeal``
        naming it and changes nothing."""
        outcomes = self._outcomes
        number = len(outcomes) + 1
        if type(deal) is not Deal and not isinstance(deal, Deal):
            deal = _as_deal(deal, number)
        if self._finished:
            raise InvalidDeal(_("The series is over; no deal can be added."), number=number)
        in_play = self._in_play
        points = deal.points
        if len(points) != len(in_play):
            raise InvalidDeal(
                _("%(expected)s sides are in play, but this deal has points for %(count)s."),
                {"expected": len(in_play), "count": len(points)},
                number=number,
            )
        # base_defeat(deal, rules), looked up: a series scores the same few deals over and over.
        memo = self._memo
        key = (points, deal.tricks)
        base = memo.get(key)
        if base is None:
            base = base_defeat(deal, self.rules)
            if len(memo) < MEMO_LIMIT:
                memo[key] = base
        multiplier = self._multiplier
        if multiplier != 1:
            base = tuple([value * multiplier for value in base])
        totals = self._totals
        target = self._target
        if len(in_play) == len(totals):  # every side in play: the deal's sides are the series'
            defeat = base
            # Spelled out for two and three sides: this is the engine's innermost loop.
            first = totals[0] + base[0]
            second = totals[1] + base[1]
            if len(base) == 2:
                totals = (first, second)
                reached = first >= target or second >= target
            else:
                third = totals[2] + base[2]
                totals = (first, second, third)
                reached = first >= target or second >= target or third >= target
        else:
            per_side = [0] * len(totals)
            for side, value in zip(in_play, base, strict=True):
                per_side[side] = value
            defeat = tuple(per_side)
            totals = tuple([total + value for total, value in zip(totals, defeat, strict=True)])
            reached = any(totals[side] >= target for side in in_play)
        self._totals = totals

        eggs = len(points) == 2 and points[0] == points[1]  # deal.is_eggs
        if eggs:
            self._eggs += 1
            rule = self.rules.eggs
            if rule == "double-next":
                self._multiplier = 2
            elif rule == "stacking":
                self._multiplier = multiplier + 1
        elif multiplier != 1:
            self._multiplier = 1  # a deal that scores resets the eggs multiplier

        went_out: tuple[int, ...] = ()
        if reached:  # some side in play is at or above the target
            went_out = self._who_goes_out()
            if went_out:
                self._leave(went_out)
        outcome = _new_outcome(number, deal, in_play, defeat, eggs, multiplier, totals, went_out)
        outcomes.append(outcome)
        return outcome

    def _who_goes_out(self) -> tuple[int, ...]:
        """Sides in play at or above the target go out, unless that is all of them.

        When all are at or above it, only the highest total goes out; if they are all level,
        nobody does and play continues until a deal separates them.
        """
        totals = self._totals
        target = self._target
        over = tuple(side for side in self._in_play if totals[side] >= target)
        if not over or len(over) < len(self._in_play):
            return over
        top = max(totals[side] for side in over)
        highest = tuple(side for side in over if totals[side] == top)
        return () if len(highest) == len(over) else highest

    def _leave(self, went_out: tuple[int, ...]) -> None:
        self._out.extend(went_out)
        if not self._goats:
            self._goats = went_out  # the side(s) that went out first are the goat
        self._in_play = tuple(side for side in self._in_play if side not in went_out)
        if len(self._in_play) == 1:
            self._finished = True
            self._winner = self._in_play[0]
        elif self.rules.ending == "first-out":
            self._finished = True
            # The side left with the fewest defeat points wins, if it is alone there.
            fewest = min(self._totals[side] for side in self._in_play)
            leaders = [side for side in self._in_play if self._totals[side] == fewest]
            self._winner = leaders[0] if len(leaders) == 1 else None

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def in_play(self) -> tuple[int, ...]:
        return self._in_play

    @property
    def state(self) -> SeriesState:
        return SeriesState(
            self.rules,
            self._totals,
            self._in_play,
            tuple(self._out),
            self._goats,
            self._winner,
            self._finished,
            self._eggs,
            self._multiplier,
            tuple(self._outcomes),
        )


def standing_winner(totals: Sequence[int]) -> int | None:
    """The winner of a series closed before its goat (RULES.md, "A game that ends before the
    goat": at its limit or by the organiser): the side with the fewest defeat points, if it is
    alone there; None on a tie (won by nobody)."""
    if not totals:
        return None
    fewest = min(totals)
    leaders = [side for side, total in enumerate(totals) if total == fewest]
    return leaders[0] if len(leaders) == 1 else None


def result_winner(state: SeriesState, *, closed: bool) -> int | None:
    """Who won the series: the engine's winner once it is over (the goat), else, once it is
    closed, the side with the fewest defeat points (``standing_winner``); None while it is still
    played, or on a tie."""
    if state.finished:
        return state.winner
    return standing_winner(state.totals) if closed else None


def replay(
    sides: int | Sequence[object],
    deals: Iterable[Deal | Sequence[int]],
    *,
    rules: Ruleset = CLASSIC,
) -> SeriesState:
    """The state of a series after ``deals`` (each a ``Deal`` or its points), scored from the
    start; ``sides`` is 2, 3 or a sequence with one entry per side. Raises ``InvalidDeal``
    naming the first deal that cannot be added, or for sides or deals it cannot read."""
    series = Series(_side_count(sides), rules=rules)
    try:
        deals = iter(deals)
    except TypeError:
        raise InvalidDeal(_("Enter the card points of every side.")) from None
    add = series.add
    for deal in deals:
        add(deal)
    return series.state


def _side_count(sides: object) -> int:
    """The number of sides ``replay`` was given (a number or one entry per side), checked."""
    count: int | None
    if isinstance(sides, bool):
        count = None
    elif isinstance(sides, int):
        count = sides
    else:
        try:
            count = len(sides)  # type: ignore[arg-type]
        except (TypeError, OverflowError):
            count = None
    if count is None or not MIN_SIDES <= count <= MAX_SIDES:
        raise InvalidDeal(
            _("A series has two or three sides, not %(count)s."),
            {"count": shown(sides if count is None else count)},
        )
    return count


def _as_deal(raw: object, number: int) -> Deal:
    """A deal given as just its points, checked; a refusal names the deal."""
    try:
        return Deal(raw if isinstance(raw, (str, bytes)) else tuple(raw))  # type: ignore[arg-type]
    except InvalidDeal as error:
        raise error.in_deal(number) from None
    except (TypeError, OverflowError):
        raise InvalidDeal(_("Enter the card points of every side."), number=number) from None


_set = object.__setattr__
_new = object.__new__


def _new_outcome(
    number: int,
    deal: Deal,
    in_play: tuple[int, ...],
    defeat: tuple[int, ...],
    eggs: bool,
    multiplier: int,
    totals: tuple[int, ...],
    out: tuple[int, ...],
) -> DealOutcome:
    """``DealOutcome(...)`` without the dataclass ``__init__``'s overhead: once per deal, about
    5 % of the engine's speed (``make bench``)."""
    outcome = _new(DealOutcome)
    _set(outcome, "number", number)
    _set(outcome, "deal", deal)
    _set(outcome, "in_play", in_play)
    _set(outcome, "defeat", defeat)
    _set(outcome, "eggs", eggs)
    _set(outcome, "multiplier", multiplier)
    _set(outcome, "totals", totals)
    _set(outcome, "out", out)
    return outcome
