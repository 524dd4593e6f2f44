"""The table's board: the scoreboard, its live view, deals recorded, edited, undone and put back,
the names, the rematch and the links.

Views parse input with a form, call one service and answer with the board
(``scoring.table.board`` turns a series and what the request may do with it into the page's
context): an htmx request gets the board's partial, a plain request the page.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scoring import rules
from scoring.events import tables
from scoring.table import board, deals, life, proposals, selectors, services
from scoring.table.access import LeagueArchived, LinkRenewed, SeriesAccess
from scoring.table.deals import Entry
from scoring.table.forms import DealForm, SeatNamesForm, UndoForm, engine_message
from scoring.table.offline import PROPOSED_HEADER, RECORDED_HEADER
from scoring.table.scoreboard import build
from scoring.views import CONFLICT, UNPROCESSABLE, HtmxHttpRequest
from scoring.web.sessions import hold_link, visitor_of
from scoring.web.throttle import quick_game_refusal, quick_game_started

GONE = 410
STOP_POLLING = 286  # the live view's "stop polling" (htmx's convention, kept by app.js)
#: The answer to a deal form, by what ``deals.deal_record`` decided.
STATUS = {
    Entry.NEW: 200,
    Entry.RETRY: 200,
    Entry.SPENT: CONFLICT,
    Entry.STALE: CONFLICT,
    Entry.OVER: UNPROCESSABLE,
    Entry.FULL: UNPROCESSABLE,
    Entry.LIMIT: UNPROCESSABLE,
    Entry.CLOSED: UNPROCESSABLE,
    Entry.REFUSED: UNPROCESSABLE,
}


def _renewed_kindly(view):
    """A browser whose link to the game's table was renewed gets a page that says so (410), not
    a 404.

    htmx requests are sent to that page (the board's own requests cannot show a whole page); a
    deal a phone sends on its own is not recorded, and the 410 says why."""

    @functools.wraps(view)
    def wrapper(request: HtmxHttpRequest, pk: int, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, pk, *args, **kwargs)
        except LinkRenewed:
            response = render(request, "scoring/link_gone.html", {"renewed": True}, status=GONE)
            if request.htmx:
                response["HX-Redirect"] = reverse("series_detail", args=[pk])
            return response

    return wrapper


def _seen(request: HtmxHttpRequest, pk: int) -> SeriesAccess:
    """The series with its seats and what this request may do with it (404 if it may not see
    it)."""
    return selectors.series_seen(visitor_of(request), pk)


def _scorer(request: HtmxHttpRequest, pk: int) -> SeriesAccess:
    """The series with its seats, for a request that may score it (403 otherwise, also in an
    archived league)."""
    access = _seen(request, pk)
    if access.archived:
        raise LeagueArchived()
    if not access.can_score:
        raise PermissionDenied(_("You can watch this series but not score it."))
    return access


def _via(request: HtmxHttpRequest, access: SeriesAccess) -> str:
    """How a change was made, for the change log when no account made it."""
    if request.user.is_authenticated:
        return "account"
    return "creator" if access.can_manage else "score link"


def board_answer(request: HtmxHttpRequest, access: SeriesAccess, *, status: int = 200, **kwargs):
    """The board as it is now: its partial for htmx, else the page; for a club night's game, with
    its evening (and its table, on the table's page)."""
    at_table = access.table if access.token is not None else None
    evening = tables.evening_of(access.series, at_table)
    context = board.context(access, evening=evening, **kwargs)
    template = "scoring/series.html#scoreboard" if request.htmx else "scoring/series.html"
    return render(request, template, context, status=status)


@require_GET
@_renewed_kindly
def series_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A game's own page: its board, which follows the game while its table plays it, and stays
    as the record of it afterwards."""
    undone = request.GET.get("undone") == "1"  # the page an undo without htmx comes back to
    return board_answer(request, _seen(request, pk), undone=undone)


@require_POST
@_renewed_kindly
def deal_record(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A deal form: recorded, or why not, decided under the series' lock, where its deals are
    replayed once; the answer's board is built from that replay."""
    access = _scorer(request, pk)
    form = board.posted_deal_form(access.series, request.POST)
    posted = form.posted()  # the number and key parse even where the points do not
    if posted["number"] is None:  # not a form the page wrote: nothing to decide on
        return board_answer(request, access, form=form, status=UNPROCESSABLE)
    via = _via(request, access)
    outcome = deals.deal_record(
        series_id=pk, user=request.user, via=via, organiser=access.can_manage, **posted
    )
    outcome.series.table = access.series.table  # the same table, with its links
    now = board.outcome_board(outcome)
    if outcome.recorded and not request.htmx:
        if outcome.sent is not None:
            messages.warning(request, board.outcome_notice(outcome, now, posted["number"]))
        return redirect(board.page_url(access))
    # The series as the service left it, its derived values stored.
    fresh = dataclasses.replace(access, series=outcome.series)
    if outcome.error is not None:
        form.add_engine_error(outcome.error)
    shown = form if outcome.entry is Entry.REFUSED else board.kept_form(now, outcome, request.POST)
    notice = board.outcome_notice(outcome, now, posted["number"])
    status = STATUS[outcome.entry]
    response = board_answer(request, fresh, board=now, form=shown, notice=notice, status=status)
    if outcome.recorded and outcome.deal is not None:
        response[RECORDED_HEADER] = str(outcome.deal.number)
    return response


@require_POST
@_renewed_kindly
def deal_propose(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A deal the phone kept while its game closed, sent to the organiser as a proposal: the
    board, saying so, with the proposal's key in ``X-Kozel-Proposed`` (or, for a deal recorded
    already, its number in ``X-Kozel-Recorded``)."""
    access = _scorer(request, pk)
    shown = board.load(access.series)
    form = DealForm(request.POST, sides=[(side.index, side.name) for side in shown.in_play])
    posted = form.posted()
    if posted["number"] is None or posted["entry_key"] is None or posted["points"] is None:
        return board_answer(request, access, board=shown, form=form, status=UNPROCESSABLE)
    try:
        proposal = proposals.proposal_send(
            series_id=pk,
            number=posted["number"],
            entry_key=posted["entry_key"],
            points=posted["points"],
            tricks=posted["tricks"],
            sides=posted["sides"],
        )
    except proposals.ProposalRefused as refused:
        return board_answer(request, access, notice=refused.message, status=CONFLICT)
    fresh = _seen(request, pk)
    if proposal is None:  # recorded already: its answer was lost on the way
        response = board_answer(request, fresh)
        response[RECORDED_HEADER] = str(posted["number"])
        return response
    notice = _(
        "Sent to the organiser: they add deal %(n)s to the round or decline it, and this phone "
        "shows which."
    ) % {"n": posted["number"]}
    response = board_answer(request, fresh, notice=notice)
    response[PROPOSED_HEADER] = str(proposal.entry_key)
    return response


@require_http_methods(["GET", "POST"])
@_renewed_kindly
def deal_edit(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    access = _scorer(request, pk)
    # A closed round's deal is corrected by an organiser only (``life``; the service decides
    # again under the series' lock).
    if life.changes_refusal(access.series, organiser=access.can_manage) is not None:
        return board_answer(request, access, status=CONFLICT if request.method == "POST" else 200)
    found = _edited_deal(access.series, number)
    if found is None:
        if request.method == "POST":  # undone elsewhere while this form was open
            return _edit_stale(request, pk, number)
        raise Http404("No such deal.")
    if request.method == "GET":
        return _edit_page(request, access, number, _edit_form(access.series, *found))
    form = DealForm(request.POST, sides=found[1], entry=False)
    if not form.is_valid():
        if request.POST.get("version") != str(access.series.version):
            return _edit_stale(request, pk, number)  # errors about a deal it did not show
        return _edit_page(request, access, number, form, status=UNPROCESSABLE)
    return _edit_save(request, access, number, form)


def _edit_save(
    request: HtmxHttpRequest, access: SeriesAccess, number: int, form: DealForm
) -> HttpResponse:
    """An edit form that parsed: saved (and said from what to what), or why not."""
    try:
        edited = deals.deal_edit(
            series_id=access.series.pk,
            number=number,
            version=form.cleaned_data["version"],
            points=form.cleaned_data["points"],
            tricks=form.cleaned_data["tricks"],
            user=request.user,
            via=_via(request, access),
            organiser=access.can_manage,
        )
    except rules.InvalidDeal as error:
        form.add_error(None, engine_message(error))
        if error.number is not None and error.number != number:
            form.add_error(None, _("Undo the deals after it first, or change it otherwise."))
        return _edit_page(request, access, number, form, status=UNPROCESSABLE)
    except deals.DealConflict:
        return _edit_stale(request, access.series.pk, number)
    except deals.SeriesClosed:
        return board_answer(request, access, status=CONFLICT)
    names = [side.name for side in board.load(access.series).sides]
    messages.success(request, board.edited_message(number, edited, names))
    return redirect(board.page_url(access))


def _edited_deal(series, number: int):
    """Deal ``number`` and the sides in play when it was dealt; None if there is no such deal."""
    rows = selectors.series_deals(series)
    if not 1 <= number <= len(rows):
        return None
    before = build(series, rows[: number - 1])
    return rows[number - 1], [(side.index, side.name) for side in before.in_play]


def _edit_form(series, row, sides: list[tuple[int, str]]) -> DealForm:
    """The edit form filled in with the deal as stored, and the version it is shown at."""
    initial: dict = {"version": series.version}
    for side, _name in sides:
        initial[f"points_{side}"] = row.points[side]
        initial[f"tricks_{side}"] = "yes" if row.tricks[side] else "no"
    return DealForm(sides=sides, initial=initial, entry=False)


def _edit_page(request, access, number, form, *, notice: str = "", status: int = 200):
    context = {
        "access": access,
        "series": access.series,
        "form": form,
        "number": number,
        "notice": notice,
    }
    return render(request, "scoring/deal_edit.html", context, status=status)


def _edit_stale(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """An edit from a form shown before the series changed: nothing is saved (409). The deal as
    it is now, to edit again, or the scoreboard if the deal has been undone."""
    access = _seen(request, pk)
    found = _edited_deal(access.series, number)
    if found is None:
        notice = _("That deal was undone from another device; nothing was saved.")
        return board_answer(request, access, notice=notice, status=CONFLICT)
    form = _edit_form(access.series, *found)
    notice = _(
        "The score changed on another device since you opened this page; nothing was saved. "
        "Here is the deal as it is now."
    )
    return _edit_page(request, access, number, form, notice=notice, status=CONFLICT)


@require_POST
@_renewed_kindly
def deal_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    # The board says what was undone, beside the deals, with a way to put it back.
    changed = _(
        "The score changed on another device since this page was shown; nothing was undone."
    )
    refused = (deals.DealConflict, deals.SeriesClosed)
    return _take_back(request, pk, deals.deal_undo, _("Nothing to undo."), changed, refused, True)


@require_POST
@_renewed_kindly
def deal_redo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Put back the deal the last undo removed, from the board shown right after it."""
    changed = _("The score changed on another device since the undo; the deal was not put back.")
    refused = (deals.NothingToRedo, deals.SeriesClosed, rules.InvalidDeal)
    return _take_back(request, pk, deals.deal_redo, _("Nothing to put back."), changed, refused)


def _take_back(
    request: HtmxHttpRequest,
    pk: int,
    change: Callable[..., object],
    nothing: str,
    changed: str,
    refused: tuple[type[Exception], ...],
    undone: bool = False,
) -> HttpResponse:
    """An undo (``undone``) or a put-back: ``change`` called with the form's deal and version,
    then the fresh board; ``nothing`` for a form that does not parse, ``changed`` when the
    series changed since (``refused``: what ``change`` raises then)."""
    access = _scorer(request, pk)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return board_answer(request, access, notice=nothing, status=UNPROCESSABLE)
    data = form.cleaned_data
    try:
        change(
            series_id=pk,
            number=data["number"],
            version=data["version"],
            user=request.user,
            via=_via(request, access),
        )
    except refused:
        fresh = _seen(request, pk)
        return board_answer(request, fresh, notice=changed, status=CONFLICT)
    if request.htmx:
        return board_answer(request, _seen(request, pk), undone=undone)
    return redirect(access.series.get_absolute_url() + ("?undone=1" if undone else ""))


@require_POST
@_renewed_kindly
def series_players(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Change who sits at a quick game's seats (the names a quick start gave them, say)."""
    access = _seen(request, pk)
    if not board.offers_names(access):
        raise PermissionDenied(_("Only whoever started this game can change its names."))
    form = SeatNamesForm(request.POST, shape=access.series.shape)
    if not form.is_valid():
        return board_answer(request, access, names_form=form, status=UNPROCESSABLE)
    services.series_players_change(
        series=access.series,
        names=form.cleaned_data["names"],
        known=selectors.known_players(visitor_of(request)),
    )
    messages.success(request, _("Names changed."))
    return redirect(board.page_url(access))


@require_POST
@_renewed_kindly
def series_rematch(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The rematch, at the same table: every phone of the table goes on to it."""
    access = _scorer(request, pk)
    # A rematch of a quick game is a new quick game (a second tap opens the same one).
    quick = access.series.league_id is None and not access.series.rematches.exists()
    if quick and access.series.finished and (refusal := quick_game_refusal(request)):
        return board_answer(request, access, notice=refusal, status=UNPROCESSABLE)
    try:
        rematch = services.series_rematch(series=access.series, user=request.user)
    except services.RematchRefused as refused:
        return board_answer(request, access, notice=refused.message, status=CONFLICT)
    if quick:
        quick_game_started(request)
    token = board.live_token(access)
    shown = reverse("table_link", args=[token]) if token else rematch.get_absolute_url()
    if request.htmx:
        return HttpResponseClientRedirect(shown)
    return redirect(shown)


@require_POST
@_renewed_kindly
def link_renew(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Replace a link of a kitchen table with a new one: whoever held the old one loses access
    to its games; this phone, which manages them, takes the new one."""
    access = _seen(request, pk)
    if access.archived:
        raise LeagueArchived()
    table = access.table
    if not access.can_manage or table is None or table.event_id is not None:
        raise PermissionDenied(_("Only whoever started this game can change its links."))
    which = request.POST.get("link")
    if which not in ("score", "watch"):
        notice = _("Choose a link to renew.")
        return board_answer(request, access, notice=notice, status=UNPROCESSABLE)
    table = services.table_link_renew(table=table, link=which)
    if which == "score" and table.score_token is not None:
        hold_link(request, table, table.score_token)
    messages.success(request, _("The old link no longer works; share the new one."))
    return redirect(board.page_url(access))
