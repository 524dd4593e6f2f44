"""The scoreboard page: a series and what a request may do with it, as its template's context.

Every answer about a series' board goes through ``context``: the page, the board alone for htmx
(the live poll, a deal recorded), a refused or conflicting deal form. The words for what became
of a deal form (``Recorded.entry``) are here too; the views only map it to a status.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.core.rulesets import rules_note
from scoring.models import MAX_DEALS, Ending, Series
from scoring.table import life, selectors
from scoring.table.access import SCORE, SeriesAccess
from scoring.table.deals import Edited, Entry, Recorded
from scoring.table.forms import TYPED, DealForm, SeatNamesForm
from scoring.table.live import version_of
from scoring.table.offline import board_data
from scoring.table.scoreboard import (
    Scoreboard,
    build,
    goat_tally_line,
    goat_title,
    page_title,
    score_line,
    side_names,
    undone_summary,
)


def load(series: Series) -> Scoreboard:
    """The board of a series: its deals read and replayed (its seats read too, unless they were
    with it)."""
    selectors.load_seats(series)
    return build(series, selectors.series_deals(series))


def takes_deals(board: Scoreboard, *, correction: bool = False) -> bool:
    """Whether the board offers a form for the next deal (``life.deal_refusal``; an organiser's
    ``correction``: a deal missing from a closed round's game)."""
    return life.deal_refusal(board.series, correction=correction) is None


def posted_deal_form(series: Series, data: Mapping[str, Any]) -> DealForm:
    """A deal form as a phone sent it, for the sides in play as the series' stored fields say
    (every side but those out: its goat, at three players), named from its seats (read with
    it). Whether they are the sides in play is for ``deals.deal_record`` to decide, under the
    series' lock, where the deals are replayed once."""
    seats = sorted(series.seats.all(), key=lambda seat: seat.position)
    names = side_names(seats, series.shape.sides)
    out = set(series.goat_sides or ())
    return DealForm(data, sides=[(side, n) for side, n in enumerate(names) if side not in out])


def outcome_board(outcome: Recorded) -> Scoreboard:
    """The board after a deal form, from what ``deals.deal_record`` read and replayed under the
    lock (read again only after a race its lock could not see: a unique key taken first)."""
    series = outcome.series
    selectors.load_seats(series)
    if outcome.rows is None or outcome.state is None:
        return build(series, selectors.series_deals(series))
    return build(series, outcome.rows, outcome.state)


def deal_form(
    board: Scoreboard,
    data: Mapping[str, Any] | None = None,
    *,
    kept: Mapping[str, Any] | None = None,
) -> DealForm:
    """The next deal's form; ``kept``: what a form for a deal taken meanwhile carried, shown
    again in this one to check and record (only fields of sides still in play)."""
    sides = [(side.index, side.name) for side in board.in_play]
    initial: dict[str, Any] = {}
    for name, value in (kept or {}).items():
        if name.startswith(TYPED) and isinstance(value, str) and len(value) <= 8:
            initial[name] = value
    return DealForm(data, sides=sides, initial=initial)


def context(
    access: SeriesAccess,
    *,
    board: Scoreboard | None = None,
    form: DealForm | None = None,
    notice: str = "",
    undone: bool = False,
    names_form: SeatNamesForm | None = None,
    evening: Any = None,
) -> dict[str, Any]:
    """What ``scoring/series.html`` (or its ``scoreboard`` partial) shows of a series;
    ``evening``: the club night it is a game of (``events.tables.Evening``), which the board
    names. ``form``: a deal form to show again (refused, or kept from a deal taken meanwhile),
    else the next deal's for whoever may score; ``undone``: the undo just made, offered back."""
    series = access.series
    board = board or load(series)
    changes = _changes(access)
    correction = _correction(access)
    if form is None and access.can_score and takes_deals(board, correction=correction):
        form = deal_form(board)
    if not notice and access.can_score and life.deal_refusal(series) is life.Stop.FULL:
        notice = full_notice()  # why a series not over takes no deal: the board says no other
    sides = series.shape.sides
    shown: dict[str, Any] = {
        "access": access,
        "series": series,
        "evening": evening,
        "board": board,
        "form": form,
        "correction": correction,
        "changes": changes,
        "notice": notice,
        "undone": _undone_offer(board) if undone else None,
        "rematch": _rematch(series, evening),
        "live": _live(access, evening),
        "page_title": page_title(board),
        "sides_count": sides,
        "rules_note": rules_note(series.ruleset, sides=sides),
        "names_form": names_form or _names_form(access),
        "entry_key": uuid.uuid4(),  # the deal form's one-time key: fresh in every answer
    }
    if access.can_score:
        # Only a club night's game takes proposals (``life.proposal_refusal``): none to read
        # for any other.
        proposals = (
            selectors.proposals_at(event_id=evening.event.pk, table=evening.table.number)
            if evening is not None
            else []
        )
        shown["phone_data"] = json.dumps(
            board_data(
                board, proposals=proposals, club_night=evening is not None, correction=correction
            )
        )
    if series.ending == Ending.GOAT:
        shown.update(_the_end(board))
    return shown


@dataclass(frozen=True)
class Live:
    """Where a board asks for news, and the version it shows (``table.live``)."""

    url: str  # the table's live view: its page's address, then "live/"
    version: str


def _live(access: SeriesAccess, evening: Any) -> Live | None:
    """How this board keeps up: through its table's live view, while the game is the one its
    table plays now (after a rematch or the next round, the table's page shows that one). A
    phone at the table asks with the link in its address; anyone else who may see the game
    with the link of the table they hold, else the one their role gives (the watch link for
    whoever may not score). None: a game of the past, which does not change by itself."""
    series = access.series
    table = series.table
    if table is None or table.series_id != series.pk:
        return None
    token = access.token or live_token(access)
    if token is None:
        return None
    event = evening.event if evening is not None else None
    return Live(reverse("table_live", args=[token]), version_of(event, series))


def page_url(access: SeriesAccess) -> str:
    """Where the game is shown to ``access``: its table's page while the table plays it (the
    page that follows the table's next game), else its own page."""
    table = access.table
    token = access.token or live_token(access)
    if table is None or table.series_id != access.series.pk or token is None:
        return access.series.get_absolute_url()
    return reverse("table_link", args=[token])


def live_token(access: SeriesAccess) -> str | None:
    """The link of its table through which ``access`` follows the game: the one held, else the
    score link for whoever may score, else the watch link (None when that one is revoked)."""
    table = access.table
    if table is None:
        return None
    if access.link == SCORE or (access.link is None and access.can_score):
        return table.score_token or table.watch_token
    return table.watch_token


def _changes(access: SeriesAccess) -> str:
    """What the deals' rows offer: "any" (edit, and undo the last), "edit" (an organiser's
    correction of a closed club-night table), or nothing (``life``)."""
    series = access.series
    if not access.can_score or life.changes_refusal(series, organiser=access.can_manage):
        return ""
    return "any" if life.takes_undo(series) else "edit"


def _correction(access: SeriesAccess) -> bool:
    """Whether this board's deal form is an organiser's correction of a closed series."""
    return access.can_manage and access.series.closed_at is not None


def full_notice() -> str:
    return ngettext(
        "This game has reached %(count)s deal, the most one game can hold. Start a new game.",
        "This game has reached %(count)s deals, the most one game can hold. Start a new game.",
        MAX_DEALS,
    ) % {"count": MAX_DEALS}


def _names_form(access: SeriesAccess) -> SeatNamesForm | None:
    """The creator's form to change who sits where, in a quick game (not in a league's)."""
    if not offers_names(access):
        return None
    names = {f"player_{seat.position}": seat.player.name for seat in access.series.seats.all()}
    return SeatNamesForm(shape=access.series.shape, initial=names)


def offers_names(access: SeriesAccess) -> bool:
    return access.can_manage and access.series.league_id is None


def _undone_offer(board: Scoreboard) -> dict | None:
    """The deal the last undo removed, while nothing happened since: what it was, to put back.

    Shown to the phone that undid it, right after (one more query, on that answer only)."""
    event = selectors.last_undone(board.series)
    if event is None or event.before is None:
        return None
    return {"number": event.number, "points": undone_summary(board, event.before["points"])}


def _the_end(board: Scoreboard) -> dict:
    """The goat moment: the headline, the final score, and this line-up's goats so far."""
    games, goats = selectors.goat_tally(board.series)
    return {
        "goat_title": goat_title(board),
        "score_line": score_line(board),
        "goat_tally": goat_tally_line(board, goats) if games > 1 else "",
    }


def _rematch(series: Series, evening: Any) -> Series | None:
    """The rematch of a game over with its goat, once one was started (none at a club night:
    the organiser's next round seats every table again). Whoever may see this game and
    holds its table's link sees the rematch there too: the table plays it now."""
    if series.ending != Ending.GOAT or evening is not None:
        return None
    return series.rematches.order_by("pk").first()


def outcome_notice(outcome: Recorded, board: Scoreboard, number: int) -> str:
    """What a phone is told about its deal form, by what ``deals.deal_record`` decided."""
    match outcome.entry:
        case Entry.RETRY if outcome.sent is not None and outcome.deal is not None:
            names = [side.name for side in board.sides]
            return _(
                "Deal %(n)s was already recorded from this form as %(recorded)s; what was sent "
                "again (%(sent)s) was not recorded. Edit the deal if it is wrong."
            ) % {
                "n": outcome.deal.number,
                "recorded": points_text(list(outcome.deal.points), names),
                "sent": points_text(outcome.sent["points"], names),
            }
        case Entry.SPENT:
            return _("The deal this form recorded has been undone; it was not recorded again.")
        case Entry.STALE if not takes_deals(board):
            if number < board.next_number:
                return _(
                    "This deal was just recorded from another device. Here is the fresh score."
                )
            return _("A deal was undone from another device. Here is the fresh score.")
        case Entry.STALE:
            values = {"taken": number, "next": board.next_number}
            if number < board.next_number:
                return (
                    _(
                        "Deal %(taken)s was just recorded on another phone; your points are kept: "
                        "check them and record them as deal %(next)s."
                    )
                    % values
                )
            return (
                _(
                    "A deal was undone on another phone; your points are kept: check them and "
                    "record them as deal %(next)s."
                )
                % values
            )
        case Entry.OVER:
            return _("The series is over; no deal can be added.")
        case Entry.FULL:
            return full_notice()
        case Entry.LIMIT:
            count = board.series.deal_limit or 0
            return ngettext(
                "Not recorded: this round's %(count)s deal has been played.",
                "Not recorded: this round's %(count)s deals have been played.",
                count,
            ) % {"count": count}
        case Entry.CLOSED:
            return _(
                "Not recorded: this round is over at this table. Tell the organiser, who can "
                "correct the round's deals."
            )
    return ""


def edited_message(number: int, edited: Edited, names: list[str]) -> str:
    """What an edit did, from what to what: "Deal 4 changed: Anna & Vera 70 → 60, …"."""
    changes = []
    for side, name in enumerate(names):
        was, now = edited.before["points"][side], edited.after["points"][side]
        if was is None or now is None:
            continue
        if was != now:
            changes.append(f"{name} {was} → {now}")
        elif edited.before["tricks"][side] != edited.after["tricks"][side]:
            took = _("took a trick") if edited.after["tricks"][side] else _("took no trick")
            changes.append(f"{name} {now}: {took}")
    if not changes:
        values = {"n": number, "points": points_text(edited.after["points"], names)}
        return _("Deal %(n)s is saved as %(points)s.") % values
    return _("Deal %(n)s changed: %(changes)s.") % {"n": number, "changes": ", ".join(changes)}


def points_text(points: list[int | None], names: list[str]) -> str:
    """Card points per side in words: "Anna & Vera 70, Boris & Gleb 50"."""
    return ", ".join(
        f"{name} {value}" for name, value in zip(names, points, strict=False) if value is not None
    )


def kept_form(board: Scoreboard, outcome: Recorded, posted: Mapping[str, Any]) -> DealForm | None:
    """The form a conflicting deal form comes back as: its points kept in the next deal's form
    (a deal taken meanwhile), else none beyond the board's own."""
    if outcome.entry is Entry.STALE and takes_deals(board):
        return deal_form(board, kept=posted)
    return None
