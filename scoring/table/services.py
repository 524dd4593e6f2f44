"""Writes to a series: start it, rematch it, renew its links, change its names, close it.

Every write to a series (here and in ``table.deals``) locks its row (``series_locked``) and ends
with ``series_refresh``, which stores what the engine derived from its deals in the same
transaction, so stored totals can never disagree with a replay.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from scoring import rules
from scoring.access import archived_refusal
from scoring.models import (
    DealEvent,
    League,
    Player,
    Seat,
    Series,
    new_token,
)
from scoring.modes import SHAPES
from scoring.names import name_clean, name_key
from scoring.running_totals import results_changed
from scoring.table.derived import derived_values


class SeriesNotOver(Exception):
    """A rematch was asked for a series that is still being played."""


def series_locked(series_id: int) -> Series:
    """The series' row, locked until the transaction ends. Every change to a series takes it
    here, so this is where an archived league refuses it (``archived_refusal``, as its pages
    do): the views ask before, but a league archived between their look and this lock would
    otherwise take one more change."""
    series = Series.objects.select_for_update().get(pk=series_id)
    if series.league_id is not None and (
        League.objects.filter(pk=series.league_id, archived_at__isnull=False).exists()
    ):
        raise archived_refusal()
    return series


#: What ``series_refresh`` writes on a series besides its derived fields.
_REFRESHED = ("version", "finished_at", "closed_at", "updated_at")


def series_refresh(series: Series, state: rules.SeriesState) -> None:
    """Store what the engine derived from the deals on the series and its seats."""
    changed = series.league_id is not None and (state.finished or series.finished)
    # Where the series stood in the league's finishing order before this change, or where it
    # now ends: the standings' running totals are kept up to just before it.
    since = (series.finished_at, series.pk) if series.finished else None
    if state.finished and not series.finished:
        series.finished_at = timezone.now()
    elif not state.finished:
        series.finished_at = None
    derived = derived_values(state)
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
) -> Series:
    """Start a series with players in clockwise seat order and the house rules frozen in;
    ``deal_limit``: the most deals it takes (a club night's round of N deals); ``closes_at``:
    when its time is up (a round of N minutes)."""
    shape = SHAPES[mode]
    if len(players) != shape.seats:
        raise ValueError(f"{mode} needs {shape.seats} players, not {len(players)}")
    if len({player.pk for player in players}) != len(players):
        raise ValueError("a player can sit at only one seat")
    if not 0 <= first_dealer < shape.seats:
        raise ValueError(f"the first dealer must be one of the {shape.seats} seats")
    series = Series.objects.create(
        league=league,
        mode=mode,
        rules=ruleset.to_dict(),
        first_dealer=first_dealer,
        created_by=account_of(user),
        rematch_of=rematch_of,
        deal_limit=deal_limit,
        closes_at=closes_at,
        score_token=new_token(),
        watch_token=new_token(),
    )
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
    put-back, but an organiser's correction. Under its lock, so a deal being recorded is either
    in before, or refused after; its phones see it at their next poll (the version)."""
    series = series_locked(series_id)
    if series.closed_at is None:
        series.closed_at = timezone.now()
        series.version += 1
        series.save(update_fields=["closed_at", "version", "updated_at"])
    return series


@transaction.atomic
def series_rematch(*, series: Series, user=None) -> Series:
    """A new series with the same seats and rules; the next player clockwise deals first.

    Raises ``SeriesNotOver`` for a series still in play: finish it (or start a new game).
    """
    series = series_locked(series.pk)
    if not series.finished:
        raise SeriesNotOver(f"series {series.pk} is still in play")
    existing = series.rematches.order_by("pk").first()
    if existing is not None:
        return existing  # a second tap on "rematch" opens the same new series
    players = [seat.player for seat in series.seats.select_related("player").order_by("position")]
    rematch = series_start(
        mode=series.mode,
        players=players,
        first_dealer=rematch_dealer(series),
        ruleset=series.ruleset,
        league=series.league,
        # A quick game's rematch is the same table with the same creator, who manages its links
        # (scoring.access); whoever tapped "Rematch" with a score link only scores it.
        user=user if series.league_id is not None else series.created_by,
        rematch_of=series,
    )
    # Phones still watching the finished series see the change, and so the way to the next one.
    Series.objects.filter(pk=series.pk).update(version=F("version") + 1)
    return rematch


@transaction.atomic
def series_link_renew(*, series: Series, link: str) -> Series:
    """A new scoring or watching link for a series: whoever held the old one is locked out, and
    holders of the earlier game's links are no longer handed this one
    (``access.followed_link``)."""
    if link not in ("score", "watch"):
        raise ValueError(f"there is no {link!r} link")
    setattr(series, f"{link}_token", new_token())
    setattr(series, f"{link}_renewed_at", timezone.now())
    series.save(update_fields=[f"{link}_token", f"{link}_renewed_at"])
    return series


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
