"""A player's record: series and deals played, won and lost, goats, eggs, partners and streaks.

SQL aggregates over the derived fields stored on each series and seat (the seats' deal tallies
too), never a replay, so the page costs the same queries whatever the player's history; the
streaks and the chart's months read one small row per finished series. Over the series the
request may see, or the player's whole league for one of its members.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    When,
)
from django.utils import timezone

from scoring import rules
from scoring.models import Player, Seat, Series, counted

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


#: ``rules.SideTally`` field -> the ``Seat`` field that stores it (a player's deal figures are
#: the sum of their seats' tallies).
TALLY_FIELDS = {
    "played": "deals_played",
    "won": "deals_won",
    "lost": "deals_lost",
    "naked": "deals_naked",
    "eggs": "deals_eggs",
    "narrow_saves": "narrow_saves",
}


@dataclass
class PlayerRecord:
    player: Player
    series_played: int = 0
    series_finished: int = 0
    series_won: int = 0
    goats: int = 0
    goats_with_eggs: int = 0
    deals: rules.SideTally = field(default_factory=rules.SideTally)
    best_partner: Partner | None = None
    toughest_opponent: Partner | None = None
    current_streak: int = 0  # finished series in a row without being the goat, up to now
    best_streak: int = 0
    months: list[MonthResults] = field(default_factory=list)

    @property
    def in_progress(self) -> int:
        return self.series_played - self.series_finished


def _seats(player: Player, series: QuerySet[Series] | None) -> QuerySet[Seat]:
    """The player's seats in ``series``, checked seat by seat, never by listing every series.
    ``None``: all of them, for a member of the player's league (whose players only ever sit in
    its series): a condition on the series would make the database walk the whole league."""
    if series is None:
        return Seat.objects.filter(player=player)
    return Seat.objects.filter(player=player).filter(
        Exists(series.filter(pk=OuterRef("series_id")))
    )


def _partners(seats: QuerySet[Seat]) -> tuple[Partner | None, Partner | None]:
    """The best partner (won with most often, then most series beside: one as soon as the player
    sat in a team) and the opponent lost to most often, from one query that counts, per other
    player, the series beside and against them."""
    other = "series__seats__"
    not_me = Q(series__seats__position__lt=F("position")) | Q(
        series__seats__position__gt=F("position")
    )
    beside = Q(series__seats__side=F("side"))
    rows = list(
        seats.filter(not_me)
        .values_list(f"{other}player_id", f"{other}player__name")
        .annotate(
            together=Count("pk", filter=beside),
            won=Count("pk", filter=beside & Q(is_winner=True)),
            against=Count("pk", filter=~beside),
            lost=Count("pk", filter=~beside & Q(is_goat=True, series__seats__is_goat=False)),
        )
        .order_by()
    )
    partners = [row for row in rows if row[2] > 0]
    opponents = [row for row in rows if row[5] > 0]
    best = min(partners, key=lambda row: (-row[3], -row[2], row[1], row[0]), default=None)
    toughest = min(opponents, key=lambda row: (-row[5], -row[4], row[1], row[0]), default=None)
    return (
        best and Partner(best[0], best[1], best[2], best[3]),
        toughest and Partner(toughest[0], toughest[1], toughest[4], toughest[5]),
    )


def chart_months(last: datetime, count: int = CHART_MONTHS) -> list[datetime]:
    """The starts of the ``count`` months up to the one holding ``last``, then of the month
    after: the chart's slots, in the current time zone, oldest first."""
    zone = timezone.get_current_timezone()
    local = last.astimezone(zone)
    final = local.year * 12 + local.month - 1
    return [
        timezone.make_aware(datetime(index // 12, index % 12 + 1, 1), zone)
        for index in range(final - count + 1, final + 2)
    ]


def finished_results(seats: QuerySet[Seat], last: datetime) -> tuple[list[MonthResults], int, int]:
    """The chart's months and the (current, best) runs of finished series without being the
    goat, from one row per finished seat, oldest first: its goat and winner flags, and its date
    only within the ``CHART_MONTHS`` months up to the one of ``last`` (the only dates the chart
    reads). The seats not the goat between two goats form a run; those after the last goat are
    the current one. Counted here rather than by the database: a run is a group of rows the
    ORM can only find with a window over a window, and its 24 month buckets as ``Case``/``When``
    cost more to build than this loop (docs/PERFORMANCE.md, "Taken out of SQL")."""
    starts = chart_months(last)
    rows = (
        seats.filter(counted("series__"))
        .order_by("series__created_at", "series_id")
        .values_list(
            Case(
                When(series__created_at__gte=starts[0], then=F("series__created_at")),
                output_field=DateTimeField(),
            ),
            "is_winner",
            "is_goat",
        )
    )
    bounds = [start.astimezone(UTC) for start in starts]  # as the rows' moments: compared fast
    counts = [[0, 0, 0] for _ in starts[:-1]]  # played, won, goat
    run = best = 0
    for created, won, goat in rows:
        run = 0 if goat else run + 1
        if run > best:
            best = run
        if created is not None:
            month = counts[bisect_right(bounds, created) - 1]
            month[0] += 1
            month[1] += won
            month[2] += goat
    zone = timezone.get_current_timezone()
    months = [
        MonthResults(start.astimezone(zone).date(), *month)
        for start, month in zip(starts, counts, strict=False)
    ]
    return months, run, best


def player_record(player: Player, series: QuerySet[Series] | None) -> PlayerRecord:
    """Everything the player page shows about ``player`` in ``series`` (None: in their whole
    league, for its members), in three queries."""
    seats = _seats(player, series)
    totals = seats.aggregate(
        # Played: in progress, or ended with its result counted (``models.counted``); a game
        # closed before its first deal was not played.
        played=Count("pk", filter=~Q(series__finished=True, series__deal_count=0)),
        finished=Count("pk", filter=counted("series__")),
        won=Count("pk", filter=Q(is_winner=True)),
        goats=Count("pk", filter=Q(is_goat=True)),
        goats_with_eggs=Count("pk", filter=Q(is_goat=True, series__eggs__gt=0)),
        last=Max("series__created_at", filter=counted("series__")),
        **{f"sum_{name}": Sum(field, default=0) for name, field in TALLY_FIELDS.items()},
    )
    record = PlayerRecord(
        player=player,
        series_played=totals["played"],
        series_finished=totals["finished"],
        series_won=totals["won"],
        goats=totals["goats"],
        goats_with_eggs=totals["goats_with_eggs"],
        deals=rules.SideTally(**{name: totals[f"sum_{name}"] for name in TALLY_FIELDS}),
    )
    if not record.series_played:
        return record
    if totals["last"] is not None:
        record.months, record.current_streak, record.best_streak = finished_results(
            seats, totals["last"]
        )
    record.best_partner, record.toughest_opponent = _partners(seats)
    return record
