"""Writes: every change to series and deals goes through these functions, each one transaction.

Each write locks the series row, replays the stored deals with the engine, applies the change,
and rewrites the derived fields (``series_refresh``) before it commits, so stored totals can
never disagree with a replay. A deal form carries a one-time ``entry_key`` and the number of the
deal it enters: a replayed submission finds its deal again (or, once that deal is undone, is
refused), and a second phone entering the same deal is told so instead of recording it twice. An
undo or an edit carries the series' ``version`` it was shown at: after any change since, it is
refused, so it never acts on a deal its phone has not seen.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from scoring import plainsql, rules
from scoring.access import archived_refusal
from scoring.models import (
    MAX_DEALS,
    Deal,
    DealEvent,
    League,
    PairResult,
    Player,
    RunningTotal,
    Seat,
    Series,
    new_token,
)
from scoring.modes import SHAPES
from scoring.names import name_clean, name_key
from scoring.running_totals import totals_fold
from scoring.table.derived import derived_values
from scoring.table.replays import (
    StoredDeal,
    engine_series,
    replay_rows,
    row_snapshot,
    row_values,
)
from scoring.table.selectors import entry_key_use, last_undone, series_row


class DealConflict(Exception):
    """The deal was changed from another device since this form was shown."""


class SeriesNotOver(Exception):
    """A rematch was asked for a series that is still being played."""


class Entry(enum.StrEnum):
    """What a deal form asks of its series as the series stands: decided by ``entry_decision``."""

    NEW = "new"  # the next deal: record it
    RETRY = "retry"  # this form's deal is recorded already (a double tap, a lost answer)
    SPENT = "spent"  # this form's deal was recorded and undone since: its key stays spent
    STALE = "stale"  # the form was for another deal, recorded or undone elsewhere since
    OVER = "over"  # the series has ended: no deal can be added
    FULL = "full"  # the series holds MAX_DEALS deals
    LIMIT = "limit"  # the series holds its ``deal_limit`` deals (a club night's round of N deals)


@dataclass(frozen=True)
class Recorded:
    """The outcome of a deal form: ``deal`` is the recorded deal for NEW and RETRY, else None."""

    series: Series
    entry: Entry
    deal: Deal | None = None
    #: A new deal: every deal row of the series and the engine's state after them, as the
    #: write read them under its lock (the fresh scoreboard, without reading them again).
    rows: list[StoredDeal] | None = None
    state: rules.SeriesState | None = None

    @property
    def created(self) -> bool:
        return self.entry is Entry.NEW


def entry_decision(
    series_id: int,
    *,
    next_number: int,
    finished: bool,
    number: int | None,
    entry_key: uuid.UUID | None,
    key_when_new: bool = True,
    limit: int | None = None,
) -> tuple[Entry, int | None]:
    """What a deal form for deal ``number`` with ``entry_key`` asks of the series, given its next
    deal number and whether it has ended: the one place this is decided. The view asks first,
    without a lock, so that a retry is answered before its form is read against a board that
    has moved on; ``deal_record`` asks again under the series' lock. With RETRY comes the
    recorded deal's id.

    ``key_when_new=False`` (the view's first look) takes a form for the next deal as NEW without
    looking its key up: ``deal_record`` looks under the lock anyway, and a form for the next
    deal is the common case, so the look costs one query only where the form would be refused.
    ``limit``: the series' ``deal_limit`` (a club night's round of N deals), if it has one.
    """
    room = MAX_DEALS if limit is None else min(limit, MAX_DEALS)
    looks_new = (number is None or number == next_number) and not finished
    looks_new = looks_new and next_number <= room
    used = None
    if entry_key is not None and (key_when_new or not looks_new):
        used = entry_key_use(entry_key)
    if used is not None:
        if used.series_id != series_id:
            return Entry.STALE, None  # a form of another series: nothing here is its deal
        return (Entry.SPENT, None) if used.undone else (Entry.RETRY, used.pk)
    if number is not None and number != next_number:
        return Entry.STALE, None
    if finished:
        return Entry.OVER, None
    if limit is not None and next_number > limit:
        return Entry.LIMIT, None
    if next_number > MAX_DEALS:
        return Entry.FULL, None
    return Entry.NEW, None


def _locked(series_id: int) -> Series:
    """The series' row, locked until the transaction ends. Every change to a series takes it
    here, so this is where an archived league refuses it (``archived_refusal``, as its pages
    do): the views ask before, but a league archived between their look and this lock would
    otherwise take one more change."""
    series = series_row(series_id, lock=True)  # select_for_update(), without the compiler
    if series is None:
        raise Series.DoesNotExist(f"no series {series_id}")
    if series.league_id is not None and (
        League.objects.filter(pk=series.league_id, archived_at__isnull=False).exists()
    ):
        raise archived_refusal()
    return series


def _rows(series: Series) -> list[Deal]:
    return list(Deal.objects.filter(series=series).order_by("number"))


#: What ``series_refresh`` writes on a series besides its derived fields.
_REFRESHED = ("version", "finished_at", "updated_at")


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
        # What a replay changes, as plain UPDATEs (``scoring.plainsql``): the ORM's save of
        # every field, and its query compiler, cost more than the database spends on them.
        series.updated_at = timezone.now()
        stored = {**derived.series, **{name: getattr(series, name) for name in _REFRESHED}}
        plainsql.update(Series, stored, where={"id": series.pk})
    # One UPDATE per side (partners share their side's figures): a bulk_update's CASE per field
    # cost more to build than the database spends on it.
    for side, values in enumerate(derived.sides):
        plainsql.update(Seat, values, where={"series": series.pk, "side": side})
    if changed and series.league_id is not None:
        # Last: the standings are folded again from what this write stored.
        results_changed(series.league_id, since=since or (series.finished_at, series.pk))


def results_changed(league_id: int, *, since: tuple[datetime | None, int]) -> None:
    """A finished series of the league changed, or one finished, at ``since`` in the finishing
    order ``(finished_at, pk)``: the league's running totals from there on are deleted and
    ``totals_until`` moved back before it (a series ending after the mark, the common case,
    deletes nothing), then folded again from there (``running_totals``), so a standings view
    only reads. Locks the league's row until the transaction ends, so that series of one league
    finish one after the other and no fold writes totals for a series meanwhile changed.
    """
    league = (
        League.objects.select_for_update()
        .only("totals_until", "totals_until_series", "totals_rulesets", "results_version")
        .get(pk=league_id)
    )
    changes: dict[str, Any] = {"results_version": F("results_version") + 1}
    at, pk = since
    until = (league.totals_until, league.totals_until_series)
    if at is not None and until[0] is not None and (at, pk) <= until:
        # From ``since`` on: a range on the index (league, finished_at, series).
        later = Q(finished_at__gte=at) & ~Q(finished_at=at, series_id__lt=pk)
        totals = RunningTotal.objects.filter(league_id=league_id)
        removed = set(totals.filter(later).values_list("rules_key", flat=True).distinct())
        totals.filter(later).delete()
        PairResult.objects.filter(later, league_id=league_id).delete()
        last = (
            totals.order_by("-finished_at", "-series_id")
            .values_list("finished_at", "series_id")
            .first()
        )
        changes["totals_until"], changes["totals_until_series"] = last or (None, None)
        # A ruleset whose series are all gone is no longer offered (an index seek per ruleset).
        gone = {key for key in removed if not totals.filter(rules_key=key).exists()}
        changes["totals_rulesets"] = [key for key in league.totals_rulesets if key not in gone]
    League.objects.filter(pk=league_id).update(**changes)
    totals_fold(league_id=league_id)


def _event(
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
    event = DealEvent(
        series=series,
        number=number,
        action=action,
        before=before,
        after=after,
        actor=user if user is not None and user.is_authenticated else None,
        via=via,
        entry_key=entry_key,
    )
    plainsql.insert(event)  # event.save(), without the ORM's insert compiler


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
        players.append(found or _player_create(name=name_clean(name), league=league))
    return players


def _player_create(*, name: str, league: League | None) -> Player:
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
) -> Series:
    """Start a series with players in clockwise seat order and the house rules frozen in;
    ``deal_limit``: the most deals it takes (a club night's round of N deals)."""
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
        created_by=user if user is not None and user.is_authenticated else None,
        rematch_of=rematch_of,
        deal_limit=deal_limit,
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
def series_rematch(*, series: Series, user=None) -> Series:
    """A new series with the same seats and rules; the next player clockwise deals first.

    Raises ``SeriesNotOver`` for a series still in play: finish it (or start a new game).
    """
    series = _locked(series.pk)
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
    """A new scoring or watching link for a series: whoever held the old one is locked out."""
    if link not in ("score", "watch"):
        raise ValueError(f"there is no {link!r} link")
    field = f"{link}_token"
    setattr(series, field, new_token())
    series.save(update_fields=[field])
    return series


def deal_record(
    *,
    series_id: int,
    number: int,
    points: Sequence[int],
    tricks: Sequence[bool] | None,
    entry_key: uuid.UUID | None = None,
    user=None,
    via: str = "",
    known: tuple[int, Sequence[StoredDeal], rules.Series] | None = None,
) -> Recorded:
    """Record the next deal of a series, or say why not (``Recorded.entry``, decided by
    ``entry_decision`` under the series' lock): a retried form gets its deal back, a form for a
    deal another device recorded meanwhile or a spent key changes nothing. Raises
    ``InvalidDeal`` for a deal the rules refuse.

    ``known``: the series' version and its deal rows as the caller read them (the version
    first). Under the lock, a series still at that version has had no write since (every write
    bumps it in its transaction), so those rows are still its rows and are not read again.
    """
    try:
        with transaction.atomic():
            series = _locked(series_id)
            rows: Sequence[StoredDeal]
            if known and known[0] == series.version:
                rows, running = list(known[1]), known[2].copy()
            else:
                rows = _rows(series)
                running = engine_series(series, rows)
            entry, recorded_pk = entry_decision(
                series.pk,
                next_number=len(rows) + 1,
                finished=running.state.finished,
                number=number,
                entry_key=entry_key,
                limit=series.deal_limit,
            )
            if entry is Entry.RETRY and recorded_pk is not None:
                return Recorded(series, entry, Deal.objects.get(pk=recorded_pk))
            if entry is not Entry.NEW:
                return Recorded(series, entry)
            deal = rules.Deal(tuple(points), None if tricks is None else tuple(tricks))
            in_play = running.in_play
            running.add(deal)  # InvalidDeal if the sides do not match
            row = Deal(
                series=series,
                number=number,
                entry_key=entry_key,
                recorded_by=user if user is not None and user.is_authenticated else None,
                **row_values(deal, in_play),
            )
            plainsql.insert(row)  # row.save(), without the ORM's insert compiler
            _event(
                series,
                number,
                DealEvent.Action.RECORDED,
                after=row_snapshot(row),
                user=user,
                via=via,
            )
            state = running.state
            series_refresh(series, state)
            return Recorded(series, entry, row, rows=[*rows, row], state=state)
    except IntegrityError:
        # Another transaction took this deal number or this entry key first.
        series = Series.objects.get(pk=series_id)
        if entry_key is not None:
            earlier = Deal.objects.filter(entry_key=entry_key, series_id=series_id).first()
            if earlier is not None:
                return Recorded(series, Entry.RETRY, earlier)
        return Recorded(series, Entry.STALE)


@transaction.atomic
def deal_edit(
    *,
    series_id: int,
    number: int,
    version: int,
    points: Sequence[int],
    tricks: Sequence[bool] | None,
    user=None,
    via: str = "",
) -> Series:
    """Change an earlier deal; everything after it is scored again.

    ``version`` is the series' version the edit form was shown at: if the series has changed
    since, ``DealConflict`` is raised and nothing changes (the other device's change stands),
    unless the deal already holds these values (a double tap on "Save": nothing to do). Raises
    ``InvalidDeal`` if the new values are refused, or if a later deal no longer fits (for
    example the series would now end before it), and changes nothing then.
    """
    series = _locked(series_id)
    stale = series.version != version
    rows = _rows(series)
    if not 1 <= number <= len(rows):
        raise DealConflict(f"there is no deal {number}")
    row = rows[number - 1]
    running = engine_series(series, rows[: number - 1])
    in_play = running.in_play
    try:
        try:
            deal = rules.Deal(tuple(points), None if tricks is None else tuple(tricks))
        except rules.InvalidDeal as error:
            raise error.in_deal(number) from None
        running.add(deal)  # InvalidDeal naming the deal when it is for the wrong number of sides
    except rules.InvalidDeal:
        if stale:  # refused against a series that is no longer the one the form showed
            raise DealConflict(f"series {series.pk} changed since the form was shown") from None
        raise
    values = row_values(deal, in_play)
    before = row_snapshot(row)
    for name, value in values.items():
        setattr(row, name, value)
    if row_snapshot(row) == before:
        return series  # nothing changes: a repeated submission of the same edit
    if stale:
        raise DealConflict(f"series {series.pk} changed since the form was shown")
    state = replay_rows(series, rows)  # InvalidDeal names the first deal that no longer fits
    row.save()
    _event(
        series,
        number,
        DealEvent.Action.EDITED,
        before=before,
        after=row_snapshot(row),
        user=user,
        via=via,
    )
    series_refresh(series, state)
    return series


@transaction.atomic
def deal_undo(*, series_id: int, number: int, version: int, user=None, via: str = "") -> Series:
    """Remove the last deal, ``number``, as the undo button shown at ``version`` of the series.

    If the series has changed since (a deal recorded, edited or undone elsewhere, or this undo
    already done), ``DealConflict`` is raised and nothing changes: an old undo never removes a
    deal its phone has not seen. The removed deal's one-time key stays spent (``Entry.SPENT``).
    """
    series = _locked(series_id)
    if series.version != version:
        raise DealConflict(f"series {series.pk} changed since the undo button was shown")
    rows = _rows(series)
    if number < 1 or number != len(rows):
        raise DealConflict(f"deal {number} is not the last deal")
    row = rows[-1]
    before = row_snapshot(row)
    row.delete()
    _event(
        series,
        number,
        DealEvent.Action.REMOVED,
        before=before,
        user=user,
        via=via,
        entry_key=row.entry_key,
    )
    series_refresh(series, replay_rows(series, rows[:-1]))
    return series


class NothingToRedo(DealConflict):
    """No undone deal to put back: something happened since the undo (or there was none)."""


@transaction.atomic
def deal_redo(*, series_id: int, number: int, version: int, user=None, via: str = "") -> Recorded:
    """Put the deal the last undo removed back, as deal ``number`` again.

    Only from the board shown right after the undo (``version``) and only while nothing else
    has happened since: else ``NothingToRedo`` and nothing changes. The deal is recorded anew,
    without a one-time key: the key of the form that first recorded it stays spent.
    """
    series = _locked(series_id)
    event = last_undone(series) if series.version == version else None
    # A removed deal's event holds the deal as it was (``before``); one without it has nothing.
    before = event.before if event is not None and event.number == number else None
    if before is None:
        raise NothingToRedo(f"nothing to put back as deal {number} of series {series.pk}")
    rows = _rows(series)
    running = engine_series(series, rows)
    in_play = running.in_play
    sides = [side for side, points in enumerate(before["points"]) if points is not None]
    if sides != list(in_play):
        raise NothingToRedo(f"deal {number} was for other sides than the ones now in play")
    deal = rules.Deal(
        tuple(before["points"][side] for side in sides),
        tuple(bool(before["tricks"][side]) for side in sides),
    )
    running.add(deal)
    row = Deal.objects.create(
        series=series,
        number=number,
        recorded_by=user if user is not None and user.is_authenticated else None,
        **row_values(deal, in_play),
    )
    _event(series, number, DealEvent.Action.RECORDED, after=row_snapshot(row), user=user, via=via)
    series_refresh(series, running.state)
    return Recorded(series, Entry.NEW, row)


@transaction.atomic
def series_players_change(
    *, series: Series, names: Sequence[str], known: QuerySet[Player] | None = None
) -> Series:
    """Seat these players (by name, in seat order) in a quick game, in place of its players.

    A quick game's player may sit in the creator's other games too: the seat gets another
    player (found among ``known`` by name, or new) instead of renaming the one it had, so
    earlier games keep their names. The scores stay as they are.
    """
    series = _locked(series.pk)
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
