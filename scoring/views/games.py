"""Starting a game: the home page, a quick game, the new-game form, opening a shared link."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring import rules
from scoring.core.modes import SHAPES, Mode
from scoring.history.selectors import home_context
from scoring.lib.collation import name_sort_key
from scoring.lib.ids import id_param
from scoring.models import League, Player, Role, Series
from scoring.table import selectors, services
from scoring.table.forms import SeriesForm, series_initial
from scoring.views import UNPROCESSABLE, HtmxHttpRequest
from scoring.web.access import league_for, league_role
from scoring.web.sessions import hold_link, hold_started, visitor_of
from scoring.web.throttle import (
    league_game_refusal,
    league_game_started,
    quick_game_refusal,
    quick_game_started,
)


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "scoring/home.html", home_context(visitor_of(request)))


@require_POST
def series_quick(request: HtmxHttpRequest) -> HttpResponse:
    """A game of two teams in one tap: the seats' names (North, East, …), classic rules, the
    first seat deals. The names can be changed on the board once the table knows who sits where."""
    if refusal := quick_game_refusal(request):
        context = {**home_context(visitor_of(request)), "refusal": refusal}
        return render(request, "scoring/home.html", context, status=UNPROCESSABLE)
    series = services.series_create(
        mode=Mode.TEAMS,
        names=[str(label) for label in SHAPES[Mode.TEAMS].seat_labels],
        first_dealer=0,
        ruleset=rules.PRESETS["classic"],
        known=selectors.known_players(visitor_of(request)),
        user=request.user,
    )
    quick_game_started(request)
    return redirect(_held(request, series, started=True))


def _league_param(request: HtmxHttpRequest) -> League | None:
    """The league a new game is for (``?league=``): 404 for outsiders, 403 for viewers."""
    given = request.GET.get("league") or request.POST.get("league")
    if not given:
        return None
    league_id = id_param(given)
    if league_id is None:
        raise Http404("No such league.")
    league, _role = league_for(request, league_id, Role.OWNER, Role.SCORER)
    return league


def _again(request: HtmxHttpRequest) -> tuple[dict, League | None] | None:
    """The new-game form filled in from a series (``?again=``): same seats and rules, next
    dealer; in the series' league when this user may start games there, else a quick game."""
    pk = id_param(request.GET.get("again"))
    if pk is None:
        return None
    series = selectors.series_seen(visitor_of(request), pk).series
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
        initial = SeriesForm.rules_initial(league.ruleset)
    known = selectors.known_players(visitor_of(request)) if league is None else league.players.all()
    if request.method == "POST":
        form = SeriesForm(request.POST)
        limit = quick_game_refusal if league is None else league_game_refusal
        if form.is_valid() and (refusal := limit(request)):
            form.add_error(None, refusal)  # too many games from here: the form says so
        if form.is_valid():
            series = _started(request, form.cleaned_data, league, known)
            return redirect(_held(request, series, started=league is None))
        status = UNPROCESSABLE
    else:
        form = SeriesForm(initial=initial)
        status = 200
    context = {
        "form": form,
        "league": league,
        "again_dealer": initial[f"player_{initial['first_dealer']}"] if again else "",
        "known_names": _names_offered(known),
        "shapes": SHAPES,
    }
    return render(request, "scoring/series_new.html", context, status=status)


def _started(
    request: HtmxHttpRequest, data: dict[str, Any], league: League | None, known: QuerySet[Player]
) -> Series:
    """The game the new-game form asked for, counted against its limit; this phone scores it,
    and manages a quick game."""
    series = services.series_create(
        mode=data["mode"],
        names=data["names"],
        first_dealer=data["first_dealer"],
        ruleset=data["ruleset"],
        league=league,
        known=known,
        user=request.user,
    )
    (quick_game_started if league is None else league_game_started)(request)
    return series


def _held(request: HtmxHttpRequest, series: Series, *, started: bool) -> str:
    """The page of the table a new game is played at, whose score link this phone now holds
    (and which it manages, for a kitchen table it ``started``)."""
    table = series.table
    assert table is not None and table.score_token is not None  # a new game's new table
    hold_link(request, table, table.score_token)
    if started:
        hold_started(request, table)
    return table.get_absolute_url()


def _names_offered(known) -> list[str]:
    """The names a new game suggests: one per player key ("Анна", not also "АННА")."""
    offered: dict[str, str] = {}
    for player in known[:200]:
        offered.setdefault(player.name_key, player.name)
    return sorted(offered.values(), key=name_sort_key)
