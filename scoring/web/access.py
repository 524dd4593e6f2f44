"""Who may see a league's pages: checked on every view that touches one (a series' access is
``table.access``'s)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from scoring.models import League
from scoring.table.access import LeagueArchived, membership
from scoring.web.sessions import visitor_of


def league_role(request: HttpRequest, league_id: int | None) -> str | None:
    return membership(visitor_of(request), league_id)[0]


def league_for(
    request: HttpRequest, league_id: int, *roles: str, write: bool | None = None
) -> tuple[League, str]:
    """The league and the user's role in it: 404 for outsiders, 403 for a role not in ``roles``,
    and for a write (by default a POST) to an archived league; ``write=False`` for the few an
    archived league allows (restore, delete, leave)."""
    role, archived = membership(visitor_of(request), league_id)
    if role is None:
        raise Http404("No such league.")
    if roles and role not in roles:
        raise PermissionDenied(_("Your role in this league does not allow this."))
    if write is None:
        write = request.method == "POST"
    if archived and write:
        raise LeagueArchived()
    return League.objects.get(pk=league_id), role
