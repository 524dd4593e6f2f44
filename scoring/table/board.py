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

from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from scoring.access import SeriesAccess, followed_link, remember_created, remember_link
from scoring.models import MAX_DEALS, Series
from scoring.rulesets import rules_note
from scoring.table import selectors
from scoring.table.deals import Edited, Entry, Recorded
from scoring.table.forms import TYPED, DealForm, SeatNamesForm
from scoring.table.offline import app_version, board_data
from scoring.table.scoreboard import (
    Scoreboard,
    build,
    goat_tally_line,
    goat_title,
    page_title,
    score_line,
    undone_summary,
)


def load(series: Series) -> Scoreboard:
    """The board of a series: its deals read and replayed (its seats read too, unless they were
    with it)."""
    selectors.load_seats(series)
    return build(series, selectors.series_deals(series))


def takes_deals(board: Scoreboard) -> bool:
    """Whether the board offers a form for the next deal."""
    series = board.series
    return not (
        board.state.finished
        or board.next_number > MAX_DEALS
        or board.limit_reached
        or series.closed_at is not None
    )


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


#: How long a board's body is kept: until a table's next deal or so. Its key names the versions
#: it shows, so a change is never answered from an older one; a body not asked for expires.
KEPT = 3 * 60


@dataclass(frozen=True)
class Body:
    """The board inside its section, as every phone of one kind sees it at one version: the same
    for all of a table's phones, so made once and kept (``context``). What is a phone's own, the
    forms' CSRF token and the deal form's one-time key, is not in it: the page adds them to the
    forms by their id (``scoring/series.html``)."""

    title: str  # the page's title: the sides and their defeat points
    html: str
    deal_form: bool  # it holds the next deal's form (``id="deal-form"``)
    undo: bool  # and an Undo button on the last deal (``id="undo-form"``)


def context(
    request: HttpRequest,
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
    names, and whose table's link the table's phone follows from round to round.

    The board's body is rendered once per version for each kind of viewer and language, and kept
    in Django's cache: after a deal, every other phone at the table asks for the same board. Not
    kept: an answer with something of its own to say (a notice, a refused form, an undo) and a
    finished game's (its rematch is looked up for this phone)."""
    series = access.series
    rematch = _rematch(request, access) if series.finished and not evening else None
    parts = {
        "access": access,
        "series": series,
        "evening": evening,
        "rematch": rematch,
        "changes": _changes(access),
    }
    if form is None and not notice and not undone and not series.finished:
        key = _body_key(access, evening, parts["changes"])
        body = cache.get(key)
        if body is None:
            body = _body(request, parts, board or load(series))
            cache.set(key, body, KEPT)
    else:
        shown = board or load(series)
        body = _body(request, parts, shown, form=form, notice=notice, undone=undone)
    sides = series.shape.sides
    return {
        **parts,
        "body": body,
        "page_title": body.title,
        "sides_count": sides,
        "rules_note": rules_note(series.ruleset, sides=sides),
        "names_form": names_form or _names_form(access),
        "entry_key": uuid.uuid4(),  # the deal form's one-time key: fresh in every answer
    }


def _body_key(access: SeriesAccess, evening: Any, changes: str) -> str:
    """The body's key: the deploy (its build id and static files: ``app_version``), the series
    (its id and when it was made: ids come again after a database is emptied) and the versions
    it shows, who it is shown to, and in which language (the same for the page and for htmx)."""
    series = access.series
    made = series.created_at.timestamp()
    shown = evening.version if evening is not None else series.version
    viewer = f"{int(access.can_score)}{changes}{int(bool(evening and evening.link))}"
    return f"board:{app_version()}:{series.pk}:{made}:{shown}:{viewer}:{get_language()}"


def _body(
    request: HttpRequest,
    parts: dict[str, Any],
    board: Scoreboard,
    *,
    form: DealForm | None = None,
    notice: str = "",
    undone: bool = False,
) -> Body:
    access = parts["access"]
    if form is None and access.can_score and takes_deals(board):
        form = deal_form(board)
    if not notice and access.can_score and not board.state.finished:
        # Why a series not over takes no deal, when the board does not say it otherwise.
        notice = full_notice() if board.next_number > MAX_DEALS else ""
    shown: dict[str, Any] = {
        **parts,
        "board": board,
        "form": form,
        "notice": notice,
        "undone": _undone_offer(board) if undone else None,
    }
    if access.can_score:
        shown["phone_data"] = json.dumps(board_data(board))
    if board.state.finished:
        shown.update(_the_end(board))
    html = mark_safe(render_to_string("scoring/series.html#board-body", shown, request))
    undo = parts["changes"] == "any" and bool(board.deals)
    return Body(page_title(board), html, deal_form=form is not None, undo=undo)


def _changes(access: SeriesAccess) -> str:
    """What the deals' rows offer: "any" (edit, and undo the last), "edit" (an organiser's
    correction of a closed club-night table), or nothing."""
    if access.series.closed_at is None:
        return "any" if access.can_score else ""
    return "edit" if access.can_manage else ""


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


def _rematch(request: HttpRequest, access: SeriesAccess) -> Series | None:
    """The rematch of a finished series, if one was started; a phone that holds a link to this
    series gets the same kind of link to the rematch (the same table), unless the rematch's
    link was renewed since. The game's creator stays its creator, whoever tapped "Rematch"."""
    rematch = access.series.rematches.order_by("pk").first()
    if rematch is None or rematch.league_id is not None or access.link is None:
        return rematch
    token = followed_link(rematch, access.link)
    if token is not None:
        remember_link(request, rematch, token)  # never a watch link over a score link
    if access.can_manage:
        remember_created(request, rematch)
    return rematch


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
