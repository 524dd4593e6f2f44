"""A club night's leaderboard: per player, round by round, and the evening's awards.

Read from the stored derived fields of the night's series and seats (never restating a rule)
in a fixed number of queries, whatever else the league holds or the size of the evening; the
longest egg chain replays only the series in which eggs fell. A series counts as played once
it has a deal; a table the round cut short is won by its standing defeat points, read from the
series' totals (so that an organiser's correction after the round counts).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext

from scoring.collation import name_sort_key, sorted_by_name
from scoring.events.services import standing_winner
from scoring.events.tables import TableState, state_of
from scoring.models import Deal, Event, EventRound, EventTable, Player, Seat, Series
from scoring.table.replays import replay_rows
from scoring.table.selectors import DEAL_FIELDS

#: An award is shown from this value on: one egg or one goat is any evening, two in a row or
#: two goats are a story.
AWARD_FROM = 2


@dataclass
class Line:
    player_id: int
    name: str
    played: int = 0
    won: int = 0
    goats: int = 0
    points_for: int = 0
    points_against: int = 0
    narrow_saves: int = 0
    place: int = 0
    tie: int = 0  # what the evening's tie-break compares (``_tie_value``)

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against


class NamedSide(NamedTuple):
    names: str
    total: int
    won: bool

    @property
    def css(self) -> str:
        """The class that marks the winning side on the boards."""
        return "winner" if self.won else ""


@dataclass
class TableResult:
    number: int
    sides: list[tuple[list[str], int]]  # names of a side, its defeat points
    series_id: int
    finished: bool
    adjudicated: bool
    winner: int | None
    deal_count: int
    state: TableState = TableState.WAITING
    deal_limit: int | None = None

    @property
    def label(self) -> str:
        """The table's name, "Table 3", in the reader's language."""
        return gettext("Table %(number)s") % {"number": self.number}

    @property
    def named_sides(self) -> list[NamedSide]:
        """Each side's names joined ("Anna & Vera"), its defeat points, whether it won."""
        return [
            NamedSide(" & ".join(names), total, side == self.winner)
            for side, (names, total) in enumerate(self.sides)
        ]

    @property
    def score(self) -> str:
        """The sides' defeat points, "6 : 2"."""
        return " : ".join(str(total) for _names, total in self.sides)

    @property
    def standing(self) -> int | None:
        """The side that would win it on its standing defeat points now (None: level)."""
        return standing_winner([total for _names, total in self.sides])

    @property
    def standing_names(self) -> str:
        """The names of the side ``standing`` says, "Anna & Vera" (empty: level)."""
        side = self.standing
        return "" if side is None else " & ".join(self.sides[side][0])


@dataclass
class RoundResult:
    number: int
    finished: bool
    tables: list[TableResult] = field(default_factory=list)
    out: list[str] = field(default_factory=list)
    out_ids: list[int] = field(default_factory=list)

    @property
    def adjudicated(self) -> bool:
        return any(t.adjudicated for t in self.tables)

    @property
    def playing(self) -> list[TableResult]:
        """Its tables that still play (a finish now would cut them short)."""
        return [t for t in self.tables if t.state.playing]


@dataclass
class Award:
    names: list[str]
    value: int


@dataclass
class Board:
    lines: list[Line]
    rounds: list[RoundResult]
    most_goats: Award | None
    longest_eggs: Award | None
    narrowest_saves: Award | None


def _tie_value(line: Line, tie_break: str) -> int:
    """What the tie-break compares, as the board shows it (points against: fewer is better)."""
    if tie_break == Event.TieBreak.AGAINST:
        return line.points_against
    if tie_break == Event.TieBreak.FOR:
        return line.points_for
    return line.difference


def _egg_chain(rows: list[Deal], series: Series) -> int:
    longest = run = 0
    for outcome in replay_rows(series, rows).deals:
        run = run + 1 if outcome.eggs else 0
        longest = max(longest, run)
    return longest


def award(values: dict[str, int], *, among: int | None = None) -> Award | None:
    """Who holds the best value, when it means something: at least ``AWARD_FROM``, and (for an
    award of players, ``among`` of them) not shared by more than half of them."""
    best = max(values.values(), default=0)
    if best < AWARD_FROM:
        return None
    best_names = [n for n, v in values.items() if v == best]
    if among is not None and len(best_names) * 2 > among:
        return None
    return Award(names=sorted_by_name(best_names, str), value=best)


def version(event: Event) -> str:
    """What changes whenever the board would: the event's version (rounds, re-seating) and its
    series' (a deal anywhere, a correction after its round): one query."""
    found = Series.objects.filter(event_table__round__event=event).aggregate(
        count=Count("pk"), total=Sum("version")
    )
    return f"{event.version}.{found['count']}.{found['total'] or 0}"


class _Game(NamedTuple):
    """A table of a round as the board reads it: one row of one query (a 40-player evening of
    six rounds has 60; model instances of them cost more than the rest of the board)."""

    number: int
    round_id: int
    series_id: int
    totals: list[int]
    finished: bool
    winner_side: int | None
    deal_count: int
    deal_limit: int | None
    closes_at: datetime | None
    closed_at: datetime | None


def _games(event: Event) -> list[_Game]:
    rows = (
        EventTable.objects.filter(round__event=event)
        .order_by("round__number", "number")
        .values_list(
            "number",
            "round_id",
            "series_id",
            "series__totals",
            "series__finished",
            "series__winner_side",
            "series__deal_count",
            "series__deal_limit",
            "series__closes_at",
            "series__closed_at",
        )
    )
    return [_Game(*row) for row in rows]


class _Seat(NamedTuple):
    player_id: int
    name: str
    side: int
    narrow_saves: int
    is_goat: bool
    deals_eggs: int


def _seats(event: Event) -> dict[int, list[_Seat]]:
    """Every seat of the evening's series with its player's name, by series, in seat order."""
    found: dict[int, list[_Seat]] = defaultdict(list)
    rows = (
        Seat.objects.filter(series__event_table__round__event=event)
        .order_by("series_id", "position")
        .values_list(
            "series_id",
            "player_id",
            "player__name",
            "side",
            "narrow_saves",
            "is_goat",
            "deals_eggs",
        )
    )
    for series_id, player_id, name, side, saves, goat, eggs in rows:
        found[series_id].append(_Seat(player_id, name, side, saves, goat, eggs))
    return found


def build(event: Event) -> Board:
    """The leaderboard of ``event``: at most six queries, however many events the league holds
    and however many players and rounds it has."""
    games = _games(event)
    rounds_played = EventRound.objects.filter(event=event).only("number", "finished_at", "out")
    played = {r.pk: r for r in rounds_played}
    seats = _seats(event)
    lines: dict[int, Line] = {}
    rounds: dict[int, RoundResult] = {}
    names: dict[int, str] = {}
    with_eggs: list[_Game] = []
    now = timezone.now()
    for series in games:
        played_in = played[series.round_id]
        totals = list(series.totals)
        round_over = played_in.finished_at is not None
        cut_short = round_over and not series.finished
        winner = standing_winner(totals) if cut_short else series.winner_side
        decided = winner if series.finished or cut_short else None
        everyone = sum(totals)
        sides: dict[int, list[str]] = defaultdict(list)
        eggs = 0
        for seat in seats[series.series_id]:
            names[seat.player_id] = seat.name
            sides[seat.side].append(seat.name)
            line = lines.get(seat.player_id)
            if line is None:
                line = lines[seat.player_id] = Line(seat.player_id, seat.name)
            if series.deal_count:
                line.played += 1
            own = totals[seat.side] if seat.side < len(totals) else 0
            line.points_against += own
            line.points_for += everyone - own
            line.narrow_saves += seat.narrow_saves
            if seat.side == decided:
                line.won += 1
            if series.finished and seat.is_goat:
                line.goats += 1
            eggs = max(eggs, seat.deals_eggs)
        if eggs >= AWARD_FROM:  # fewer eggs make no chain worth an award: no replay
            with_eggs.append(series)
        result = rounds.setdefault(
            played_in.number, RoundResult(number=played_in.number, finished=round_over)
        )
        result.out_ids = list(played_in.out)
        result.tables.append(
            TableResult(
                number=series.number,
                sides=[(sides[s], totals[s] if s < len(totals) else 0) for s in sorted(sides)],
                series_id=series.series_id,
                finished=series.finished,
                adjudicated=cut_short,
                winner=decided,
                deal_count=series.deal_count,
                state=state_of(series, round_over=round_over, now=now),
                deal_limit=series.deal_limit,
            )
        )
    missing = {p for r in rounds.values() for p in r.out_ids if p not in names}
    if missing:
        names.update(Player.objects.filter(pk__in=missing).values_list("pk", "name"))
    for result in rounds.values():
        result.out = sorted_by_name([names.get(p, "") for p in result.out_ids], str)
        for player_id in result.out_ids:  # on the board from the start, sitting out or not
            if player_id in names:
                lines.setdefault(player_id, Line(player_id, names[player_id]))
    chains: dict[str, int] = {}
    if with_eggs:
        ids = [game.series_id for game in with_eggs]
        rows: dict[int, list[Deal]] = defaultdict(list)
        deals = Deal.objects.filter(series__in=ids).only("series_id", *DEAL_FIELDS)
        for deal in deals.order_by("series_id", "number"):
            rows[deal.series_id].append(deal)
        for replayed in Series.objects.filter(pk__in=ids).only("mode", "rules"):
            chain = _egg_chain(rows[replayed.pk], replayed)
            label = " · ".join(seat.name for seat in seats[replayed.pk])
            chains[label] = max(chains.get(label, 0), chain)
    fewer = event.tie_break == Event.TieBreak.AGAINST
    for line in lines.values():
        line.tie = _tie_value(line, event.tie_break)
    ordered = sorted(
        lines.values(),
        key=lambda ln: (-ln.won, ln.goats, ln.tie if fewer else -ln.tie, name_sort_key(ln.name)),
    )
    previous = None
    for index, line in enumerate(ordered, start=1):
        key = (line.won, line.goats, line.tie)
        line.place = previous[1] if previous and previous[0] == key else index
        previous = (key, line.place)
    return Board(
        lines=ordered,
        rounds=[rounds[n] for n in sorted(rounds)],
        most_goats=award({ln.name: ln.goats for ln in ordered}, among=len(ordered)),
        longest_eggs=award(chains),
        narrowest_saves=award({ln.name: ln.narrow_saves for ln in ordered}, among=len(ordered)),
    )
