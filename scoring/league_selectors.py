"""Reads for league pages: each one query (or a fixed few), whatever the league's size."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, QuerySet

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


#: What a row of the league's series list shows (``leagues/_series_list.html``): loading only
#: these spares building every field of 10 series and 40 seats on each page view.
LIST_FIELDS = ("league_id", "created_at", "finished", "deal_count", "eggs")
LIST_SEAT_FIELDS = ("series_id", "position", "is_goat", "is_winner", "player__name")


def league_series(league: League) -> QuerySet[Series]:
    seats = Seat.objects.select_related("player").only(*LIST_SEAT_FIELDS).order_by("position")
    return (
        Series.objects.filter(league=league)
        .only(*LIST_FIELDS)
        .order_by("-created_at", "-pk")
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def series_page(league: League, number: str | None) -> Page:
    """One page of the league's series, newest first (a bad page number gives the nearest)."""
    return Paginator(league_series(league), SERIES_PER_PAGE).get_page(number)
