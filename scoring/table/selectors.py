"""Reads that are more than a ``.get()``: what a request may see, in as few queries as possible."""

from __future__ import annotations

import uuid
from typing import NamedTuple

from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects
from django.http import Http404, HttpRequest

from scoring.access import (
    SeriesAccess,
    created_series_ids,
    held_tables,
    held_tokens,
    series_access,
)
from scoring.models import Deal, DealEvent, EventTableLink, Player, Seat, Series


def visible_series_filter(request: HttpRequest) -> Q:
    """Series of the user's leagues, and quick games this browser started or holds a live link
    for (as ``access.series_access`` decides)."""
    condition = Q(pk__in=[])
    for pk, token in held_tokens(request).items():
        condition |= Q(pk=pk) & (Q(score_token=token) | Q(watch_token=token))
    created = created_series_ids(request)
    if created:
        condition |= Q(pk__in=created, league__isnull=True)
    if request.user.is_authenticated:
        condition |= Q(league__memberships__user=request.user)
    return condition


def _seats() -> Prefetch:
    return Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position"))


def with_seats(queryset: QuerySet[Series]) -> QuerySet[Series]:
    """Series with their seats and players loaded in one more query."""
    return queryset.prefetch_related(_seats())


#: What the scoreboard and the engine read of a deal.
DEAL_FIELDS = ("number", "points_0", "points_1", "points_2", "tricks_0", "tricks_1", "tricks_2")


def load_seats(series: Series) -> None:
    """Its seats with their players, unless they were read with it (``with_seats``)."""
    prefetch_related_objects([series], _seats())


def series_deals(series: Series) -> list[Deal]:
    """The series' deals in order, with what the scoreboard and the engine read of them."""
    return list(Deal.objects.filter(series=series).only(*DEAL_FIELDS).order_by("number"))


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


def series_at_table(request: HttpRequest, link: EventTableLink) -> SeriesAccess:
    """The round's game at a club-night table whose link this browser opened (``link_for``
    loaded it with its series), and what this request may do with it. Its seats are read with
    its deals, when the board is not kept already (``board.context``)."""
    series = link.series
    if series is None or link.token not in held_tables(request):  # the views ask both first
        raise Http404("No game at this table.")
    return series_access(request, series, table_link=link)


def series_head_for_request(request: HttpRequest, pk: int) -> SeriesAccess:
    """The series row alone and what this request may do with it (the live poll, which reads
    nothing more while nothing changed); 404 as above."""
    series = Series.objects.filter(pk=pk).first()
    if series is None:
        raise Http404("No such series.")
    return series_access(request, series)


class KeyUse(NamedTuple):
    """What a deal form's one-time key has done: recorded a deal (``pk``), which ``undone``
    since if ``pk`` is that removal's event."""

    undone: bool
    series_id: int
    pk: int


def entry_key_use(entry_key: uuid.UUID) -> KeyUse | None:
    """Where this key was used; None for a key no form has sent yet: a recorded deal, or the
    removal of an undone one (whose event keeps the key)."""
    recorded = Deal.objects.filter(entry_key=entry_key).values_list("series_id", "pk").first()
    if recorded is not None:
        return KeyUse(False, *recorded)
    undone = DealEvent.objects.filter(entry_key=entry_key).values_list("series_id", "pk").first()
    return None if undone is None else KeyUse(True, *undone)


#: How far back a goat tally follows rematches: an evening, with room to spare.
MAX_REMATCH_CHAIN = 100


def goat_tally(series: Series) -> tuple[int, list[int]]:
    """(how many games, goats per side) of this line-up: the series and the rematches before it.

    One small query per earlier game of the chain, read only for a finished game's end screen.
    """
    sides = series.shape.sides
    goats = [0] * sides
    for side in series.goat_sides or []:
        goats[side] += 1
    games = 1
    current: int | None = series.rematch_of_id
    while current is not None and games < MAX_REMATCH_CHAIN:
        row = Series.objects.filter(pk=current).values("rematch_of_id", "goat_sides").first()
        if row is None:
            break
        games += 1
        for side in row["goat_sides"] or []:
            if side < sides:
                goats[side] += 1
        current = row["rematch_of_id"]
    return games, goats


def last_undone(series: Series) -> DealEvent | None:
    """The removal of the last undo, while nothing else has happened since: the deal that
    "Put it back" would record again. None once a deal was recorded, edited or undone after."""
    event = DealEvent.objects.filter(series=series).order_by("-pk").first()
    if event is None or event.action != DealEvent.Action.REMOVED:
        return None
    if event.number != series.deal_count + 1 or not event.before:
        return None
    return event
