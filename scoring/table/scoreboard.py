"""What the scoreboard shows, built from a series, its deal rows and the engine's replay.

Only presentation lives here (names, words, bar widths); every number comes from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring import rules
from scoring.models import Deal, Ending, Seat, Series
from scoring.rules.table import dealer_seat, first_leader_seat
from scoring.table.replays import replay_rows


@dataclass(frozen=True)
class SideView:
    index: int
    name: str  # "Anna & Boris" for a team
    total: int
    to_target: int
    bar: int  # the total, at most the target: the way to the goat
    out: bool
    goat: bool
    winner: bool


@dataclass(frozen=True)
class DealRow:
    number: int
    cells: list[dict]  # per original side: points, defeat, total, naked (charged the 6)
    eggs: bool
    multiplier: int
    row: Deal
    outcome: rules.DealOutcome = field(repr=False)
    names: list[str] = field(repr=False)

    @cached_property
    def summary(self) -> str:
        """The deal in words (a board shows its last deal's; a sheet every deal's)."""
        return summary(self.outcome, self.names)


@dataclass(frozen=True)
class Scoreboard:
    """A series as the board shows it. Its deals' rows are made when first asked for: deciding
    on a deal form needs the sides and the next number, not a row per deal."""

    series: Series
    state: rules.SeriesState
    seats: list[Seat]
    sides: list[SideView]
    in_play: list[SideView]
    rows: Sequence[Deal] = field(repr=False)
    names: list[str]  # each side's
    dealer: str | None
    leader: str | None
    next_number: int
    goats: str
    winner: str

    @cached_property
    def deals(self) -> list[DealRow]:
        return [
            self._row(outcome, row)
            for outcome, row in zip(self.state.deals, self.rows, strict=True)
        ]

    @cached_property
    def last(self) -> DealRow | None:
        """The newest deal's row (the board says it in words), without the others'."""
        if not self.rows:
            return None
        if "deals" in self.__dict__:
            return self.deals[-1]
        return self._row(self.state.deals[-1], self.rows[-1])

    def _row(self, outcome: rules.DealOutcome, row: Deal) -> DealRow:
        naked = outcome.naked
        cells = [
            {
                "points": outcome.points_of(side),
                "defeat": outcome.defeat[side],
                "total": outcome.totals[side],
                "naked": side in naked,
            }
            for side in range(len(self.sides))
        ]
        return DealRow(
            number=outcome.number,
            cells=cells,
            eggs=outcome.eggs,
            multiplier=outcome.multiplier,
            row=row,
            outcome=outcome,
            names=self.names,
        )

    @property
    def sides_count(self) -> int:
        return len(self.sides)

    @property
    def deal_limit(self) -> int | None:
        """The most deals the series takes (a club night's round of N deals), if it has one."""
        return self.series.deal_limit


def side_names(seats: list[Seat], sides: int) -> list[str]:
    """Each side's name: its player, or both partners for a team."""
    return [
        " & ".join(seat.player.name for seat in seats if seat.side == side) for side in range(sides)
    ]


def summary(outcome: rules.DealOutcome, names: list[str]) -> str:
    """One deal's result in words: eggs, who lost how much (naked, ×eggs), who is out."""
    parts = []
    if outcome.eggs:
        parts.append(_("Eggs! 60:60."))
    naked = set(outcome.naked)
    two_sides = len(outcome.in_play) == 2  # one loser; with three, a shared top scores too
    for side in outcome.losers:
        values = {"side": names[side], "points": outcome.defeat[side]}
        if outcome.eggs:
            parts.append(_("%(side)s: +%(points)s.") % values)
        elif two_sides and side in naked:
            parts.append(_("%(side)s lost naked: +%(points)s.") % values)
        elif two_sides:
            parts.append(_("%(side)s lost: +%(points)s.") % values)
        elif side in naked:
            parts.append(_("%(side)s: +%(points)s (naked).") % values)
        else:
            parts.append(_("%(side)s: +%(points)s.") % values)
    if outcome.multiplier > 1 and outcome.losers:
        parts.append(_("(×%(multiplier)s for the eggs.)") % {"multiplier": outcome.multiplier})
    # With two sides, whoever is out is the goat and the game is over: the end screen says so
    # (a team is not "out"); with three players, being out leaves the other two playing on.
    for side in outcome.out if len(names) > 2 else ():
        parts.append(_("%(side)s: out!") % {"side": names[side]})
    if not outcome.losers and not outcome.eggs:
        parts.append(_("Nobody scores."))
    return " ".join(parts)


def page_title(board: Scoreboard) -> str:
    """The sides and their defeat points, for the page's title (a tab, a home-screen switcher)."""
    return " : ".join(f"{side.name} {side.total}" for side in board.sides)


def joined(names: list[str]) -> str:
    return _(" and ").join(names)


def build(
    series: Series, rows: Sequence[Deal], state: rules.SeriesState | None = None
) -> Scoreboard:
    """The scoreboard of a series whose seats (with players) are prefetched; ``state``: the
    engine's state after ``rows`` when the caller has it (else they are replayed)."""
    seats = sorted(series.seats.all(), key=lambda seat: seat.position)
    state = state if state is not None else replay_rows(series, rows)
    shape = series.shape
    names = side_names(seats, shape.sides)
    target = state.rules.target
    won = rules.result_winner(state, closed=Ending(series.ending).closed)
    sides = [
        SideView(
            index=side,
            name=names[side],
            total=state.totals[side],
            to_target=state.to_target[side],
            bar=min(state.totals[side], target),
            out=side in state.out,
            goat=side in state.goats,
            winner=won == side,
        )
        for side in range(shape.sides)
    ]
    seat_names = [seat.player.name for seat in seats]
    dealer = leader = None
    if not state.finished:
        dealer_at = dealer_seat(series.first_dealer, shape.seat_sides, state)
        dealer = seat_names[dealer_at]
        leader_at = first_leader_seat(dealer_at, shape.seat_sides, state)
        leader = seat_names[leader_at] if leader_at is not None else None
    return Scoreboard(
        series=series,
        state=state,
        seats=seats,
        sides=sides,
        in_play=[sides[side] for side in state.in_play],
        rows=rows,
        names=names,
        dealer=dealer,
        leader=leader,
        next_number=len(rows) + 1,
        goats=joined([names[side] for side in state.goats]),
        winner=names[won] if won is not None else "",
    )


def goat_title(board: Scoreboard) -> str:
    """The end screen's headline."""
    count = len(board.state.goats)
    if board.state.goats_with_eggs:
        return ngettext("%(goats)s: goat with eggs!", "%(goats)s: goats with eggs!", count) % {
            "goats": board.goats
        }
    return ngettext("%(goats)s: the goat!", "%(goats)s: the goats!", count) % {"goats": board.goats}


def score_line(board: Scoreboard) -> str:
    """The final score in one line: "Anna & Vera 12 : 4 Boris & Gleb" (three: "Anna 12 · …")."""
    if board.sides_count == 2:
        first, second = board.sides
        return f"{first.name} {first.total} : {second.total} {second.name}"
    return " · ".join(f"{side.name} {side.total}" for side in board.sides)


def goat_tally_line(board: Scoreboard, goats: list[int]) -> str:
    """How often each side of this line-up was the goat: "Anna & Vera 2 : 1 Boris & Gleb"."""
    if board.sides_count == 2:
        first, second = board.sides
        return f"{first.name} {goats[0]} : {goats[1]} {second.name}"
    return " · ".join(f"{side.name} {goats[side.index]}" for side in board.sides)


def undone_summary(board: Scoreboard, points: list[int | None]) -> str:
    """What an undo removed, in card points per side: "Anna & Vera 70, Boris & Gleb 50"."""
    return ", ".join(
        f"{side.name} {points[side.index]}"
        for side in board.sides
        if side.index < len(points) and points[side.index] is not None
    )
