"""The table: start a game, the scoreboard, enter, edit and undo deals, rematch, links.

Views parse input with a form, call one service and render; the scoreboard is one template with
named partials, and an htmx request gets the partial while a plain request gets the page.
"""

from __future__ import annotations

import re
import uuid

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scoring import rules
from scoring.access import (
    SCORE,
    SESSION_LINKS,
    SeriesAccess,
    league_for,
    league_role,
    remember_link,
    series_access,
)
from scoring.history.selectors import recent_series
from scoring.models import Deal, League, Role, Series
from scoring.modes import SHAPES
from scoring.rulesets import rules_note
from scoring.table import selectors, services
from scoring.table.forms import (
    MAX_DEALS,
    DealForm,
    SeriesForm,
    UndoForm,
    engine_message,
    series_initial,
)
from scoring.table.scoreboard import Scoreboard, build, goat_title
from scoring.views import CONFLICT, UNPROCESSABLE, HtmxHttpRequest

STOP_POLLING = 286  # htmx stops polling on this status


def _scorer(request: HtmxHttpRequest, pk: int) -> SeriesAccess:
    access = selectors.series_for_request(request, pk)
    if not access.can_score:
        raise PermissionDenied(_("You can watch this series but not score it."))
    return access


def _via(request: HtmxHttpRequest, access: SeriesAccess) -> str:
    return "account" if request.user.is_authenticated else "score link"


def _board(series: Series) -> Scoreboard:
    return build(series, list(Deal.objects.filter(series=series).order_by("number")))


def _deal_form(board: Scoreboard, data=None, **kwargs) -> DealForm:
    sides = [(side.index, side.name) for side in board.in_play]
    initial = {"number": board.next_number, "entry_key": uuid.uuid4()}
    return DealForm(data, sides=sides, initial=initial, **kwargs)


def _render_board(
    request: HtmxHttpRequest,
    access: SeriesAccess,
    *,
    board: Scoreboard | None = None,
    form: DealForm | None = None,
    notice: str = "",
    status: int = 200,
) -> HttpResponse:
    board = board or _board(access.series)
    if form is None and access.can_score and not board.state.finished:
        form = _deal_form(board)
    rematch = _rematch_followed(request, access) if board.state.finished else None
    context = {
        "access": access,
        "rematch": rematch,
        "board": board,
        "series": access.series,
        "form": form,
        "notice": notice,
        "goat_title": goat_title(board) if board.state.finished else "",
        "rules_note": rules_note(board.state.rules, sides=board.sides_count),
    }
    template = "scoring/series.html#scoreboard" if request.htmx else "scoring/series.html"
    return render(request, template, context, status=status)


def _rematch_followed(request: HtmxHttpRequest, access: SeriesAccess) -> Series | None:
    """The rematch of a finished series, if one was started; a phone that holds a link to this
    series gets the same kind of link to the rematch (scoring or watching): the same table."""
    rematch = access.series.rematches.order_by("pk").first()
    if rematch is None or rematch.league_id is not None or access.link is None:
        return rematch
    token = rematch.score_token if access.link == SCORE else rematch.watch_token
    held = request.session.get(SESSION_LINKS, {}).get(str(rematch.pk))
    if held not in (token, rematch.score_token):  # never a watch link over a score link
        remember_link(request, rematch, token)
    return rematch


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    recent = recent_series(request)
    # The newest game: "Back to the game" while it is on, "Same table again" once it is over.
    newest = max(recent, key=lambda series: (series.created_at, series.pk), default=None)
    return render(request, "scoring/home.html", {"recent": recent, "newest": newest})


def _league_param(request: HtmxHttpRequest) -> League | None:
    """The league a new game is for (``?league=``): 404 for outsiders, 403 for viewers."""
    league_id = request.GET.get("league") or request.POST.get("league")
    if not league_id:
        return None
    if not re.fullmatch(r"[0-9]{1,18}", str(league_id)):
        raise Http404("No such league.")
    league, _role = league_for(request, int(league_id), Role.OWNER, Role.SCORER)
    return league


def _again(request: HtmxHttpRequest) -> tuple[dict, League | None] | None:
    """The new-game form filled in from a series (``?again=``): same seats and rules, next dealer.

    The game goes to the series' league when this user may start games there, else it is a
    quick game with the same names.
    """
    pk = request.GET.get("again", "")
    if not re.fullmatch(r"[0-9]{1,18}", pk):
        return None
    series = selectors.series_for_request(request, int(pk)).series
    names = [seat.player.name for seat in series.seats.all()]
    initial = series_initial(
        mode=series.mode,
        names=names,
        first_dealer=services.rematch_dealer(series),
        ruleset=series.ruleset,
    )
    league = None
    if league_role(request, series.league_id) in (Role.OWNER, Role.SCORER):
        league = series.league
    return initial, league


@require_http_methods(["GET", "POST"])
def series_new(request: HtmxHttpRequest) -> HttpResponse:
    league = _league_param(request)
    initial: dict = {}
    again = _again(request) if request.method == "GET" else None
    if again is not None:
        initial, league = again
    elif league is not None:
        ruleset = rules.Ruleset.from_dict(league.rules)
        initial = {"preset": ruleset.preset_name or "custom", **ruleset.to_dict()}
    known = selectors.known_players(request) if league is None else league.players.all()
    if request.method == "POST":
        form = SeriesForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            series = services.series_create(
                mode=data["mode"],
                names=data["names"],
                first_dealer=data["first_dealer"],
                ruleset=data["ruleset"],
                league=league,
                known=known,
                user=request.user,
            )
            remember_link(request, series, series.score_token)
            return redirect(series)
        status = UNPROCESSABLE
    else:
        form = SeriesForm(initial=initial)
        status = 200
    context = {
        "form": form,
        "league": league,
        "again_dealer": initial[f"player_{initial['first_dealer']}"] if again else "",
        "known_names": sorted({p.name for p in known[:200]}, key=str.casefold),
        "shapes": SHAPES,
    }
    return render(request, "scoring/series_new.html", context, status=status)


@require_GET
def series_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _render_board(request, selectors.series_for_request(request, pk))


def _posted_entry(request: HtmxHttpRequest) -> tuple[int | None, uuid.UUID | None]:
    """The deal number and one-time key a deal form carries, or None where they are malformed."""
    number = request.POST.get("number", "")
    try:
        key = uuid.UUID(request.POST.get("entry_key", ""))
    except ValueError:
        key = None
    return (int(number) if re.fullmatch(r"[0-9]{1,9}", number) else None), key


@require_POST
def deal_record(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    series = access.series
    number, key = _posted_entry(request)
    # The deals first, then the key: a first tap that commits in between is then either seen by
    # the key check or (not yet in the deals) found again by the service under its lock.
    board = _board(series)
    if key is not None and Deal.objects.filter(series=series, entry_key=key).exists():
        return _recorded(request, pk)  # a retry (a double tap, a lost answer): nothing new
    if number is not None and 1 <= number <= MAX_DEALS and number != board.next_number:
        # A form for a deal that was recorded (or undone) elsewhere since it was shown.
        return _conflict(request, pk, number < board.next_number)
    if board.state.finished:
        notice = _("The series is over; no deal can be added.")
        return _render_board(request, access, board=board, notice=notice, status=UNPROCESSABLE)
    form = _deal_form(board, request.POST)
    if not form.is_valid():
        return _render_board(request, access, board=board, form=form, status=UNPROCESSABLE)
    data = form.cleaned_data
    try:
        services.deal_record(
            series_id=series.pk,
            number=data["number"],
            points=data["points"],
            tricks=data["tricks"],
            entry_key=data.get("entry_key"),
            user=request.user,
            via=_via(request, access),
        )
    except rules.InvalidDeal as error:
        form.add_error(None, engine_message(error))
        return _render_board(request, access, board=board, form=form, status=UNPROCESSABLE)
    except services.DealConflict:
        return _conflict(request, pk, True)
    return _recorded(request, pk)


def _recorded(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """After a deal is recorded: the fresh scoreboard for htmx, else back to the page."""
    if request.htmx:
        return _render_board(request, selectors.series_for_request(request, pk))
    return redirect("series_detail", pk=pk)


def _conflict(request: HtmxHttpRequest, pk: int, recorded_elsewhere: bool) -> HttpResponse:
    if recorded_elsewhere:
        notice = _("This deal was just recorded from another device. Here is the fresh score.")
    else:
        notice = _("A deal was undone from another device. Here is the fresh score.")
    return _render_board(
        request, selectors.series_for_request(request, pk), notice=notice, status=CONFLICT
    )


@require_http_methods(["GET", "POST"])
def deal_edit(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    access = _scorer(request, pk)
    series = access.series
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    if not 1 <= number <= len(rows):
        raise Http404("No such deal.")
    before = build(series, rows[: number - 1])
    row = rows[number - 1]
    sides = [(side.index, side.name) for side in before.in_play]
    status = 200
    if request.method == "POST":
        form = DealForm(request.POST, sides=sides, entry=False)
        if form.is_valid():
            try:
                services.deal_edit(
                    series_id=series.pk,
                    number=number,
                    points=form.cleaned_data["points"],
                    tricks=form.cleaned_data["tricks"],
                    user=request.user,
                    via=_via(request, access),
                )
            except rules.InvalidDeal as error:
                form.add_error(None, engine_message(error))
                if error.number is not None and error.number != number:
                    form.add_error(
                        None, _("Undo the deals after it first, or change it otherwise.")
                    )
            except services.DealConflict:
                messages.warning(request, _("That deal was removed from another device."))
                return redirect(series)
            else:
                messages.success(request, _("Deal %(number)s changed.") % {"number": number})
                return redirect(series)
        status = UNPROCESSABLE
    else:
        initial: dict[str, object] = {}
        for side, _name in sides:
            initial[f"points_{side}"] = row.points[side]
            initial[f"tricks_{side}"] = "yes" if row.tricks[side] else "no"
        form = DealForm(sides=sides, initial=initial, entry=False)
    context = {"access": access, "series": series, "form": form, "number": number}
    return render(request, "scoring/deal_edit.html", context, status=status)


@require_POST
def deal_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return _render_board(request, access, notice=_("Nothing to undo."), status=UNPROCESSABLE)
    number = form.cleaned_data["number"]
    try:
        services.deal_undo(
            series_id=access.series.pk,
            number=number,
            user=request.user,
            via=_via(request, access),
        )
    except services.DealConflict:
        notice = _("A newer deal was recorded from another device; nothing was undone.")
        return _render_board(
            request, selectors.series_for_request(request, pk), notice=notice, status=CONFLICT
        )
    done = _("Deal %(number)s undone.") % {"number": number}
    if request.htmx:
        return _render_board(request, selectors.series_for_request(request, pk), notice=done)
    messages.info(request, done)
    return redirect(access.series)


@require_POST
def series_rematch(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    try:
        rematch = services.series_rematch(series=access.series, user=request.user)
    except services.SeriesNotOver:
        notice = _("This series is still being played: finish it first, or start a new game.")
        return _render_board(request, access, notice=notice, status=CONFLICT)
    remember_link(request, rematch, rematch.score_token)
    if request.htmx:
        return HttpResponseClientRedirect(rematch.get_absolute_url())
    return redirect(rematch)


@require_GET
def series_live(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Polled by a watching phone: 204 while nothing changed, else the fresh scoreboard.

    A poll that has lost its access (the link was renewed) gets htmx's "stop polling" status,
    286, with a word for the watcher instead of a 404 every few seconds; a poll for a series that
    does not exist gets the same answer, so it tells nothing about which series exist.
    """
    fields = ("league_id", "score_token", "watch_token", "version")
    series = Series.objects.only(*fields).filter(pk=pk).first()
    try:
        if series is None:
            raise Http404("No such series.")
        series_access(request, series)
    except Http404:
        if not request.htmx:
            raise
        return render(request, "scoring/series.html#link-gone", status=STOP_POLLING)
    if request.GET.get("version", "") == str(series.version):
        return HttpResponse(status=204)
    return _render_board(request, selectors.series_for_request(request, pk))


@require_GET
def link_join(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Open a series through its score or watch link, and remember the link in this browser."""
    series = Series.objects.filter(score_token=token).first() or get_object_or_404(
        Series, watch_token=token
    )
    # A watching link never takes away the scoring link this browser already holds.
    if request.session.get(SESSION_LINKS, {}).get(str(series.pk)) != series.score_token:
        remember_link(request, series, token)
    return redirect(series)


@require_POST
def link_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Replace a link with a new one: whoever held the old one loses access."""
    access = selectors.series_for_request(request, pk)
    if not access.can_manage:
        raise PermissionDenied(_("Only the series' owner can change its links."))
    which = request.POST.get("link")
    if which not in ("score", "watch"):
        return _render_board(
            request, access, notice=_("Choose a link to renew."), status=UNPROCESSABLE
        )
    series = services.series_link_renew(series=access.series, link=which)
    if which == "score" and series.league_id is None:
        remember_link(request, series, series.score_token)
    messages.success(request, _("The old link no longer works; share the new one."))
    return redirect(series)
