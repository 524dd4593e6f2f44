"""The table: start a game, the scoreboard, enter, edit and undo deals, rematch, links.

Views parse input with a form, call one service and render; the scoreboard is one template with
named partials, and an htmx request gets the partial while a plain request gets the page.
"""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scoring import rules, selectors, services
from scoring.access import SeriesAccess, league_for, remember_link, series_access
from scoring.forms import DealForm, SeriesForm, engine_message
from scoring.models import Deal, Role, Series, new_token
from scoring.modes import SHAPES
from scoring.scoreboard import Scoreboard, build, goat_title

UNPROCESSABLE = 422
CONFLICT = 409


def _access(request: HttpRequest, pk: int) -> SeriesAccess:
    try:
        series = selectors.series_with_seats(pk)
    except Series.DoesNotExist:
        raise Http404("No such series.") from None
    return series_access(request, series)


def _scorer(request: HttpRequest, pk: int) -> SeriesAccess:
    access = _access(request, pk)
    if not access.can_score:
        raise PermissionDenied(_("You can watch this series but not score it."))
    return access


def _via(request: HttpRequest, access: SeriesAccess) -> str:
    return "account" if request.user.is_authenticated else "score link"


def _board(series: Series) -> Scoreboard:
    return build(series, list(Deal.objects.filter(series=series).order_by("number")))


def _deal_form(board: Scoreboard, data=None, **kwargs) -> DealForm:
    sides = [(side.index, side.name) for side in board.in_play]
    initial = {"number": board.next_number, "entry_key": uuid.uuid4()}
    return DealForm(data, sides=sides, initial=initial, **kwargs)


def _render_board(
    request: HttpRequest,
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
    context = {
        "access": access,
        "board": board,
        "series": access.series,
        "form": form,
        "notice": notice,
        "goat_title": goat_title(board) if board.state.finished else "",
    }
    template = "scoring/series.html#scoreboard" if request.htmx else "scoring/series.html"
    return render(request, template, context, status=status)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    recent = selectors.recent_series(request)
    return render(request, "scoring/home.html", {"recent": recent})


@require_http_methods(["GET", "POST"])
def series_new(request: HttpRequest) -> HttpResponse:
    league = None
    league_id = request.GET.get("league") or request.POST.get("league")
    if league_id:
        if not str(league_id).isdigit():
            raise Http404("No such league.")
        league, _role = league_for(request, int(league_id), Role.OWNER, Role.SCORER)
    known = selectors.known_players(request) if league is None else league.players.all()
    if request.method == "POST":
        form = SeriesForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            with transaction.atomic():
                players = services.players_resolve(names=data["names"], league=league, known=known)
                series = services.series_start(
                    mode=data["mode"],
                    players=players,
                    first_dealer=data["first_dealer"],
                    ruleset=data["ruleset"],
                    league=league,
                    user=request.user,
                )
            remember_link(request, series, series.score_token)
            return redirect(series)
        status = UNPROCESSABLE
    else:
        initial = {}
        if league is not None:
            ruleset = rules.Ruleset.from_dict(league.rules)
            initial = {"preset": ruleset.preset_name or "custom", **ruleset.to_dict()}
        form = SeriesForm(initial=initial)
        status = 200
    context = {
        "form": form,
        "league": league,
        "known_names": sorted({p.name for p in known[:200]}, key=str.casefold),
        "shapes": SHAPES,
    }
    return render(request, "scoring/series_new.html", context, status=status)


@require_GET
def series_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _render_board(request, _access(request, pk))


@require_POST
def deal_record(request: HttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    board = _board(access.series)
    form = _deal_form(board, request.POST)
    if not form.is_valid():
        return _render_board(request, access, board=board, form=form, status=UNPROCESSABLE)
    data = form.cleaned_data
    try:
        services.deal_record(
            series_id=access.series.pk,
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
        access = _access(request, pk)
        notice = _("This deal was just recorded from another device. Here is the fresh score.")
        return _render_board(request, access, notice=notice, status=CONFLICT)
    if request.htmx:
        return _render_board(request, _access(request, pk))
    return redirect(access.series)


@require_http_methods(["GET", "POST"])
def deal_edit(request: HttpRequest, pk: int, number: int) -> HttpResponse:
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
        form = DealForm(request.POST, sides=sides)
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
            except services.DealConflict:
                messages.warning(request, _("That deal was removed from another device."))
                return redirect(series)
            else:
                messages.success(request, _("Deal %(number)s changed.") % {"number": number})
                return redirect(series)
        status = UNPROCESSABLE
    else:
        initial = {"number": number}
        for side, _name in sides:
            initial[f"points_{side}"] = row.points[side]
            initial[f"tricks_{side}"] = "yes" if row.tricks[side] else "no"
        form = DealForm(sides=sides, initial=initial)
    context = {"access": access, "series": series, "form": form, "number": number}
    return render(request, "scoring/deal_edit.html", context, status=status)


@require_POST
def deal_undo(request: HttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    number = request.POST.get("number", "")
    if not number.isdigit() or not 1 <= int(number) <= 10_000:
        return _render_board(request, access, notice=_("Nothing to undo."), status=UNPROCESSABLE)
    try:
        services.deal_undo(
            series_id=access.series.pk,
            number=int(number),
            user=request.user,
            via=_via(request, access),
        )
    except services.DealConflict:
        notice = _("A newer deal was recorded from another device; nothing was undone.")
        return _render_board(request, _access(request, pk), notice=notice, status=CONFLICT)
    if request.htmx:
        return _render_board(
            request, _access(request, pk), notice=_("Deal %(number)s undone.") % {"number": number}
        )
    messages.info(request, _("Deal %(number)s undone.") % {"number": number})
    return redirect(access.series)


@require_POST
def series_rematch(request: HttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    rematch = services.series_rematch(series=access.series, user=request.user)
    remember_link(request, rematch, rematch.score_token)
    if request.htmx:
        return HttpResponseClientRedirect(rematch.get_absolute_url())
    return redirect(rematch)


@require_GET
def series_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Polled by a watching phone: 204 while nothing changed, else the fresh scoreboard."""
    fields = ("league_id", "score_token", "watch_token", "version")
    series = get_object_or_404(Series.objects.only(*fields), pk=pk)
    series_access(request, series)
    if request.GET.get("version", "") == str(series.version):
        return HttpResponse(status=204)
    return _render_board(request, _access(request, pk))


@require_GET
def link_join(request: HttpRequest, token: str) -> HttpResponse:
    """Open a series through its score or watch link, and remember the link in this browser."""
    series = Series.objects.filter(score_token=token).first() or get_object_or_404(
        Series, watch_token=token
    )
    remember_link(request, series, token)
    return redirect(series)


@require_POST
def link_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    """Replace a link with a new one: whoever held the old one loses access."""
    access = _access(request, pk)
    if not access.can_manage:
        raise PermissionDenied(_("Only the series' owner can change its links."))
    which = request.POST.get("link")
    if which not in ("score", "watch"):
        return _render_board(
            request, access, notice=_("Choose a link to renew."), status=UNPROCESSABLE
        )
    series = access.series
    field = f"{which}_token"
    setattr(series, field, new_token())
    series.save(update_fields=[field])
    if which == "score" and series.league_id is None:
        remember_link(request, series, series.score_token)
    messages.success(request, _("The old link no longer works; share the new one."))
    return redirect(series)
