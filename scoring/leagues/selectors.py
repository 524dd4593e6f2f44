"""Reads for league pages: each one query (or a fixed few), whatever the league's size."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.paginator import Page, Paginator
from django.urls import reverse

from scoring.models import League, Membership, Player, Role, Seat, Series

SERIES_PER_PAGE = 10


def user_memberships(user) -> list[Membership]:
    """The leagues a user belongs to, with their role, by name."""
    return list(
        Membership.objects.filter(user=user)
        .select_related("league")
        .order_by("league__name", "league_id")
    )


def scoring_leagues(user) -> list[League]:
    """Leagues where ``user`` may start series: as owner or scorer."""
    return list(
        League.objects.filter(
            memberships__user=user, memberships__role__in=[Role.OWNER, Role.SCORER]
        ).order_by("name", "pk")
    )


def league_memberships(league: League) -> list[Membership]:
    """Members with their accounts: owners first, then scorers, then viewers."""
    return list(
        Membership.objects.filter(league=league)
        .select_related("user")
        .order_by("role", "user__username")
    )


def league_players(league: League) -> list[Player]:
    return list(Player.objects.filter(league=league).select_related("user").order_by("name", "pk"))


@dataclass(frozen=True)
class SeatLine:
    name: str
    side: int
    total: int  # the side's defeat points
    is_goat: bool
    is_winner: bool


@dataclass(frozen=True)
class SideLine:
    """A side of a series in a list (``_score_line.html``): its name, defeat points, result."""

    name: str
    total: int
    goat: bool
    winner: bool


@dataclass(frozen=True)
class SeriesLine:
    """A row of a league's series list (``leagues/_series_list.html``): plain values, not
    model instances, which cost more to build than the page spends on anything else."""

    pk: int
    created_at: datetime
    finished: bool
    deal_count: int
    eggs: int
    seats: list[SeatLine]

    def get_absolute_url(self) -> str:
        return reverse("series_detail", args=[self.pk])

    @property
    def sides(self) -> list[SideLine]:
        """The sides in seat order, partners joined: "Anna & Vera"."""
        by_side: dict[int, list[SeatLine]] = {}
        for seat in self.seats:
            by_side.setdefault(seat.side, []).append(seat)
        return [
            SideLine(
                name=" & ".join(seat.name for seat in seats),
                total=seats[0].total,
                goat=seats[0].is_goat,
                winner=seats[0].is_winner,
            )
            for _side, seats in sorted(by_side.items())
        ]


LINE_FIELDS = ("pk", "created_at", "finished", "deal_count", "eggs")


def series_page(league: League, number: str | None) -> Page:
    """One page of the league's series, newest first (a bad page number gives the nearest)."""
    ordered = Series.objects.filter(league=league).order_by("-created_at", "-pk")
    page = Paginator(ordered.values_list(*LINE_FIELDS), SERIES_PER_PAGE).get_page(number)
    rows = list(page.object_list)
    seats: dict[int, list[SeatLine]] = {}
    for series_id, *seat in (
        Seat.objects.filter(series_id__in=[row[0] for row in rows])
        .order_by("series_id", "position")
        .values_list("series_id", "player__name", "side", "total", "is_goat", "is_winner")
    ):
        seats.setdefault(series_id, []).append(SeatLine(*seat))
    page.object_list = [SeriesLine(*row, seats=seats.get(row[0], [])) for row in rows]
    return page
