"""Who may see and score a series or a league, checked on every view that touches one.

A league's series are open to its members by role. A quick game (no league) is open to whoever
holds one of its links: the score link lets them record deals, the watch link only look. Holding
a link is remembered in the session together with the token itself, so revoking a link (a new
token) shuts out everyone who came through the old one at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest

from scoring.models import League, Membership, Role, Series

SESSION_LINKS = "series_links"
MAX_REMEMBERED = 200

SCORE = "score"
WATCH = "watch"


@dataclass(frozen=True)
class SeriesAccess:
    series: Series
    can_score: bool
    can_manage: bool  # revoke links, move into a league
    link: str | None = None  # SCORE or WATCH: the link this browser holds, if any


def remember_link(request: HttpRequest, series: Series, token: str | None) -> None:
    """Remember in this browser's session that it holds ``token`` for ``series``."""
    links = dict(request.session.get(SESSION_LINKS, {}))
    links.pop(str(series.pk), None)
    links[str(series.pk)] = token
    while len(links) > MAX_REMEMBERED:
        links.pop(next(iter(links)))
    request.session[SESSION_LINKS] = links


def remembered_series_ids(request: HttpRequest) -> list[int]:
    """Series this browser holds a link for, most recent first (tokens are checked on use)."""
    return [int(pk) for pk in reversed(request.session.get(SESSION_LINKS, {}))]


def league_role(request: HttpRequest, league_id: int | None) -> str | None:
    if league_id is None or not request.user.is_authenticated:
        return None
    return (
        Membership.objects.filter(league_id=league_id, user=request.user)
        .values_list("role", flat=True)
        .first()
    )


def _link_access(request: HttpRequest, series: Series) -> str | None:
    token = request.session.get(SESSION_LINKS, {}).get(str(series.pk))
    if not token:
        return None
    if token == series.score_token:
        return SCORE
    if token == series.watch_token:
        return WATCH
    return None


def series_access(request: HttpRequest, series: Series) -> SeriesAccess:
    """What this request may do with ``series``; 404 when it may not even see it."""
    role = league_role(request, series.league_id)
    link = _link_access(request, series)
    if role is None and link is None:
        raise Http404("No such series.")
    can_score = link == SCORE or role in (Role.OWNER, Role.SCORER)
    can_manage = role == Role.OWNER or (series.league_id is None and link == SCORE)
    return SeriesAccess(series=series, can_score=can_score, can_manage=can_manage, link=link)


def league_for(request: HttpRequest, league_id: int, *roles: str) -> tuple[League, str]:
    """The league and the user's role in it: 404 for outsiders, 403 for a role not in ``roles``."""
    role = league_role(request, league_id)
    if role is None:
        raise Http404("No such league.")
    if roles and role not in roles:
        raise PermissionDenied("Your role in this league does not allow this.")
    return League.objects.get(pk=league_id), role
