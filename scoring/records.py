"""A player's record: series and deals played, won and lost, goats, eggs, partners and streaks.

Series-level figures come from the derived fields ``services.series_refresh`` stores (who was
the goat, who won, whether eggs fell) with SQL aggregates. Deal-level figures need each deal's
defeat points, which are not stored: the player's deals are loaded in one query and streamed
through the engine, series by series. That part's cost follows the number of deals the player
has played (the query count does not), which the benchmark ``history_pages.py`` measures.

Every figure counts only the series in the base queryset given (what the request may see).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import TruncMonth

from scoring import rules
from scoring.models import Deal, Player, Seat, Series
from scoring.modes import SHAPES
from scoring.replays import engine_deal
from scoring.rules.scoring import NAKED, SAVED

#: How many months the results chart shows at most (the most recent ones).
CHART_MONTHS = 24


@dataclass(frozen=True)
class Partner:
    player_id: int
    name: str
    series: int  # played together (or against)
    count: int  # won together (or lost against)


@dataclass(frozen=True)
class MonthResults:
    month: date
    played: int
    won: int
    goat: int


@dataclass
class DealTally:
    """Deal-level figures, added up from the engine's outcome of every deal."""

    played: int = 0
    won: int = 0
    lost: int = 0
    naked: int = 0
    eggs: int = 0
    narrow_saves: int = 0

    def add(self, outcome: rules.DealOutcome, side: int, ruleset: rules.Ruleset) -> None:
        """Count one deal of a series for ``side`` (a side that is out did not play it)."""
        in_play = outcome.in_play
        if side not in in_play:
            return
        self.played += 1
        if outcome.eggs:
            self.eggs += 1
        defeat = outcome.defeat[side]
        if not defeat:
            if not outcome.eggs:
                self.won += 1
            return
        self.lost += 1
        if defeat == NAKED * outcome.multiplier:
            self.naked += 1
        elif defeat == SAVED * outcome.multiplier and not outcome.eggs:
            line = ruleset.save_line if len(in_play) == 2 else ruleset.save_line_three
            if outcome.points_of(side) == line:
                self.narrow_saves += 1


@dataclass
class PlayerRecord:
    player: Player
    series_played: int = 0
    series_finished: int = 0
    series_won: int = 0
    goats: int = 0
    goats_with_eggs: int = 0
    deals: DealTally = field(default_factory=DealTally)
    best_partner: Partner | None = None
    toughest_opponent: Partner | None = None
    current_streak: int = 0  # finished series in a row without being the goat, up to now
    best_streak: int = 0
    months: list[MonthResults] = field(default_factory=list)

    @property
    def in_progress(self) -> int:
        return self.series_played - self.series_finished


def _seats(player: Player, series: QuerySet[Series]) -> QuerySet[Seat]:
    """The player's seats in ``series``: checked seat by seat, never by listing every series."""
    return Seat.objects.filter(player=player).filter(
        Exists(series.filter(pk=OuterRef("series_id")))
    )


def streaks(goat_flags: Iterable[bool]) -> tuple[int, int]:
    """(current, best) runs of finished series without being the goat, oldest first in."""
    current = best = 0
    for was_goat in goat_flags:
        current = 0 if was_goat else current + 1
        best = max(best, current)
    return current, best


def _partners(player: Player, seats: QuerySet[Seat]) -> tuple[Partner | None, Partner | None]:
    """The partner won with most often, and the opponent lost to most often (by series)."""
    mine = Seat.objects.filter(series=OuterRef("series"), player=player)
    others = (
        Seat.objects.filter(series__in=seats.values("series"))
        .exclude(player=player)
        .annotate(my_side=Subquery(mine.values("side")[:1]))
        .annotate(my_goat=Subquery(mine.values("is_goat")[:1]))
    )
    partner = (
        others.filter(side=F("my_side"))
        .values("player_id", "player__name")
        .annotate(together=Count("pk"), won=Count("pk", filter=Q(is_winner=True)))
        .filter(won__gt=0)
        .order_by("-won", "-together", "player__name", "player_id")
        .first()
    )
    opponent = (
        others.filter(~Q(side=F("my_side")))
        .values("player_id", "player__name")
        .annotate(against=Count("pk"), lost=Count("pk", filter=Q(my_goat=True, is_goat=False)))
        .filter(lost__gt=0)
        .order_by("-lost", "-against", "player__name", "player_id")
        .first()
    )
    best = partner and Partner(
        partner["player_id"], partner["player__name"], partner["together"], partner["won"]
    )
    toughest = opponent and Partner(
        opponent["player_id"], opponent["player__name"], opponent["against"], opponent["lost"]
    )
    return best, toughest


class _Row:
    """A deal row as ``replays.engine_deal`` reads it, from a plain tuple."""

    __slots__ = ("points", "tricks")

    def __init__(self, points: tuple, tricks: tuple) -> None:
        self.points = points
        self.tricks = tricks


def _deal_rows(seats: QuerySet[Seat]) -> Iterator[tuple[int, _Row]]:
    """The deal rows of the seats' series in order, as plain tuples, in one query.

    Read through the cursor without the ORM's per-value converters: the engine takes tricks
    as anything truthy, and this loop runs once per deal of the player's whole history.
    """
    rows = (
        Deal.objects.filter(series_id__in=seats.values("series_id"))
        .order_by("series_id", "number")
        .values_list(
            "series_id", "points_0", "points_1", "points_2", "tricks_0", "tricks_1", "tricks_2"
        )
    )
    sql, params = rows.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while batch := cursor.fetchmany(5000):
            for series_id, p0, p1, p2, t0, t1, t2 in batch:
                yield series_id, _Row((p0, p1, p2), (t0, t1, t2))


def deal_tally(seats: QuerySet[Seat]) -> DealTally:
    """Deal-level figures of the player in ``seats``' series: two queries, one replay each."""
    plays = {
        series_id: (side, mode, ruleset)
        for series_id, side, mode, ruleset in seats.values_list(
            "series_id", "side", "series__mode", "series__rules"
        )
    }
    tally = DealTally()
    current_id = None
    running = side = ruleset = None
    for series_id, row in _deal_rows(seats):
        if series_id != current_id:
            current_id = series_id
            side, mode, stored_rules = plays[series_id]
            ruleset = rules.Ruleset.from_dict(stored_rules)
            running = rules.Series(SHAPES[mode].sides, rules=ruleset)
        if running is None:
            continue
        try:
            outcome = running.add(engine_deal(row, running.in_play))
        except rules.InvalidDeal:
            running = None  # rows no service would write: the rest of this series is not counted
            continue
        tally.add(outcome, side, ruleset)
    return tally


def player_record(player: Player, series: QuerySet[Series]) -> PlayerRecord:
    """Everything the player page shows about ``player`` in ``series``, in seven queries."""
    seats = _seats(player, series)
    totals = seats.aggregate(
        played=Count("pk"),
        finished=Count("pk", filter=Q(series__finished=True)),
        won=Count("pk", filter=Q(is_winner=True)),
        goats=Count("pk", filter=Q(is_goat=True)),
        goats_with_eggs=Count("pk", filter=Q(is_goat=True, series__eggs__gt=0)),
    )
    record = PlayerRecord(
        player=player,
        series_played=totals["played"],
        series_finished=totals["finished"],
        series_won=totals["won"],
        goats=totals["goats"],
        goats_with_eggs=totals["goats_with_eggs"],
    )
    if not record.series_played:
        return record
    flags = (
        seats.filter(series__finished=True)
        .order_by("series__created_at", "series_id")
        .values_list("is_goat", flat=True)
    )
    record.current_streak, record.best_streak = streaks(flags)
    record.best_partner, record.toughest_opponent = _partners(player, seats)
    months = (
        seats.filter(series__finished=True)
        .annotate(month=TruncMonth("series__created_at"))
        .values("month")
        .annotate(
            played=Count("pk"),
            won=Count("pk", filter=Q(is_winner=True)),
            goat=Count("pk", filter=Q(is_goat=True)),
        )
        .order_by("-month")[:CHART_MONTHS]
    )
    record.months = [
        MonthResults(_as_date(item["month"]), item["played"], item["won"], item["goat"])
        for item in reversed(list(months))
    ]
    record.deals = deal_tally(seats)
    return record


def _as_date(value) -> date:
    return value.date() if hasattr(value, "date") else value
