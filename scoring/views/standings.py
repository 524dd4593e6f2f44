"""A league's standings and head to head, and the public standings and series behind a share
link. Every view only reads: the league's writes keep the running totals folded."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from scoring.leagues import selectors
from scoring.models import League
from scoring.seasons import selectors as season_selectors
from scoring.standings import ranking
from scoring.standings import selectors as standings
from scoring.standings.forms import HeadToHeadForm, StandingsFilterForm
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest
from scoring.views.leagues import role_context
from scoring.web.access import league_for


def _standings_page(
    request: HtmxHttpRequest, league: League, template: str, context: dict
) -> HttpResponse:
    """The standings under the filter, sort and "everyone" of the query string; htmx gets the
    ``standings`` partial."""
    filtering = any(name in request.GET for name in StandingsFilterForm.base_fields)
    form = StandingsFilterForm(request.GET if filtering else None, auto_id="filter_%s")
    status = UNPROCESSABLE if form.is_bound and not form.is_valid() else 200
    everyone = request.GET.get("everyone") == "1"
    table, players = standings.ranked_standings(
        league,
        form.standings_filter(),
        sort=ranking.sort_param(request.GET.get("sort")),
        everyone=everyone,
    )
    form.offer_rulesets(table.rulesets)
    context = {
        "league": league,
        "filter_form": form,
        "standings": table,
        "players": players,
        "everyone": everyone,
        "seasons": season_selectors.league_seasons(league),
        **context,
    }
    if request.htmx:
        template += "#standings"
    return render(request, template, context, status=status)


@login_required
@require_GET
def league_standings(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    context = role_context(role, league)
    return _standings_page(request, league, "scoring/leagues/standings.html", context)


@login_required
@require_GET
def league_head_to_head(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    players = selectors.league_players(league)
    data = request.GET if "first" in request.GET else None
    form = HeadToHeadForm(data, players=players)
    filter_form = StandingsFilterForm(
        data, rulesets=standings.ruleset_choices(league), auto_id="filter_%s"
    )
    result = None
    if form.is_bound and form.is_valid() and filter_form.is_valid():
        result = standings.head_to_head(league, filter_form.standings_filter(), *form.pair())
    context = {
        "league": league,
        "form": form,
        "players": players,
        "filter_form": filter_form,
        "result": result,
        **role_context(role, league),
    }
    status = UNPROCESSABLE if form.is_bound and result is None else 200
    return render(request, "scoring/leagues/head_to_head.html", context, status=status)


@require_GET
def public_standings(request: HtmxHttpRequest, token: str) -> HttpResponse:
    league = get_object_or_404(League, share_token=token)
    context = {"token": token, "public": True}
    return _standings_page(request, league, "scoring/leagues/public_standings.html", context)


@require_GET
def public_history(request: HtmxHttpRequest, token: str) -> HttpResponse:
    league = get_object_or_404(League, share_token=token)
    page = selectors.series_page(league, request.GET.get("page"))
    context = {"league": league, "page": page, "token": token, "public": True}
    template = "scoring/leagues/public_history.html"
    if request.htmx:
        template += "#series-list"
    return render(request, template, context)
