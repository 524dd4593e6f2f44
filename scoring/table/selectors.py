"""Reads that are more than a ``.get()``: what a request may see, in as few queries as possible."""

from __future__ import annotations

from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest

from scoring.access import SESSION_LINKS, SeriesAccess, series_access
from scoring.models import Player, Seat, Series


def visible_series_filter(request: HttpRequest) -> Q:
    """Series of the user's leagues, and quick games this browser holds a live link for."""
    condition = Q(pk__in=[])
    for pk, token in request.session.get(SESSION_LINKS, {}).items():
        condition |= Q(pk=int(pk)) & (Q(score_token=token) | Q(watch_token=token))
    if request.user.is_authenticated:
        condition |= Q(league__memberships__user=request.user)
    return condition


def with_seats(queryset: QuerySet[Series]) -> QuerySet[Series]:
    """Series with their seats and players loaded in one more query."""
    return queryset.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))
    )


def visible_series(request: HttpRequest) -> QuerySet[Series]:
    return Series.objects.filter(visible_series_filter(request)).distinct()


def known_players(request: HttpRequest) -> QuerySet[Player]:
    """Players this browser or user has played with, for picking names in a new game."""
    return Player.objects.filter(seats__series__in=visible_series(request)).distinct()


def series_with_seats(pk: int) -> Series:
    return with_seats(Series.objects.select_related("league")).get(pk=pk)


def series_for_request(request: HttpRequest, pk: int) -> SeriesAccess:
    """A series with its seats and what this request may do with it; 404 if it may not see it."""
    try:
        series = series_with_seats(pk)
    except Series.DoesNotExist:
        raise Http404("No such series.") from None
    return series_access(request, series)
