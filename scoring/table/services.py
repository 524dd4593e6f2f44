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
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from scoring import rules
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
    engine_series,
    replay_rows,
    row_snapshot,
    row_values,
)
from scoring.table.selectors import entry_key_use, last_undone

#: How an organiser's change to a closed series is kept in the change log (``DealEvent.via``).
CORRECTION = "correction"


class DealConflict(Exception):
    """The deal was changed from another device since this form was shown."""


class SeriesNotOver(Exception):
    """A rematch was asked for a series that is still being played."""


class SeriesClosed(Exception):
    """The series is closed (a club night's round is over): only an organiser corrects it."""


class Entry(enum.StrEnum):
    """What a deal form asks of its series as the series stands, decided by ``deal_record``
    under the series' lock."""

    NEW = "new"  # the next deal: recorded
    RETRY = "retry"  # this form's deal is recorded already (a double tap, a lost answer)
    SPENT = "spent"  # this form's deal was recorded and undone since: its key stays spent
    STALE = "stale"  # the form was for another deal, recorded or undone elsewhere since
    OVER = "over"  # the series has ended: no deal can be added
    FULL = "full"  # the series holds MAX_DEALS deals
    LIMIT = "limit"  # the series holds its ``deal_limit`` deals (a club night's round of N deals)
    CLOSED = "closed"  # the series' round of a club night is over
    REFUSED = "refused"  # the rules refuse these card points (``Recorded.error`` says why)


class Edited(NamedTuple):
    """An edit: the series after it, and the deal before and after (the same: nothing to do)."""

    series: Series
    before: dict[str, list]
    after: dict[str, list]


@dataclass(frozen=True)
class Recorded:
    """The outcome of a deal form. ``deal``: the recorded deal, for NEW and RETRY; ``error``:
    the engine's refusal, for REFUSED; ``sent``: for a RETRY whose form carried other points
    than the deal recorded under its key, what it carried (per original side, as stored)."""

    series: Series
    entry: Entry
    deal: Deal | None = None
    error: rules.InvalidDeal | None = None
    sent: dict[str, Any] | None = None

    @property
    def created(self) -> bool:
        """Whether this form recorded its deal now."""
        return self.entry is Entry.NEW

    @property
    def recorded(self) -> bool:
        """Whether the form's deal is on the record (now or before)."""
        return self.entry in (Entry.NEW, Entry.RETRY)


def _entry(
    series: Series,
    running: rules.Series,
    rows: Sequence[Deal],
    *,
    number: int,
    entry_key: uuid.UUID | None,
    now: datetime,
) -> tuple[Entry, int | None]:
    """What a deal form for deal ``number`` with ``entry_key`` asks of the series (read under
    its lock): the one place this is decided. With RETRY comes the recorded deal's id."""
    used = entry_key_use(entry_key) if entry_key is not None else None
    if used is not None:
        if used.series_id != series.pk:
            return Entry.STALE, None  # a form of another series: nothing here is its deal
        return (Entry.SPENT, None) if used.undone else (Entry.RETRY, used.pk)
    next_number = len(rows) + 1
    if number != next_number:
        return Entry.STALE, None
    if running.state.finished:
        return Entry.OVER, None
    if series.deal_limit is not None and next_number > series.deal_limit:
        return Entry.LIMIT, None
    if _closed(series, rows, now):
        return Entry.CLOSED, None
    if next_number > MAX_DEALS:
        return Entry.FULL, None
    return Entry.NEW, None


def _closed(series: Series, rows: Sequence[Deal], now: datetime) -> bool:
    """Whether the series takes no more deals because its round is over: closed by the
    organiser or by its deal limit, or its round's time is up and the deal that was being
    played then has been recorded (a deal recorded at or after ``closes_at``)."""
    if series.closed_at is not None:
        return True
    if series.closes_at is None or now < series.closes_at:
        return False
    return bool(rows) and rows[-1].created_at >= series.closes_at


def _closes_after(series: Series, deal_count: int, now: datetime) -> bool:
    """Whether the deal just recorded closes the series: its round's last deal (the deal limit),
    or the deal that was being played when the round's time ran out."""
    if series.deal_limit is not None and deal_count >= series.deal_limit:
        return True
    return series.closes_at is not None and now >= series.closes_at


def _locked(series_id: int) -> Series:
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


def _open(series: Series, *, correction: bool = False) -> None:
    """Refuse a change to a closed series, but an organiser's correction."""
    if series.closed_at is not None and not correction:
        raise SeriesClosed(f"series {series.pk} is closed")


def _rows(series: Series) -> list[Deal]:
    return list(Deal.objects.filter(series=series).order_by("number"))


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
    DealEvent.objects.create(
        series=series,
        number=number,
        action=action,
        before=before,
        after=after,
        actor=_account(user),
        via=via,
        entry_key=entry_key,
    )


def _account(user):
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
        created_by=_account(user),
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
    series = _locked(series_id)
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
    """A new scoring or watching link for a series: whoever held the old one is locked out, and
    holders of the earlier game's links are no longer handed this one
    (``access.followed_link``)."""
    if link not in ("score", "watch"):
        raise ValueError(f"there is no {link!r} link")
    setattr(series, f"{link}_token", new_token())
    setattr(series, f"{link}_renewed_at", timezone.now())
    series.save(update_fields=[f"{link}_token", f"{link}_renewed_at"])
    return series


def deal_record(
    *,
    series_id: int,
    number: int,
    points: Sequence[int] | None,
    tricks: Sequence[bool] | None,
    sides: Sequence[int] | None = None,
    entry_key: uuid.UUID | None = None,
    user=None,
    via: str = "",
) -> Recorded:
    """Record deal ``number`` of a series (card points for the original ``sides``, in order; by
    default the sides in play; None: points that did not parse, refused if it comes to them), or
    say why not: everything is decided here, under the series' lock (``Recorded.entry``). A
    retried form gets its deal back (``sent`` says when it carried other points); a form for a
    deal another device recorded meanwhile, a spent key, a series over, full or closed, and card
    points the rules refuse change nothing."""
    try:
        with transaction.atomic():
            series = _locked(series_id)
            rows = _rows(series)
            running = engine_series(series, rows)
            now = timezone.now()
            entry, recorded_pk = _entry(
                series, running, rows, number=number, entry_key=entry_key, now=now
            )
            sides = running.in_play if sides is None else tuple(sides)
            if entry is Entry.RETRY and recorded_pk is not None:
                return _retried(series, Deal.objects.get(pk=recorded_pk), sides, points, tricks)
            if entry is not Entry.NEW:
                return Recorded(series, entry)
            if points is None:
                return Recorded(series, Entry.REFUSED)  # the form says what is wrong
            if sides != running.in_play:
                return Recorded(series, Entry.STALE)  # a form for the sides once in play
            try:
                deal = rules.Deal(tuple(points), None if tricks is None else tuple(tricks))
                running.add(deal)
            except rules.InvalidDeal as error:
                return Recorded(series, Entry.REFUSED, error=error)
            row = Deal.objects.create(
                series=series,
                number=number,
                entry_key=entry_key,
                recorded_by=_account(user),
                **row_values(deal, sides),
            )
            _event(
                series,
                number,
                DealEvent.Action.RECORDED,
                after=row_snapshot(row),
                user=user,
                via=via,
            )
            if _closes_after(series, number, now):
                series.closed_at = now
            series_refresh(series, running.state)
            return Recorded(series, entry, row)
    except IntegrityError:
        # Another transaction took this deal number or this entry key first.
        series = Series.objects.get(pk=series_id)
        if entry_key is not None:
            earlier = Deal.objects.filter(entry_key=entry_key, series_id=series_id).first()
            if earlier is not None:
                return _retried(series, earlier, sides or _sides(earlier), points, tricks)
        return Recorded(series, Entry.STALE)


def _sides(deal: Deal) -> tuple[int, ...]:
    return tuple(side for side in range(rules.MAX_SIDES) if deal.points[side] is not None)


def _retried(
    series: Series,
    deal: Deal,
    sides: Sequence[int],
    points: Sequence[int] | None,
    tricks: Sequence[bool] | None,
) -> Recorded:
    """A form sent again whose deal is recorded; ``sent``: what it carried, when that is not
    the deal on the record (changed since on another phone, or different points resent)."""
    if points is None:
        return Recorded(series, Entry.RETRY, deal)
    sent: dict[str, list] = {"points": [None] * rules.MAX_SIDES, "tricks": [None] * rules.MAX_SIDES}
    for index, side in enumerate(sides):
        sent["points"][side] = points[index]
        sent["tricks"][side] = None if tricks is None else tricks[index]
    if sent == row_snapshot(deal):
        return Recorded(series, Entry.RETRY, deal)
    return Recorded(series, Entry.RETRY, deal, sent=sent)


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
    correction: bool = False,
) -> Edited:
    """Change an earlier deal; everything after it is scored again.

    A closed series (its club night's round is over) raises ``SeriesClosed`` but for an
    organiser's ``correction``, which the change log keeps as one (``via``).

    ``version`` is the series' version the edit form was shown at: if the series has changed
    since, ``DealConflict`` is raised and nothing changes (the other device's change stands),
    unless the deal already holds these values (a double tap on "Save": nothing to do). Raises
    ``InvalidDeal`` if the new values are refused, or if a later deal no longer fits (for
    example the series would now end before it), and changes nothing then.
    """
    series = _locked(series_id)
    _open(series, correction=correction)
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
        return Edited(series, before, before)  # a repeated submission of the same edit
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
        via=CORRECTION if correction else via,
    )
    series_refresh(series, state)
    return Edited(series, before, row_snapshot(row))


@transaction.atomic
def deal_undo(*, series_id: int, number: int, version: int, user=None, via: str = "") -> Series:
    """Remove the last deal, ``number``, as the undo button shown at ``version`` of the series.

    If the series has changed since (a deal recorded, edited or undone elsewhere, or this undo
    already done), ``DealConflict`` is raised and nothing changes: an old undo never removes a
    deal its phone has not seen. The removed deal's one-time key stays spent (``Entry.SPENT``).
    """
    series = _locked(series_id)
    _open(series)
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
    _open(series)
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
        series=series, number=number, recorded_by=_account(user), **row_values(deal, in_play)
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
