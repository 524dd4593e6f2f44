"""A club night's leaderboard: per player, round by round, and the evening's awards.

Read from the stored derived fields of the night's series and seats (never restating a rule)
in a fixed number of queries, whatever else the league holds or the size of the evening; the
longest egg chain replays only the series in which eggs fell. A series counts once it has ended
with at least one deal, with its result (``Series.winner_side``, however it ended:
``table.life``): the same result the league's standings count. A round's results are
provisional while the round is open, final after it.

The order is fair to players who played fewer series (a late arrival, a round sat out): by the
share of series won, each player counted as if they had also played ``RATE_PRIOR`` series at
the evening's average (so one win of one is not ahead of five of six), then fewer goats a
series, then the evening's tie-break a series. Places are counted among the players present;
a player who left is listed after them, with what they played. A player present is listed from
the moment they arrive, before their first game.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import NamedTuple

from django.db.models import Count, Sum
from django.utils import timezone
from django.utils.translation import gettext

from scoring import rules
from scoring.lib.collation import name_sort_key, sorted_by_name
from scoring.models import Deal, Event, EventRound, EventTable, Player, Seat, Series
from scoring.table import life
from scoring.table.replays import replay_rows
from scoring.table.selectors import DEAL_FIELDS

#: An award is shown from this value on: one egg or one goat is any evening, two in a row or
#: two goats are a story.
AWARD_FROM = 2
#: The series at the evening's average that every player's share of series won is counted
#: with: the fewer series a player has played, the closer their share stays to the average.
RATE_PRIOR = 2


@dataclass
class Line:
    player_id: int
    name: str
    played: int = 0  # series ended with at least one deal: the ones that count
    won: int = 0
    goats: int = 0
    points_for: int = 0
    points_against: int = 0
    narrow_saves: int = 0
    place: int | None = None  # among the players present (None: left the evening)
    tie: int = 0  # what the evening's tie-break compares (``_tie_value``)
    present: bool = True
    rate: Fraction = Fraction(1, 2)  # the share of series won, as the order counts it

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against

    @property
    def score(self) -> int:
        """The share of series won that orders the board, in per cent."""
        return round(self.rate * 100)


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
    finished: bool  # it has its result (``life``: its goat, or closed before it)
    winner: int | None  # its result's winner (None: still played, or a tie)
    deal_count: int
    state: life.Phase = life.Phase.WAITING
    deal_limit: int | None = None
    provisional: bool = False  # ended while its round is still open

    @property
    def cut_short(self) -> bool:
        """The organiser finished the round before this table reached its limit or its goat."""
        return self.state is life.Phase.CUT_SHORT

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
        """The side that would win it were it closed now: the fewest defeat points (None: level),
        as ``rules.standing_winner`` says."""
        return rules.standing_winner([total for _names, total in self.sides])

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
    def cut_short(self) -> bool:
        """Whether the organiser's finish cut any of its tables short."""
        return any(t.cut_short for t in self.tables)

    @property
    def provisional(self) -> bool:
        """Whether the round is open while some of its tables have their result: provisional."""
        return not self.finished and any(t.finished for t in self.tables)

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
    final: bool = False  # every round of the evening has been played and finished
    prior: int = RATE_PRIOR  # the series at the evening's average the order counts (its words)

    @property
    def present_count(self) -> int:
        """How many players the places are counted among: those present."""
        return sum(1 for line in self.lines if line.present)

    @property
    def provisional(self) -> bool:
        """Whether some results stand while their round is still open."""
        return any(played.provisional for played in self.rounds)

    @property
    def winners(self) -> list[str]:
        """Who leads the evening (who won it, once ``final``): the first place, shared or not;
        nobody before a series has been won."""
        return [line.name for line in self.lines if line.place == 1 and line.won]


def _order(line: Line, tie_break: str) -> tuple[Fraction, Fraction, Fraction]:
    """What the board is ordered by, best first: the share of series won (``line.rate``), then
    fewer goats a series, then the evening's tie-break a series."""
    played = line.played or 1
    tie = Fraction(line.tie, played)
    return (
        -line.rate,
        Fraction(line.goats, played),
        tie if tie_break == Event.TieBreak.AGAINST else -tie,
    )


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
    ending: str
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
            "series__ending",
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
        winner = series.winner_side if series.finished else None
        everyone = sum(totals)
        sides: dict[int, list[str]] = defaultdict(list)
        eggs = 0
        for seat in seats[series.series_id]:
            names[seat.player_id] = seat.name
            sides[seat.side].append(seat.name)
            line = lines.get(seat.player_id)
            if line is None:
                line = lines[seat.player_id] = Line(seat.player_id, seat.name)
            line.narrow_saves += seat.narrow_saves
            if series.deal_count and series.finished:  # it counts once it has ended
                line.played += 1
                own = totals[seat.side] if seat.side < len(totals) else 0
                line.points_against += own
                line.points_for += everyone - own
            if winner is not None and seat.side == winner:
                line.won += 1
            if seat.is_goat:
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
                winner=winner,
                deal_count=series.deal_count,
                state=life.phase_of(series, now=now),
                deal_limit=series.deal_limit,
                provisional=life.provisional(series, round_open=not round_over),
            )
        )
    present = set(event.present)
    missing = {p for r in rounds.values() for p in r.out_ids if p not in names}
    missing |= {p for p in present if p not in names}  # a late arrival, before their first game
    if missing:
        names.update(Player.objects.filter(pk__in=missing).values_list("pk", "name"))
    for result in rounds.values():
        result.out = sorted_by_name([names.get(p, "") for p in result.out_ids], str)
        for player_id in result.out_ids:  # on the board from the start, sitting out or not
            if player_id in names:
                lines.setdefault(player_id, Line(player_id, names[player_id]))
    for player_id in present:
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
    won = sum(line.won for line in lines.values())
    counted = sum(line.played for line in lines.values())
    mean = Fraction(won, counted) if counted else Fraction(1, 2)
    for line in lines.values():
        line.tie = _tie_value(line, event.tie_break)
        line.rate = (line.won + RATE_PRIOR * mean) / (line.played + RATE_PRIOR)
        line.present = line.player_id in present
    ordered = sorted(
        lines.values(),
        key=lambda ln: (not ln.present, _order(ln, event.tie_break), name_sort_key(ln.name)),
    )
    previous = None
    for index, line in enumerate(ln for ln in ordered if ln.present):
        key = _order(line, event.tie_break)
        line.place = previous[1] if previous and previous[0] == key else index + 1
        previous = (key, line.place)
    played_rounds = [rounds[n] for n in sorted(rounds)]
    last = min(event.rounds, len(event.plan))
    return Board(
        lines=ordered,
        rounds=played_rounds,
        final=len(played_rounds) >= last and all(r.finished for r in played_rounds),
        most_goats=award({ln.name: ln.goats for ln in ordered}, among=len(ordered)),
        longest_eggs=award(chains),
        narrowest_saves=award({ln.name: ln.narrow_saves for ln in ordered}, among=len(ordered)),
    )
