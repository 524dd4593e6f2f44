"""Writes to a series' deals: record, edit, undo and put back, each one transaction under the
series' lock, each ending with ``services.series_refresh`` (the derived values a replay gives).

A deal form carries a one-time ``entry_key`` and the number of the deal it enters: a replayed
submission finds its deal again (or, once that deal is undone, is refused), and a second phone
entering the same deal is told so instead of recording it twice. An undo or an edit carries the
series' ``version`` it was shown at: after any change since, it is refused, so it never acts on
a deal its phone has not seen. A closed series (its club night's round over) takes none of them,
but an organiser's correction.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction
from django.utils import timezone

from scoring import rules
from scoring.models import Deal, DealEvent, Series
from scoring.table import life
from scoring.table.replays import engine_series, replay_rows, row_snapshot, row_values
from scoring.table.selectors import entry_key_use, last_undone
from scoring.table.services import account_of, deal_logged, series_locked, series_refresh

#: How an organiser's change to a closed series is kept in the change log (``DealEvent.via``).
CORRECTION = life.CORRECTION


class DealConflict(Exception):
    """The deal was changed from another device since this form was shown."""


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
    #: The deals as read and replayed under the lock (the new one included), and the engine's
    #: state after them: the answer's board is built from them, not replayed again.
    rows: Sequence[Deal] | None = field(default=None, repr=False)
    state: rules.SeriesState | None = field(default=None, repr=False)

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
    rows: Sequence[Deal],
    *,
    number: int,
    entry_key: uuid.UUID | None,
    correction: bool,
) -> tuple[Entry, int | None]:
    """What a deal form for deal ``number`` with ``entry_key`` asks of the series (read under
    its lock): the form's own part is decided here, the series' (may it take a deal?) by
    ``life.deal_refusal``. With RETRY comes the recorded deal's id."""
    used = entry_key_use(entry_key) if entry_key is not None else None
    if used is not None:
        if used.series_id != series.pk:
            return Entry.STALE, None  # a form of another series: nothing here is its deal
        return (Entry.SPENT, None) if used.undone else (Entry.RETRY, used.pk)
    if number != len(rows) + 1:
        return Entry.STALE, None
    stop = life.deal_refusal(series, correction=correction)
    return (Entry.NEW, None) if stop is None else (Entry(stop.value), None)


def _rows(series: Series) -> list[Deal]:
    return list(Deal.objects.filter(series=series).order_by("number"))


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
    organiser: bool = False,
) -> Recorded:
    """Record deal ``number`` of a series (card points for the original ``sides``, in order; by
    default the sides in play; None: points that did not parse, refused if it comes to them), or
    say why not: everything is decided here, under the series' lock (``Recorded.entry``). A
    retried form gets its deal back (``sent`` says when it carried other points); a form for a
    deal another device recorded meanwhile, a spent key, a series over, full or closed, and card
    points the rules refuse change nothing. ``organiser``: the person may organise the series'
    league: a closed series then takes the deal as a correction (a deal missing from its round),
    kept in the change log as one."""
    try:
        with transaction.atomic():
            series = series_locked(series_id)
            rows = _rows(series)
            running = engine_series(series, rows)
            decided = _decide(
                series,
                rows,
                running,
                number=number,
                points=points,
                tricks=tricks,
                sides=sides,
                entry_key=entry_key,
                user=user,
                via=via,
                organiser=organiser,
            )
            if decided.deal is not None and decided.created:
                rows = [*rows, decided.deal]
            return replace(decided, rows=rows, state=running.state)
    except IntegrityError:
        # Another transaction took this deal number or this entry key first.
        series = Series.objects.get(pk=series_id)
        if entry_key is not None:
            earlier = Deal.objects.filter(entry_key=entry_key, series_id=series_id).first()
            if earlier is not None:
                return _retried(series, earlier, sides or _sides(earlier), points, tricks)
        return Recorded(series, Entry.STALE)


def _decide(
    series: Series,
    rows: list[Deal],
    running: rules.Series,
    *,
    number: int,
    points: Sequence[int] | None,
    tricks: Sequence[bool] | None,
    sides: Sequence[int] | None,
    entry_key: uuid.UUID | None,
    user,
    via: str,
    organiser: bool,
) -> Recorded:
    """``deal_record``'s decision under the lock, the deal written when it is the next one."""
    now = timezone.now()
    correction = organiser and series.closed_at is not None
    entry, recorded_pk = _entry(
        series, rows, number=number, entry_key=entry_key, correction=correction
    )
    sides = running.in_play if sides is None else tuple(sides)
    if entry is Entry.RETRY and recorded_pk is not None:
        return _retried(series, Deal.objects.get(pk=recorded_pk), sides, points, tricks)
    if entry is not Entry.NEW:
        return Recorded(series, entry)
    if points is None:
        return Recorded(series, Entry.REFUSED)  # the form says what is wrong
    if sides != running.in_play and len(sides) == len(running.in_play):
        return Recorded(series, Entry.STALE)  # a form for the sides once in play
    try:
        # Points for more or fewer sides than are in play: the engine says so.
        deal = rules.Deal(tuple(points), None if tricks is None else tuple(tricks))
        running.add(deal)
    except rules.InvalidDeal as error:
        return Recorded(series, Entry.REFUSED, error=error)
    row = Deal.objects.create(
        series=series,
        number=number,
        entry_key=entry_key,
        recorded_by=account_of(user),
        **row_values(deal, tuple(sides)),
    )
    deal_logged(
        series,
        number,
        DealEvent.Action.RECORDED,
        after=row_snapshot(row),
        user=user,
        via=CORRECTION if correction else via,
    )
    if life.closes_after(series, deal_count=number, now=now):
        series.closed_at = now
    series_refresh(series, running.state)
    return Recorded(series, entry, row)


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
    organiser: bool = False,
) -> Edited:
    """Change an earlier deal; everything after it is scored again.

    A closed series (its club night's round is over) raises ``SeriesClosed`` but for an
    ``organiser`` (``life.changes_refusal``, decided here under the lock), whose change the
    change log keeps as a correction.

    ``version`` is the series' version the edit form was shown at: if the series has changed
    since, ``DealConflict`` is raised and nothing changes (the other device's change stands),
    unless the deal already holds these values (a double tap on "Save": nothing to do). Raises
    ``InvalidDeal`` if the new values are refused, or if a later deal no longer fits (for
    example the series would now end before it), and changes nothing then.
    """
    series = series_locked(series_id)
    if life.changes_refusal(series, organiser=organiser) is not None:
        raise SeriesClosed(f"series {series.pk} is closed")
    correction = series.closed_at is not None
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
    deal_logged(
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
    series = series_locked(series_id)
    if not life.takes_undo(series):
        raise SeriesClosed(f"series {series.pk} is closed")
    if series.version != version:
        raise DealConflict(f"series {series.pk} changed since the undo button was shown")
    rows = _rows(series)
    if number < 1 or number != len(rows):
        raise DealConflict(f"deal {number} is not the last deal")
    row = rows[-1]
    before = row_snapshot(row)
    row.delete()
    deal_logged(
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
    series = series_locked(series_id)
    if not life.takes_undo(series):
        raise SeriesClosed(f"series {series.pk} is closed")
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
        series=series, number=number, recorded_by=account_of(user), **row_values(deal, in_play)
    )
    deal_logged(
        series, number, DealEvent.Action.RECORDED, after=row_snapshot(row), user=user, via=via
    )
    series_refresh(series, running.state)
    return Recorded(series, Entry.NEW, row)
