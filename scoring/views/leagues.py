"""Leagues: the list, a new league, a league's page, its members (roles, invites, ownership),
settings (name, house rules, the public link), archive and delete, and moving a quick game in.
Outsiders get 404, a role too small 403 (``access.league_for``); a refused change 422."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring import rules
from scoring.leagues import selectors, services
from scoring.leagues.forms import (
    InviteForm,
    LeagueDeleteForm,
    LeagueForm,
    MemberForm,
    MoveForm,
    RoleForm,
)
from scoring.leagues.services import LeagueError
from scoring.models import League, Membership, Role, Series
from scoring.table.access import series_access
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest
from scoring.views.accounts import safe_next
from scoring.web.access import league_for
from scoring.web.sessions import visitor_of


def role_context(role: str, league: League) -> dict:
    """What the templates show of the user's role; an archived league offers no changes."""
    open_ = league.archived_at is None
    return {
        "role": role,
        "role_label": Role(role).label,
        "is_owner": role == Role.OWNER,
        "manage": role == Role.OWNER and open_,  # the owner's forms that change the league
        "can_score": role in (Role.OWNER, Role.SCORER) and open_,
    }


# The league list and a new league ------------------------------------------------------------


@login_required
@require_GET
def league_list(request: LoggedInRequest) -> HttpResponse:
    memberships = selectors.user_memberships(request.user)
    archived = selectors.user_memberships(request.user, archived=True)
    context = {"memberships": memberships, "archived": archived}
    return render(request, "scoring/leagues/list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def league_new(request: LoggedInRequest) -> HttpResponse:
    status = 200
    if request.method == "POST":
        form = LeagueForm(request.POST)
        if form.is_valid():
            league = services.league_create(
                name=form.cleaned_data["name"],
                user=request.user,
                ruleset=form.cleaned_data["ruleset"],
            )
            messages.success(request, _("League created. Invite the others from Members."))
            return redirect(safe_next(request) or league.get_absolute_url())
        status = UNPROCESSABLE
    else:
        form = LeagueForm(initial=LeagueForm.initial_for("", rules.PRESETS["classic"]))
    context = {"form": form, "next": safe_next(request) or ""}
    return render(request, "scoring/leagues/new.html", context, status=status)


# A league's pages ---------------------------------------------------------------------------


@login_required
@require_GET
def league_detail(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    page = selectors.series_page(league, request.GET.get("page"))
    context = {"league": league, "page": page, **role_context(role, league)}
    template = "scoring/leagues/detail.html"
    if request.htmx:
        template += "#series-list"
    return render(request, template, context)


# Members, invites, ownership -----------------------------------------------------------------


def _members_page(
    request: HtmxHttpRequest,
    league: League,
    role: str,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    memberships = selectors.league_memberships(league)
    others = [m for m in memberships if m.user_id != request.user.pk]
    context = {
        "league": league,
        "memberships": memberships,
        "roles": Role.choices,
        "invite_form": InviteForm(initial={"role": league.invite_role}),
        "transfer_form": MemberForm(memberships=others),
        "error": error,
        **role_context(role, league),
    }
    return render(request, "scoring/leagues/members.html", context, status=status)


@login_required
@require_GET
def league_members(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    return _members_page(request, league, role)


@login_required
@require_POST
def membership_role(request: LoggedInRequest, pk: int, membership_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    form = RoleForm(request.POST)
    if not form.is_valid():
        error = _("Choose owner, scorer or viewer.")
        return _members_page(request, league, role, error=error, status=UNPROCESSABLE)
    try:
        services.membership_set_role(
            league=league, membership_id=membership_pk, role=form.cleaned_data["role"]
        )
    except LeagueError as error:
        return _members_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    messages.success(request, _("Role changed."))
    return redirect("league_members", league.pk)


@login_required
@require_POST
def membership_remove(request: LoggedInRequest, pk: int, membership_pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    try:
        user_id = services.membership_remove(league=league, membership_id=membership_pk)
    except LeagueError as error:
        return _members_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    if user_id == request.user.pk:
        messages.success(request, _("You left the league."))
        return redirect("league_list")
    messages.success(request, _("Member removed."))
    return redirect("league_members", league.pk)


@login_required
@require_POST
def ownership_transfer(request: LoggedInRequest, pk: int) -> HttpResponse:
    # Allowed in an archived league: handing it over changes none of its contents.
    league, role = league_for(request, pk, Role.OWNER, write=False)
    others = [m for m in selectors.league_memberships(league) if m.user_id != request.user.pk]
    form = MemberForm(request.POST, memberships=others)
    if not form.is_valid():
        error = _("Choose the member who takes over.")
        return _members_page(request, league, role, error=error, status=UNPROCESSABLE)
    try:
        services.ownership_transfer(
            league=league, user=request.user, membership_id=form.cleaned_data["membership"]
        )
    except LeagueError as error:
        return _members_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    messages.success(request, _("Ownership handed over; you are a scorer now."))
    return redirect("league_members", league.pk)


@login_required
@require_POST
def league_leave(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk, write=False)
    try:
        services.league_leave(league=league, user=request.user)
    except LeagueError as error:
        return _members_page(request, league, role, error=str(error), status=UNPROCESSABLE)
    messages.success(request, _("You left %(league)s.") % {"league": league.name})
    return redirect("league_list")


@login_required
@require_POST
def invite_renew(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    form = InviteForm(request.POST)
    if not form.is_valid():
        error = _("Choose whether the link makes scorers or viewers.")
        return _members_page(request, league, role, error=error, status=UNPROCESSABLE)
    replaced = bool(league.invite_token)
    services.invite_renew(league=league, role=form.cleaned_data["role"])
    if replaced:
        messages.success(request, _("A new invite link is ready; the old one no longer works."))
    else:
        messages.success(request, _("The invite link is ready: send it to whoever should join."))
    return redirect("league_members", league.pk)


@login_required
@require_POST
def invite_revoke(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, _role = league_for(request, pk, Role.OWNER)
    services.invite_revoke(league=league)
    messages.success(request, _("The invite link no longer works."))
    return redirect("league_members", league.pk)


@require_http_methods(["GET", "POST"])
def league_join(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """An invite link: shows the league and, for a logged-in visitor, a button to join."""
    league = get_object_or_404(League, invite_token=token)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        try:
            services.league_join(token=token, user=request.user)
        except LeagueError as error:
            messages.error(request, str(error))
            return redirect("league_list")
        messages.success(request, _("Welcome to %(league)s.") % {"league": league.name})
        return redirect(league)
    member = (
        request.user.is_authenticated
        and Membership.objects.filter(league=league, user=request.user).exists()
    )
    context = {"league": league, "member": member, "token": token}
    return render(request, "scoring/leagues/join.html", context)


# Archive and delete ------------------------------------------------------------------------


def _settings_refused(request: HtmxHttpRequest, league: League, role: str, error: str):
    form = LeagueForm(initial=LeagueForm.initial_for(league.name, league.ruleset))
    context = {"league": league, "form": form, "error": error, **role_context(role, league)}
    return render(request, "scoring/leagues/settings.html", context, status=UNPROCESSABLE)


@login_required
@require_POST
def league_archive(request: LoggedInRequest, pk: int) -> HttpResponse:
    return _archive_change(
        request,
        pk,
        services.league_archive,
        _("The league is archived: read-only, and out of your lists."),
    )


@login_required
@require_POST
def league_unarchive(request: LoggedInRequest, pk: int) -> HttpResponse:
    return _archive_change(
        request,
        pk,
        services.league_unarchive,
        _("The league is out of the archive and can be played again."),
    )


def _archive_change(request: LoggedInRequest, pk: int, change, done: str) -> HttpResponse:
    """An owner's archiving (or restoring) of a league: ``change`` done, ``done`` said."""
    league, role = league_for(request, pk, Role.OWNER, write=False)
    try:
        change(league=league, user=request.user)
    except LeagueError as error:
        return _settings_refused(request, league, role, str(error))
    messages.success(request, done)
    return redirect(league)


def _delete_page(
    request: HtmxHttpRequest,
    league: League,
    role: str,
    form: LeagueDeleteForm,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "league": league,
        "form": form,
        "error": error,
        "series_count": Series.objects.filter(league=league).count(),
        **role_context(role, league),
    }
    return render(request, "scoring/leagues/delete.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def league_delete(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER, write=False)
    form = LeagueDeleteForm(request.POST or None, initial={"series": services.SERIES_KEEP})
    if request.method == "GET":
        return _delete_page(request, league, role, form)
    if not form.is_valid():
        return _delete_page(request, league, role, form, status=UNPROCESSABLE)
    try:
        kept = services.league_delete(
            league=league,
            user=request.user,
            confirm_name=form.cleaned_data["name"],
            series=form.cleaned_data["series"],
        )
    except LeagueError as refused:
        return _delete_page(request, league, role, form, error=str(refused), status=UNPROCESSABLE)
    messages.success(
        request,
        _("%(league)s is deleted; %(count)d of its series are quick games now.")
        % {"league": league.name, "count": kept},
    )
    return redirect("league_list")


# Settings: name, house rules, the public share link ----------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def league_settings(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk, Role.OWNER)
    status = 200
    if request.method == "POST":
        form = LeagueForm(request.POST)
        if form.is_valid():
            services.league_update_rules(
                league=league, ruleset=form.cleaned_data["ruleset"], name=form.cleaned_data["name"]
            )
            messages.success(request, _("Saved. New series start with these house rules."))
            return redirect(league)
        status = UNPROCESSABLE
    else:
        form = LeagueForm(initial=LeagueForm.initial_for(league.name, league.ruleset))
    context = {"league": league, "form": form, **role_context(role, league)}
    return render(request, "scoring/leagues/settings.html", context, status=status)


@login_required
@require_POST
def share_renew(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, _role = league_for(request, pk, Role.OWNER)
    replaced = bool(league.share_token)
    services.share_renew(league=league)
    if replaced:
        messages.success(request, _("The standings have a new public link; the old one is off."))
    else:
        messages.success(request, _("The standings are public: anyone with the link sees them."))
    return redirect(reverse("league_settings", args=[league.pk]) + "#share")


@login_required
@require_POST
def share_revoke(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, _role = league_for(request, pk, Role.OWNER)
    services.share_revoke(league=league)
    messages.success(request, _("The standings are no longer public."))
    return redirect(reverse("league_settings", args=[league.pk]) + "#share")


# Moving a quick game into a league ---------------------------------------------------------


def _move_page(
    request: HtmxHttpRequest,
    series: Series,
    form: MoveForm,
    leagues: list[League],
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {"series": series, "form": form, "leagues": leagues, "error": error}
    return render(request, "scoring/leagues/move.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def series_move(request: LoggedInRequest, pk: int) -> HttpResponse:
    """Move a quick game this browser or user started into one of the user's leagues."""
    series = get_object_or_404(Series.objects.select_related("league", "table"), pk=pk)
    access = series_access(
        visitor_of(request), series
    )  # a 404 for a series this request may not see
    if series.league_id is None and not access.can_manage:
        raise PermissionDenied(_("Only whoever started this game can move it."))
    choices = selectors.scoring_leagues(request.user)
    form = MoveForm(request.POST or None, leagues=choices)
    posted = request.method == "POST"
    if series.league is not None:
        error = _("This series already belongs to %(league)s.") % {"league": series.league.name}
        return _move_page(
            request, series, form, choices, error=error, status=UNPROCESSABLE if posted else 200
        )
    if not posted or not form.is_valid():
        return _move_page(request, series, form, choices, status=UNPROCESSABLE if posted else 200)
    league = next(lg for lg in choices if lg.pk == form.cleaned_data["league"])
    try:
        services.series_move_to_league(series=series, league=league, user=request.user)
    except LeagueError as refused:
        return _move_page(request, series, form, choices, error=str(refused), status=UNPROCESSABLE)
    messages.success(request, _("The game now belongs to %(league)s.") % {"league": league.name})
    return redirect(series)
