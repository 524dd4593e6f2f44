"""A player's record: series and deals played, won and lost, goats, eggs, partners and streaks.

Everything comes from the derived fields ``services.series_refresh`` stores, with SQL
aggregates: who was the goat, who won and whether eggs fell on each series, and each seat's deal
figures (``rules.side_tallies``: deals played, won, lost, naked, eggs, narrow saves). Nothing is
replayed on the way, so the page costs the same whatever the player's history.

Every figure counts only the series in the base queryset given (what the request may see).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncMonth

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


@dataclass(frozen=True)
class DealTally:
    """Deal-level figures, the sum of the seats' stored ``rules.side_tallies``."""

    played: int = 0
    won: int = 0
    lost: int = 0
    naked: int = 0
    eggs: int = 0
    narrow_saves: int = 0


#: ``DealTally`` field -> the ``Seat`` field it adds up.
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


def player_record(player: Player, series: QuerySet[Series]) -> PlayerRecord:
    """Everything the player page shows about ``player`` in ``series``, in five queries."""
    seats = _seats(player, series)
    totals = seats.aggregate(
        played=Count("pk"),
        finished=Count("pk", filter=Q(series__finished=True)),
        won=Count("pk", filter=Q(is_winner=True)),
        goats=Count("pk", filter=Q(is_goat=True)),
        goats_with_eggs=Count("pk", filter=Q(is_goat=True, series__eggs__gt=0)),
        **{f"sum_{name}": Sum(field, default=0) for name, field in TALLY_FIELDS.items()},
    )
    record = PlayerRecord(
        player=player,
        series_played=totals["played"],
        series_finished=totals["finished"],
        series_won=totals["won"],
        goats=totals["goats"],
        goats_with_eggs=totals["goats_with_eggs"],
        deals=DealTally(**{name: totals[f"sum_{name}"] for name in TALLY_FIELDS}),
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
    return record


def _as_date(value) -> date:
    return value.date() if hasattr(value, "date") else value
