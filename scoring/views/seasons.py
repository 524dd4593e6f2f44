"""A league's seasons: the list, a new season, a season's standings and awards (for members,
and behind the league's public link), its rules changed or the season deleted by an owner; a
club night against what the ratings expected."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from scoring.models import Event, League, Role, Season
from scoring.seasons import awards, expected, ladder, selectors, services
from scoring.seasons.forms import SeasonForm
from scoring.seasons.services import SeasonError
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest
from scoring.views.leagues import role_context
from scoring.web.access import league_for


def _list_page(
    request: LoggedInRequest, league: League, role: str, form: SeasonForm, status: int = 200
) -> HttpResponse:
    seasons = selectors.league_seasons(league)
    context = {
        "league": league,
        "seasons": seasons,
        "running": selectors.season_running(seasons),
        "form": form,
        **role_context(role, league),
    }
    return render(request, "scoring/seasons/list.html", context, status=status)


@login_required
@require_GET
def season_list(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    return _list_page(request, league, role, SeasonForm(auto_id="season_%s"))


@login_required
@require_POST
def season_new(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    form = SeasonForm(request.POST, auto_id="season_%s")
    if form.is_valid():
        try:
            season = services.season_create(league=league, rules=form.rules(), user=request.user)
        except SeasonError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("The season has started."))
            return redirect(season)
    return _list_page(request, league, role, form, status=UNPROCESSABLE)


def _season_context(request: HtmxHttpRequest, season: Season) -> dict:
    """The season's standings (everyone with ``?everyone=1``), awards and rules in words."""
    version = season.league.results_version
    everyone = request.GET.get("everyone") == "1"
    table = ladder.season_table(season, results_version=version, everyone=everyone)
    return {
        "season": season,
        "table": table,
        "awards": awards.season_awards(season, table, results_version=version),
        "rules_words": ladder.rules_words(season),
        "season_over": season.ends_on < timezone.localdate(),
    }


def _detail_page(
    request: LoggedInRequest, season: Season, role: str, form: SeasonForm, status: int = 200
) -> HttpResponse:
    context = {
        "league": season.league,
        "form": form,
        "seasons": selectors.league_seasons(season.league),
        **_season_context(request, season),
        **role_context(role, season.league),
    }
    return render(request, "scoring/seasons/detail.html", context, status=status)


@login_required
@require_GET
def season_detail(request: LoggedInRequest, pk: int, season_pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    season = selectors.season_of(league, season_pk)
    return _detail_page(request, season, role, SeasonForm.of(season))


@login_required
@require_POST
def season_edit(request: LoggedInRequest, pk: int, season_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    season = selectors.season_of(league, season_pk)
    form = SeasonForm(request.POST)
    if form.is_valid():
        try:
            season = services.season_update(season=season, rules=form.rules())
        except SeasonError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, _("The season's rules are saved."))
            return redirect(season)
    return _detail_page(request, season, role, form, status=UNPROCESSABLE)


@login_required
@require_POST
def season_delete(request: LoggedInRequest, pk: int, season_pk: int) -> HttpResponse:
    league, _role = league_for(request, pk, Role.OWNER)
    season = selectors.season_of(league, season_pk)
    services.season_delete(season=season)
    messages.success(request, _("The season is deleted; its games still count in the standings."))
    return redirect("season_list", league.pk)


@require_GET
def public_season(request: HtmxHttpRequest, token: str, season_pk: int) -> HttpResponse:
    league = get_object_or_404(League, share_token=token)
    season = selectors.season_of(league, season_pk)
    context = {
        "league": league,
        "token": token,
        "public": True,
        "seasons": selectors.league_seasons(league),
        **_season_context(request, season),
    }
    return render(request, "scoring/seasons/public.html", context)


def _expected_page(request: HtmxHttpRequest, event: Event, context: dict) -> HttpResponse:
    context = {"event": event, "evening": expected.evening_expected(event), **context}
    return render(request, "scoring/seasons/expected.html", context)


@login_required
@require_GET
def event_expected(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    event = get_object_or_404(Event.objects.select_related("league"), pk=event_pk, league=league)
    return _expected_page(request, event, {"league": league, **role_context(role, league)})


@require_GET
def event_public_expected(request: HtmxHttpRequest, token: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("league"), share_token=token)
    return _expected_page(request, event, {"league": event.league, "public": True, "token": token})
