"""Writes to a series: start it, rematch it, renew its table's links, change its names, close it.

Every write to a series (here and in ``table.deals``) locks its row (``series_locked``) and ends
with ``series_refresh``, which stores what the engine derived from its deals in the same
transaction, so stored totals can never disagree with a replay.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from scoring import rules
from scoring.core.modes import SHAPES
from scoring.core.names import name_clean, name_key
from scoring.models import (
    Deal,
    DealEvent,
    EventTable,
    League,
    Player,
    Seat,
    Series,
    Table,
    new_token,
)
from scoring.standings.running_totals import results_changed
from scoring.table import life
from scoring.table.access import LeagueArchived
from scoring.table.derived import derived_values
from scoring.table.replays import replay_rows


def series_locked(series_id: int) -> Series:
    """The series' row, locked until the transaction ends. Every change to a series takes it
    here, so this is where an archived league refuses it (``LeagueArchived``, as its pages
    do): the views ask before, but a league archived between their look and this lock would
    otherwise take one more change."""
    series = Series.objects.select_for_update().get(pk=series_id)
    if series.league_id is not None and (
        League.objects.filter(pk=series.league_id, archived_at__isnull=False).exists()
    ):
        raise LeagueArchived()
    return series


#: What ``series_refresh`` writes on a series besides its derived fields.
_REFRESHED = ("version", "finished_at", "closed_at", "updated_at")


def series_refresh(series: Series, state: rules.SeriesState) -> None:
    """Store what the engine derived from the deals on the series and its seats, with how it
    ended (``life.ending_of``: its goat, or its closing) and so its result."""
    timed = series.closes_at and series.closed_at
    ending = life.ending_of(series, state, last_deal_at=_last_deal_at(series) if timed else None)
    changed = series.league_id is not None and (bool(ending) or series.finished)
    # Where the series stood in the league's finishing order before this change, or where it
    # now ends: the standings' running totals are kept up to just before it.
    since = (series.finished_at, series.pk) if series.finished else None
    if ending and not series.finished:
        series.finished_at = timezone.now()
    elif not ending:
        series.finished_at = None
    derived = derived_values(state, ending)
    for name, value in derived.series.items():
        setattr(series, name, value)
    series.version += 1
    if series.pk is None:
        series.save()
    else:
        series.save(update_fields=[*derived.series, *_REFRESHED])
    # One UPDATE per side: partners share their side's figures.
    for side, values in enumerate(derived.sides):
        Seat.objects.filter(series=series, side=side).update(**values)
    if changed and series.league_id is not None:
        # Last: the standings are folded again from what this write stored.
        results_changed(series.league_id, since=since or (series.finished_at, series.pk))


def _last_deal_at(series: Series) -> datetime | None:
    """When the table's last deal was recorded (whether its round's time was up then): not a
    deal the organiser added after the close (its ``recorded`` event a ``life.CORRECTION``)."""
    added = DealEvent.objects.filter(
        series=series, action=DealEvent.Action.RECORDED, via=life.CORRECTION
    ).values("number")
    return (
        Deal.objects.filter(series=series)
        .exclude(number__in=added)
        .order_by("-number")
        .values_list("created_at", flat=True)
        .first()
    )


def deal_logged(
    series: Series,
    number: int,
    action: str,
    *,
    before=None,
    after=None,
    user=None,
    via="",
    entry_key: uuid.UUID | None = None,
):
    DealEvent.objects.create(
        series=series,
        number=number,
        action=action,
        before=before,
        after=after,
        actor=account_of(user),
        via=via,
        entry_key=entry_key,
    )


def account_of(user):
    """The account behind a change, or None for a phone without one."""
    return user if user is not None and user.is_authenticated else None


def players_resolve(
    *, names: Sequence[str], league: League | None, known: QuerySet[Player] | None = None
) -> list[Player]:
    """The players with these names: in the league, or among ``known``; new ones are created.

    Names match by their key (``names.name_key``): "анна" finds "Анна". A quick game (no league)
    only reuses quick-game players: a league's players stay in their league, whatever ``known``
    holds.
    """
    if league is not None:
        pool = Player.objects.filter(league=league)
    elif known is not None:
        pool = known.filter(league__isnull=True)
    else:
        pool = None
    players = []
    for name in names:
        key = name_key(name)
        found = pool.filter(name_key=key).order_by("pk").first() if pool is not None else None
        players.append(found or player_create(name=name_clean(name), league=league))
    return players


def player_create(*, name: str, league: League | None) -> Player:
    """A new player; in a league, the one another request has just created under this name."""
    try:
        with transaction.atomic():
            return Player.objects.create(name=name, league=league)
    except IntegrityError:
        if league is None:
            raise
        return Player.objects.get(league=league, name_key=name_key(name))


@transaction.atomic
def series_start(
    *,
    mode: str,
    players: Sequence[Player],
    first_dealer: int,
    ruleset: rules.Ruleset,
    league: League | None = None,
    user=None,
    rematch_of: Series | None = None,
    deal_limit: int | None = None,
    closes_at: datetime | None = None,
    table: Table | None = None,
) -> Series:
    """Start a series with players in clockwise seat order and the house rules frozen in, as the
    game ``table`` plays now (a new kitchen table, with its links, for None); ``deal_limit``: the
    most deals it takes (a club night's round of N deals); ``closes_at``: when its time is up (a
    round of N minutes)."""
    shape = SHAPES[mode]
    if len(players) != shape.seats:
        raise ValueError(f"{mode} needs {shape.seats} players, not {len(players)}")
    if len({player.pk for player in players}) != len(players):
        raise ValueError("a player can sit at only one seat")
    if not 0 <= first_dealer < shape.seats:
        raise ValueError(f"the first dealer must be one of the {shape.seats} seats")
    if table is None:
        table = Table.objects.create()
    series = Series.objects.create(
        league=league,
        mode=mode,
        rules=ruleset.to_dict(),
        first_dealer=first_dealer,
        created_by=account_of(user),
        rematch_of=rematch_of,
        deal_limit=deal_limit,
        closes_at=closes_at,
        table=table,
    )
    # Its phones now see this game (their next poll: the table's game changed).
    table.series = series
    table.save(update_fields=["series"])
    Seat.objects.bulk_create(
        Seat(series=series, player=player, position=position, side=shape.seat_sides[position])
        for position, player in enumerate(players)
    )
    series_refresh(series, rules.replay(shape.sides, [], rules=ruleset))
    return series


@transaction.atomic
def series_create(
    *,
    mode: str,
    names: Sequence[str],
    first_dealer: int,
    ruleset: rules.Ruleset,
    league: League | None = None,
    known: QuerySet[Player] | None = None,
    user=None,
) -> Series:
    """A new game from the names typed or picked, in clockwise seat order."""
    players = players_resolve(names=names, league=league, known=known)
    return series_start(
        mode=mode,
        players=players,
        first_dealer=first_dealer,
        ruleset=ruleset,
        league=league,
        user=user,
    )


def rematch_dealer(series: Series) -> int:
    """Who deals first in a rematch: the next seat clockwise from the series' first dealer."""
    return (series.first_dealer + 1) % series.shape.seats


@transaction.atomic
def series_close(*, series_id: int) -> Series:
    """Close a series (its club night's round is over): it takes no more deal, edit, undo or
    put-back, but an organiser's correction, and its result is what its deals stand at
    (``life.ending_of``: played to its limit, or cut short). Under its lock, so a deal being
    recorded is either in before, or refused after; its phones see it at their next poll."""
    series = series_locked(series_id)
    if series.closed_at is None:
        series.closed_at = timezone.now()
        series_refresh(series, replay_rows(series, list(Deal.objects.filter(series=series))))
    return series


class RematchRefused(Exception):
    """No rematch of this series can start; ``message`` says why, in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@transaction.atomic
def series_rematch(*, series: Series, user=None) -> Series:
    """A new series with the same seats and rules; the next player clockwise deals first.

    Raises ``RematchRefused`` where ``life.rematch_refusal`` says no (a series still in play, a
    club night's game), decided under the series' lock; a second tap opens the same rematch.
    """
    series = series_locked(series.pk)
    club_night = EventTable.objects.filter(series=series).exists()
    # A second tap on "rematch" opens the same new series; never one of a club night's game (a
    # rematch made before they were refused opens to nobody).
    existing = None if club_night else series.rematches.order_by("pk").first()
    if existing is not None:
        return existing
    refusal = life.rematch_refusal(series, club_night=club_night)
    if refusal is not None:
        raise RematchRefused(refusal)
    players = [seat.player for seat in series.seats.select_related("player").order_by("position")]
    return series_start(
        mode=series.mode,
        players=players,
        first_dealer=rematch_dealer(series),
        ruleset=series.ruleset,
        league=series.league,
        # A quick game's rematch is the same table with the same creator, who manages its links
        # (``table.access``); whoever tapped "Rematch" with a score link only scores it.
        user=user if series.league_id is not None else series.created_by,
        rematch_of=series,
        # The same table: every phone holding its links, watchers too, goes on to the rematch.
        table=series.table,
    )


@transaction.atomic
def table_link_renew(*, table: Table, link: str) -> Table:
    """A new scoring or watching link for a kitchen table: whoever held the old one is shut out
    of its games (a club night's tables are renewed by their organiser, ``events.services``)."""
    if link not in ("score", "watch"):
        raise ValueError(f"there is no {link!r} link")
    setattr(table, f"{link}_token", new_token())
    table.save(update_fields=[f"{link}_token"])
    return table


@transaction.atomic
def series_players_change(
    *, series: Series, names: Sequence[str], known: QuerySet[Player] | None = None
) -> Series:
    """Seat these players (by name, in seat order) in a quick game, in place of its players.

    A quick game's player may sit in the creator's other games too: the seat gets another
    player (found among ``known`` by name, or new) instead of renaming the one it had, so
    earlier games keep their names. The scores stay as they are.
    """
    series = series_locked(series.pk)
    if series.league_id is not None:
        raise ValueError("a league's players are renamed in the league")
    seats = list(series.seats.order_by("position"))
    if len(names) != len(seats):
        raise ValueError(f"{len(seats)} seats, {len(names)} names")
    players = players_resolve(names=names, league=None, known=known)
    if len({player.pk for player in players}) != len(players):
        raise ValueError("a player can sit at only one seat")
    # New seat rows with the same figures: two seats may swap players, which updating them one
    # at a time would refuse (a player sits once per series).
    Seat.objects.filter(series=series).delete()
    for seat, player in zip(seats, players, strict=True):
        seat.pk, seat.player = None, player
    Seat.objects.bulk_create(seats)
    series.version += 1  # every open scoreboard shows the new names
    series.save(update_fields=["version", "updated_at"])
    return series


def tables_set_apart(games: Sequence[Series]) -> None:
    """New links for each of ``games`` (a game moved into or out of a league): whoever held its
    table's links is shut out of it, and told so. A game alone at its table keeps the table,
    whose links are renewed; one of several (a rematch) goes to a new table of its own, and the
    table it leaves shows its latest game left."""
    counts = Counter(
        Series.objects.filter(table__in={g.table_id for g in games}).values_list("table", flat=True)
    )
    alone = [game for game in games if game.table_id is not None and counts[game.table_id] == 1]
    for table in Table.objects.filter(pk__in={game.table_id for game in alone}):
        table.score_token, table.watch_token = new_token(), new_token()
        table.save(update_fields=["score_token", "watch_token"])
    moved = [game for game in games if game not in alone]
    left = {game.table_id for game in moved if game.table_id is not None}
    made = Table.objects.bulk_create(Table(series=game) for game in moved)
    for game, table in zip(moved, made, strict=True):
        game.table = table
    Series.objects.bulk_update(moved, ["table"], batch_size=500)
    for table in Table.objects.filter(pk__in=left, event__isnull=True):
        latest = table.games.order_by("-created_at", "-pk").first()
        if table.series_id != (latest.pk if latest else None):
            table.series = latest
            table.save(update_fields=["series"])


def tables_for(
    games: Sequence[Series],
    *,
    club: Mapping[int, tuple[int, int]],
    links: Mapping[int, tuple[str | None, str | None]] | None = None,
) -> None:
    """Tables for ``games`` written in bulk (a restored document, the demo league), as the site
    would have seated them: a club night's game (``club``: its series id → its evening and table
    number) at its evening's table, any other game at the kitchen table of the game it is a
    rematch of, else at a table of its own; each table plays its latest game. ``links``: the
    score and watch tokens a document gives the table of the game it plays now."""
    links = links or {}
    ours = {game.pk for game in games}
    earlier = {game.rematch_of_id for game in games if game.rematch_of_id is not None} - ours
    # The kitchen tables of earlier games (written before) that some of these are rematches of.
    table_of: dict[int, Table] = {
        game.pk: game.table
        for game in Series.objects.filter(
            pk__in=earlier, table__isnull=False, table__event__isnull=True
        ).select_related("table")
        if game.table is not None
    }
    at_club: dict[tuple[int, int], Table] = {}
    for game in sorted(games, key=lambda game: (game.created_at, game.pk)):
        if game.pk in club:
            event, number = club[game.pk]
            table = at_club.setdefault((event, number), Table(event_id=event, number=number))
        elif game.rematch_of_id in table_of and table_of[game.rematch_of_id].event_id is None:
            table = table_of[game.rematch_of_id]
        else:
            table = Table()
        table_of[game.pk] = table
        table.series = game  # the latest so far
    for pk, (score, watch) in links.items():
        if pk in table_of:
            table_of[pk].score_token, table_of[pk].watch_token = score, watch
    seated = {id(table): table for pk, table in table_of.items() if pk in ours}
    Table.objects.bulk_create([table for table in seated.values() if table.pk is None])
    for game in games:
        game.table = table_of[game.pk]
    Series.objects.bulk_update(games, ["table"], batch_size=500)
    # The earlier tables now play the latest of these games.
    Table.objects.bulk_update([t for t in seated.values() if t.event_id is None], ["series"])
