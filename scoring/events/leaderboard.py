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

from django.db.models import Count, Prefetch, Sum
from django.utils import timezone

from scoring.collation import name_sort_key, sorted_by_name
from scoring.events.services import standing_winner
from scoring.events.tables import TableState, state_of
from scoring.models import Deal, Event, EventTable, Player, Seat, Series
from scoring.table.replays import replay_rows

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

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against


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
    if tie_break == Event.TieBreak.AGAINST:
        return -line.points_against
    if tie_break == Event.TieBreak.FOR:
        return line.points_for
    return line.difference


def _egg_chain(rows: list[Deal], table: EventTable) -> int:
    longest = run = 0
    for outcome in replay_rows(table.series, rows).deals:
        run = run + 1 if outcome.eggs else 0
        longest = max(longest, run)
    return longest


def _award(values: dict[str, int], *, among: int | None = None) -> Award | None:
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


def build(event: Event) -> Board:
    """The leaderboard of ``event``: at most five queries, however many events the league holds
    and however many players and rounds it has."""
    seats = Seat.objects.select_related("player").order_by("position")
    tables = list(
        EventTable.objects.filter(round__event=event)
        .select_related("round", "series")
        .prefetch_related(Prefetch("series__seats", queryset=seats))
        .order_by("round__number", "number")
    )
    lines: dict[int, Line] = {}
    rounds: dict[int, RoundResult] = {}
    names: dict[int, str] = {}
    with_eggs: list[EventTable] = []
    now = timezone.now()
    for table in tables:
        series = table.series
        totals = list(series.totals)
        round_over = table.round.finished_at is not None
        cut_short = round_over and not series.finished
        winner = standing_winner(totals) if cut_short else series.winner_side
        sides: dict[int, list[str]] = defaultdict(list)
        laid_eggs = False
        for seat in series.seats.all():
            names[seat.player_id] = seat.player.name
            sides[seat.side].append(seat.player.name)
            line = lines.setdefault(seat.player_id, Line(seat.player_id, seat.player.name))
            if series.deal_count:
                line.played += 1
            own = totals[seat.side] if seat.side < len(totals) else 0
            line.points_against += own
            line.points_for += sum(totals) - own
            line.narrow_saves += seat.narrow_saves
            if winner is not None and seat.side == winner and (series.finished or cut_short):
                line.won += 1
            if series.finished and seat.is_goat:
                line.goats += 1
            laid_eggs = laid_eggs or seat.deals_eggs > 0
        if laid_eggs:
            with_eggs.append(table)
        result = rounds.setdefault(
            table.round.number,
            RoundResult(number=table.round.number, finished=table.round.finished_at is not None),
        )
        result.out_ids = list(table.round.out)
        result.tables.append(
            TableResult(
                number=table.number,
                sides=[(sides[s], totals[s] if s < len(totals) else 0) for s in sorted(sides)],
                series_id=series.pk,
                finished=series.finished,
                adjudicated=cut_short,
                winner=winner if (series.finished or cut_short) else None,
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
        rows: dict[int, list[Deal]] = defaultdict(list)
        for deal in Deal.objects.filter(series__in=[t.series for t in with_eggs]).order_by(
            "series_id", "number"
        ):
            rows[deal.series_id].append(deal)
        for table in with_eggs:
            chain = _egg_chain(rows[table.series_id], table)
            label = " · ".join(s.player.name for s in table.series.seats.all())
            chains[label] = max(chains.get(label, 0), chain)
    ordered = sorted(
        lines.values(),
        key=lambda ln: (
            -ln.won,
            ln.goats,
            -_tie_value(ln, event.tie_break),
            name_sort_key(ln.name),
        ),
    )
    previous = None
    for index, line in enumerate(ordered, start=1):
        key = (line.won, line.goats, _tie_value(line, event.tie_break))
        line.place = previous[1] if previous and previous[0] == key else index
        previous = (key, line.place)
    return Board(
        lines=ordered,
        rounds=[rounds[n] for n in sorted(rounds)],
        most_goats=_award({ln.name: ln.goats for ln in ordered}, among=len(ordered)),
        longest_eggs=_award(chains),
        narrowest_saves=_award({ln.name: ln.narrow_saves for ln in ordered}, among=len(ordered)),
    )
