"""A league's players and its changes: the list (a player's account), a player's page (rename,
merge: previewed, then done), and the changes, where a merge is undone. A change the league
refuses (``LeagueError``) answers 422 with the reason."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring.leagues import players as player_services
from scoring.leagues import selectors
from scoring.leagues.forms import PlayerLinkForm, PlayerMergeForm, PlayerRenameForm
from scoring.leagues.services import LeagueError
from scoring.models import League, LeagueEvent, Player, Role
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest
from scoring.views.leagues import role_context
from scoring.web.access import league_for

# The list ----------------------------------------------------------------------------------


def _players_page(
    request: HtmxHttpRequest, league: League, role: str, *, error: str = "", status: int = 200
) -> HttpResponse:
    players = selectors.league_players(league)
    memberships = selectors.league_memberships(league) if role == Role.OWNER else []
    context = {
        "league": league,
        "players": players,
        "members": [(m.user_id, m.user.get_username()) for m in memberships],
        "error": error,
        **role_context(role, league),
    }
    return render(request, "scoring/leagues/players.html", context, status=status)


@login_required
@require_GET
def league_players(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    return _players_page(request, league, role)


@login_required
@require_POST
def player_link(request: LoggedInRequest, pk: int, player_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    form = PlayerLinkForm(request.POST, memberships=selectors.league_memberships(league))
    if not form.is_valid():
        error = _("Choose a member of the league, or nobody.")
        return _players_page(request, league, role, error=error, status=UNPROCESSABLE)
    try:
        player_services.player_link_user(
            league=league, player_id=player_pk, user_id=form.cleaned_data["user"]
        )
    except LeagueError as error:
        return _players_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    messages.success(request, _("Player updated."))
    return redirect("league_players", league.pk)


# A player: rename, merge -------------------------------------------------------------------


def _league_player(league: League, player_pk: int) -> Player:
    return get_object_or_404(Player, league=league, pk=player_pk)


def _others(league: League, player: Player) -> list[Player]:
    """The league's other players: those ``player`` can be merged into."""
    return [p for p in selectors.league_players(league) if p.pk != player.pk]


def _player_page(
    request: HtmxHttpRequest,
    league: League,
    role: str,
    player: Player,
    *,
    rename_form: PlayerRenameForm | None = None,
    merge_form: PlayerMergeForm | None = None,
    error: str = "",
) -> HttpResponse:
    """The player's page; with a form given back, or an error, it answers 422."""
    others = _others(league, player)
    context = {
        "league": league,
        "player": player,
        "rename_form": rename_form or PlayerRenameForm(initial={"name": player.name}),
        "merge_form": merge_form or PlayerMergeForm(players=others),
        "others": others,
        "error": error,
        **role_context(role, league),
    }
    refused = bool(error) or rename_form is not None or merge_form is not None
    status = UNPROCESSABLE if refused else 200
    return render(request, "scoring/leagues/player_edit.html", context, status=status)


@login_required
@require_GET
def player_edit(request: LoggedInRequest, pk: int, player_pk: int) -> HttpResponse:
    """An owner's page for one player: rename it, or merge it into another player."""
    league, role = league_for(request, pk, Role.OWNER)
    return _player_page(request, league, role, _league_player(league, player_pk))


@login_required
@require_POST
def player_rename(request: LoggedInRequest, pk: int, player_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    player = _league_player(league, player_pk)
    form = PlayerRenameForm(request.POST)
    if not form.is_valid():
        return _player_page(request, league, role, player, rename_form=form)
    try:
        player_services.player_rename(
            league=league, player_id=player.pk, name=form.cleaned_data["name"], user=request.user
        )
    except LeagueError as error:
        return _player_page(request, league, role, player, rename_form=form, error=str(error))
    messages.success(request, _("Player renamed."))
    return redirect("league_players", league.pk)


@login_required
@require_http_methods(["GET", "POST"])
def player_merge(request: LoggedInRequest, pk: int, player_pk: int) -> HttpResponse:
    """GET: what merging this player into another would do; POST: do it."""
    league, role = league_for(request, pk, Role.OWNER)
    player = _league_player(league, player_pk)
    others = _others(league, player)
    form = PlayerMergeForm(
        request.POST if request.method == "POST" else request.GET, players=others
    )
    if not form.is_valid():
        error = _("Choose another player of the league to merge into.")
        return _player_page(request, league, role, player, merge_form=form, error=error)
    target = next(p for p in others if p.pk == form.cleaned_data["into"])
    if request.method == "GET":
        return _merge_preview(request, league, role, player, target)
    try:
        player_services.players_merge(
            league=league, source_id=player.pk, target_id=target.pk, user=request.user
        )
    except LeagueError as error:
        return _player_page(request, league, role, player, merge_form=form, error=str(error))
    names = {"source": player.name, "target": target.name}
    messages.success(
        request, _("%(source)s is now %(target)s. You can undo this under Changes.") % names
    )
    return redirect("league_players", league.pk)


def _merge_preview(
    request: HtmxHttpRequest, league: League, role: str, player: Player, target: Player
) -> HttpResponse:
    """What merging ``player`` into ``target`` would do, or why it cannot be (422)."""
    preview = player_services.merge_preview(league=league, source_id=player.pk, target_id=target.pk)
    context = {"league": league, "preview": preview, **role_context(role, league)}
    status = UNPROCESSABLE if preview.refusal else 200
    return render(request, "scoring/leagues/player_merge.html", context, status=status)


# The league's changes (its audit trail) ----------------------------------------------------


def _changes_page(
    request: HtmxHttpRequest, league: League, role: str, *, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "league": league,
        "events": selectors.league_events(league),
        "merged": LeagueEvent.Action.MERGED,
        "error": error,
        **role_context(role, league),
    }
    return render(request, "scoring/leagues/changes.html", context, status=status)


@login_required
@require_GET
def league_changes(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    return _changes_page(request, league, role)


@login_required
@require_POST
def merge_undo(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    try:
        restored = player_services.merge_undo(league=league, event_id=event_pk, user=request.user)
    except LeagueError as error:
        return _changes_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    messages.success(
        request, _("%(name)s is back as a player of their own.") % {"name": restored.name}
    )
    return redirect("league_changes", league.pk)
