"""A player's record: series and deals played, won and lost, goats, eggs, partners and streaks.

SQL aggregates over the derived fields stored on each series and seat (the seats' deal tallies
too), never a replay, so the page costs the same whatever the player's history; over the series
the request may see, or the player's whole league for one of its members.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import connection
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
    Window,
)
from django.utils import timezone

from scoring import rules
from scoring.models import Player, Seat, Series

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


def month_results(seats: QuerySet[Seat], last: datetime) -> list[MonthResults]:
    """Per month, oldest first, the finished series among ``seats`` played, won and as the goat,
    for the ``CHART_MONTHS`` months up to the one of ``last``: a row a month from the database."""
    starts = chart_months(last)
    inside = (
        seats.filter(
            series__finished=True,
            series__created_at__gte=starts[0],
            series__created_at__lt=starts[-1],
        )
        .order_by()
        .annotate(created=F("series__created_at"))
        .values("created", "is_winner", "is_goat")
    )
    sql, params = inside.query.sql_with_params()
    # Written out rather than built with Case/When: composing 24 When()s costs the ORM more
    # than the database spends counting.
    slots = " ".join("WHEN created < %s THEN " + str(index) for index in range(len(starts) - 1))
    bounds = [connection.ops.adapt_datetimefield_value(start) for start in starts[1:]]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT slot, COUNT(*), SUM(CASE WHEN is_winner THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN is_goat THEN 1 ELSE 0 END) FROM (SELECT CASE {slots} END AS slot, "
            f"is_winner, is_goat FROM ({sql}) seats) slotted GROUP BY slot",
            [*bounds, *params],
        )
        found = {slot: counts for slot, *counts in cursor.fetchall()}
    zone = timezone.get_current_timezone()
    months = []
    for index, start in enumerate(starts[:-1]):
        played, won, goat = found.get(index, (0, 0, 0))
        months.append(MonthResults(start.astimezone(zone).date(), played, won, goat))
    return months


def finished_streaks(seats: QuerySet[Seat], goats: int) -> tuple[int, int]:
    """(current, best) runs of finished series without being the goat, counted by the database:
    each finished seat, oldest first, gets the number of goats up to it (a window sum), and the
    seats not the goat sharing a number form a run; those after the last goat are the current."""
    runs = (
        seats.filter(series__finished=True)
        .annotate(
            goats_so_far=Window(
                Sum(Case(When(is_goat=True, then=Value(1)), default=Value(0))),
                order_by=[F("series__created_at").asc(), F("series_id").asc()],
            )
        )
        .values("is_goat", "goats_so_far")
    )
    sql, params = runs.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(MAX(n), 0), COALESCE(MAX(CASE WHEN run = %s THEN n END), 0) FROM "
            f"(SELECT goats_so_far AS run, COUNT(*) AS n FROM ({sql}) seats "
            "WHERE NOT is_goat GROUP BY goats_so_far) runs",
            [goats, *params],
        )
        best, current = cursor.fetchone()
    return current, best


def player_record(player: Player, series: QuerySet[Series] | None) -> PlayerRecord:
    """Everything the player page shows about ``player`` in ``series`` (None: in their whole
    league, for its members), in four queries."""
    seats = _seats(player, series)
    totals = seats.aggregate(
        played=Count("pk"),
        finished=Count("pk", filter=Q(series__finished=True)),
        won=Count("pk", filter=Q(is_winner=True)),
        goats=Count("pk", filter=Q(is_goat=True)),
        goats_with_eggs=Count("pk", filter=Q(is_goat=True, series__eggs__gt=0)),
        last=Max("series__created_at", filter=Q(series__finished=True)),
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
        record.current_streak, record.best_streak = finished_streaks(seats, record.goats)
        record.months = month_results(seats, totals["last"])
    record.best_partner, record.toughest_opponent = _partners(seats)
    return record
