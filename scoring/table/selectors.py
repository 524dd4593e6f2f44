"""Reads that are more than a ``.get()``: what a visitor may see, in as few queries as possible."""

from __future__ import annotations

import uuid
from typing import NamedTuple

from django.db.models import Prefetch, Q, QuerySet, prefetch_related_objects
from django.http import Http404

from scoring.core.visitors import Visitor
from scoring.models import Deal, DealEvent, DealProposal, Player, Seat, Series, Table
from scoring.table.access import SeriesAccess, series_access


def visible_series_filter(visitor: Visitor) -> Q:
    """Series of the visitor's leagues, and the games of the kitchen and club tables whose link
    this browser opened or which it started (as ``access.series_access`` decides)."""
    condition = Q(pk__in=[])
    tokens = list(visitor.links)
    if tokens:
        held = Q(table__score_token__in=tokens) | Q(table__watch_token__in=tokens)
        condition |= held & Q(table__in=set(visitor.links.values()))
    if visitor.started:
        condition |= Q(table__in=visitor.started, league__isnull=True)
    if visitor.user is not None:
        condition |= Q(created_by=visitor.user, league__isnull=True)
        condition |= Q(league__memberships__user=visitor.user)
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


def visible_series(visitor: Visitor) -> QuerySet[Series]:
    return Series.objects.filter(visible_series_filter(visitor)).distinct()


def known_players(visitor: Visitor) -> QuerySet[Player]:
    """Players this browser or user has played with, for picking names in a new game."""
    return Player.objects.filter(seats__series__in=visible_series(visitor)).distinct()


def series_with_seats(pk: int) -> Series:
    return with_seats(Series.objects.select_related("league", "table")).get(pk=pk)


def series_seen(visitor: Visitor, pk: int) -> SeriesAccess:
    """A series with its seats and what ``visitor`` may do with it; 404 if they may not see it."""
    try:
        series = series_with_seats(pk)
    except Series.DoesNotExist:
        raise Http404("No such series.") from None
    return series_access(visitor, series)


def table_for(token: str) -> Table | None:
    """The table one of whose links is ``token``, with its club night, league and the game it
    plays now (with its league and seats); None for a link that names nothing (renewed,
    revoked, or never one)."""
    tables = Table.objects.select_related("event__league", "series__league").filter(
        Q(score_token=token) | Q(watch_token=token)
    )
    try:
        table = tables.get()  # not .first(), whose ordering costs a poll 1 ms
    except (Table.DoesNotExist, Table.MultipleObjectsReturned):
        return None
    if table.series is not None:
        table.series.table = table  # the game's table is this one, with its links
    return table


def is_club_table(table_id: int) -> bool:
    """Whether the table ``table_id`` is a club night's (its links are the organiser's)."""
    return Table.objects.filter(pk=table_id, event__isnull=False).exists()


def series_at_table(visitor: Visitor, table: Table, token: str) -> SeriesAccess:
    """The game ``table`` plays now (``table_for`` loaded it) and what ``visitor``, at its page
    through ``token``, may do with it. Its seats are read with its deals (``board.load``)."""
    series = table.series
    if series is None:  # the views ask first
        raise Http404("No game at this table.")
    return series_access(visitor, series, token=token)


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


def proposals_at(*, event_id: int, table: int) -> list[dict]:
    """The deals proposed to the organiser from a club night's table (every round's game at that
    table number, for a phone that moved on to the next round), as the phone's offline data says
    them: its key, the number it was typed as, what became of it. Only a club night's games take
    proposals (``life.proposal_refusal``)."""
    found = DealProposal.objects.filter(
        series__event_table__round__event_id=event_id, series__event_table__number=table
    )
    rows = found.order_by("pk").values_list("entry_key", "number", "state", "deal__number")
    return [
        {"key": str(key), "number": number, "state": state, "deal": deal}
        for key, number, state, deal in rows
    ]
