"""Reads that are more than a ``.get()``: what a request may see, in as few queries as possible."""

from __future__ import annotations

import uuid
from typing import NamedTuple

from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404, HttpRequest

from scoring import plainsql
from scoring.access import SeriesAccess, created_series_ids, held_tokens, series_access
from scoring.models import Deal, DealEvent, Player, Seat, Series


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


def load_seats(series: Series) -> Series:
    """Load the seats and players of a series read without them, once: what
    ``with_seats`` loads, in one plain query (``scoring.plainsql``) that fills the same cache,
    so ``series.seats.all()`` reads no more."""
    if "seats" in getattr(series, "_prefetched_objects_cache", {}):
        return series
    connection = plainsql.reader(Seat)
    seat, player = plainsql.columns(Seat, connection), plainsql.columns(Player, connection)
    sql = (
        f"SELECT {seat.sql}, {player.sql} FROM {seat.table} INNER JOIN {player.table} "
        f"ON {player.table}.id = {seat.table}.player_id "
        f"WHERE {seat.table}.series_id = %s ORDER BY {seat.table}.position"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [series.pk])
        rows = cursor.fetchall()
    seats = []
    for row in rows:
        one = seat.instance(connection, row[: len(seat)])
        _SEAT_PLAYER.set_cached_value(one, player.instance(connection, row[len(seat) :]))
        _SEAT_SERIES.set_cached_value(one, series)
        seats.append(one)
    # As prefetch_related_objects leaves a prefetched relation (Django's own cache for it).
    found = series.seats.all()
    found._result_cache = seats
    found._prefetch_done = True  # type: ignore[attr-defined]
    cache = {**getattr(series, "_prefetched_objects_cache", {}), "seats": found}
    series._prefetched_objects_cache = cache  # type: ignore[attr-defined]
    return series


_SEAT_PLAYER = Seat._meta.get_field("player")
_SEAT_SERIES = Seat._meta.get_field("series")


class PlayedDeal(NamedTuple):
    """A stored deal as the scoreboard and the engine read it (``replays.StoredDeal``): its
    number, card points and tricks per original side, without a model instance each."""

    id: int
    number: int
    points: tuple[int | None, int | None, int | None]
    tricks: tuple[bool | None, bool | None, bool | None]


def played_deals(series: Series) -> list[PlayedDeal]:
    """The series' deals in order, as the scoreboard and the engine read them, in one plain
    query (a model instance per deal cost more than the rest of the read)."""
    connection = plainsql.reader(Deal)
    table = plainsql.columns(Deal, connection).table
    sql = (
        "SELECT id, number, points_0, points_1, points_2, tricks_0, tricks_1, tricks_2 "
        f"FROM {table} WHERE series_id = %s ORDER BY number"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [series.pk])
        rows = cursor.fetchall()
    return [
        PlayedDeal(
            pk,
            number,
            (points_0, points_1, points_2),
            tuple(None if took is None else bool(took) for took in tricks),  # type: ignore[arg-type]
        )
        for pk, number, points_0, points_1, points_2, *tricks in rows
    ]


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


def series_row(pk: int, *, lock: bool = False) -> Series | None:
    """``Series.objects.filter(pk=pk).first()`` without building the query each time: the same
    row, through the same converters, as one plain ``SELECT`` (the ORM's compiler cost more
    than the database spent on it, on the busiest read of the site). ``lock``: the row locked
    until the transaction ends, as ``select_for_update()`` locks it (inside a transaction)."""
    connection = plainsql.writer(Series) if lock else plainsql.reader(Series)
    series = plainsql.columns(Series, connection)
    sql = f"SELECT {series.sql} FROM {series.table} WHERE {series.table}.id = %s"
    if lock and connection.features.has_select_for_update:
        sql += " " + connection.ops.for_update_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    return None if row is None else series.instance(connection, row)


def series_head_for_request(request: HttpRequest, pk: int) -> SeriesAccess:
    """The series row alone (one query) and what this request may do with it; 404 as above.

    Enough to decide whether a cached page of it is current (``scoring.pagecache``); the
    seats come with ``load_seats`` when the page must be rendered."""
    series = series_row(pk)
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
    """Where this key was used, in one plain query (``scoring.plainsql``); None for a key no
    form has sent yet: a recorded deal, or the removal of an undone one."""
    connection = plainsql.reader(Deal)
    key = plainsql.param(Deal, "entry_key", entry_key, connection)
    deals = plainsql.columns(Deal, connection).table
    events = plainsql.columns(DealEvent, connection).table
    sql = (
        f"SELECT 0, series_id, id FROM {deals} WHERE entry_key = %s UNION ALL "
        f"SELECT 1, series_id, id FROM {events} WHERE entry_key = %s LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, key])
        row = cursor.fetchone()
    if row is None:
        return None
    was_undone, series_id, pk = row
    return KeyUse(bool(was_undone), series_id, pk)


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
