"""Reads for league pages: each one query (or a fixed few), whatever the league's size."""

from __future__ import annotations

from django.core.paginator import Page, Paginator

from scoring.history.rows import ROW_FIELDS, series_rows
from scoring.lib.collation import sorted_by_name
from scoring.models import League, LeagueEvent, Membership, Player, Role, Series

SERIES_PER_PAGE = 10


def user_memberships(user, *, archived: bool = False) -> list[Membership]:
    """The leagues a user belongs to, with their role, by name: those in use, or (``archived``)
    those their owners archived, which no other list shows."""
    return list(
        Membership.objects.filter(user=user, league__archived_at__isnull=not archived)
        .select_related("league")
        .order_by("league__name", "league_id")
    )


def scoring_leagues(user) -> list[League]:
    """Leagues where ``user`` may start series: as owner or scorer."""
    leagues = League.objects.filter(
        memberships__user=user,
        memberships__role__in=[Role.OWNER, Role.SCORER],
        archived_at__isnull=True,
    ).order_by("pk")
    return sorted_by_name(leagues, lambda league: league.name)


def league_memberships(league: League) -> list[Membership]:
    """Members with their accounts: owners first, then scorers, then viewers."""
    return list(
        Membership.objects.filter(league=league)
        .select_related("user")
        .order_by("role", "user__username")
    )


def league_players(league: League) -> list[Player]:
    players = Player.objects.filter(league=league).select_related("user").order_by("pk")
    return sorted_by_name(players, lambda player: player.name)


def series_page(league: League, number: str | None) -> Page:
    """One page of the league's series, newest first (a bad page number gives the nearest)."""
    ordered = Series.objects.filter(league=league).order_by("-created_at", "-pk")
    page = Paginator(ordered.values_list(*ROW_FIELDS), SERIES_PER_PAGE).get_page(number)
    page.object_list = series_rows(page.object_list)
    return page


def league_events(league: League) -> list[LeagueEvent]:
    """The league's changes (its audit trail), newest first, with who made them."""
    return list(LeagueEvent.objects.filter(league=league).select_related("actor"))
