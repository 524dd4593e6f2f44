"""Who may see and score a series or a league, checked on every view that touches one.

A quick game is open to whoever holds one of its links (score or watch), remembered in the
session with the token itself, so renewing a link shuts out everyone who came through the old
one at once. Only a game's creator manages it (renews its links, moves it into a league): a
score link's holder who could renew the links could lock out the whole table, creator included.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from scoring.models import Event, EventTable, EventTableLink, League, Membership, Role, Series

SESSION_LINKS = "series_links"
SESSION_CREATED = "series_created"  # ids of the quick games this browser started
SESSION_TABLES = "table_links"  # club-night table links this browser opened: token → [event, n]
SESSION_SEATS = "event_players"  # "Find your seat": event id → the player picked on this phone
MAX_REMEMBERED = 200

SCORE = "score"
WATCH = "watch"


class LinkRenewed(Http404):
    """This browser held a link to the series that was renewed since: a 404 for code that does
    not ask; the table's pages say what happened."""


@dataclass(frozen=True)
class SeriesAccess:
    series: Series
    can_score: bool
    can_manage: bool  # revoke links, move into a league
    link: str | None = None  # SCORE or WATCH: the link this browser holds, if any
    archived: bool = False  # a series of an archived league: nobody scores or manages it
    #: The club-night table's link for the evening that this browser opened, if any: whoever
    #: else lets it in, its board polls the table's live view and follows it round to round.
    table_link: EventTableLink | None = None


def held_tokens(request: HttpRequest) -> dict[int, str]:
    """The quick-game links this browser holds: series id → token (checked on use)."""
    return {int(pk): token for pk, token in request.session.get(SESSION_LINKS, {}).items()}


def created_series_ids(request: HttpRequest) -> list[int]:
    return list(request.session.get(SESSION_CREATED, []))


def held_link(request: HttpRequest, series: Series) -> str | None:
    """SCORE or WATCH: the live link to ``series`` this browser holds, if any."""
    token = request.session.get(SESSION_LINKS, {}).get(str(series.pk))
    if not token:
        return None
    if token == series.score_token:
        return SCORE
    if token == series.watch_token:
        return WATCH
    return None


def remember_link(request: HttpRequest, series: Series, token: str | None) -> None:
    """Remember that this browser holds ``token`` for ``series``; never a watch link over its score
    link (a rematch followed from a watching phone must not take scoring away). The session is
    written only on a change: a poll that remembers nothing new costs nothing."""
    links = request.session.get(SESSION_LINKS, {})
    held = links.get(str(series.pk))
    if held == token or (held == series.score_token and token == series.watch_token):
        return
    _remember(request, SESSION_LINKS, str(series.pk), token)


def _remember(request: HttpRequest, key: str, name: str, value: object) -> None:
    """``name`` → ``value`` in the session's ``key``, newest last, past ``MAX_REMEMBERED``
    the oldest forgotten."""
    kept = {old: held for old, held in request.session.get(key, {}).items() if old != name}
    kept[name] = value
    request.session[key] = dict(list(kept.items())[-MAX_REMEMBERED:])


def followed_link(rematch: Series, link: str) -> str | None:
    """The token of a rematch's ``link`` (SCORE or WATCH) for a phone that held that link of
    the game before it: the same table follows on, unless the rematch's link was renewed since
    (its creator locked out whoever held the old one)."""
    if link == SCORE:
        return None if rematch.score_renewed_at is not None else rematch.score_token
    return None if rematch.watch_renewed_at is not None else rematch.watch_token


def held_tables(request: HttpRequest) -> dict[str, tuple[int, int]]:
    """The club-night table links this browser opened: token → (event id, table number)."""
    return {
        token: (int(event), int(number))
        for token, (event, number) in request.session.get(SESSION_TABLES, {}).items()
    }


def remember_table(request: HttpRequest, link: EventTableLink) -> None:
    """Remember that this browser is the phone of a club night's table for the evening: it
    scores whichever game the table plays in the round (``series_access``)."""
    if link.token not in request.session.get(SESSION_TABLES, {}):
        _remember(request, SESSION_TABLES, link.token, [link.event_id, link.number])


def picked_player(request: HttpRequest, event: Event) -> int | None:
    """The player this phone said it is at ``event`` ("Find your seat"), if any: a name picked,
    no access to anything (the evening's public link opens the same page to anyone)."""
    picked = request.session.get(SESSION_SEATS, {}).get(str(event.pk))
    return picked if isinstance(picked, int) else None


def remember_player(request: HttpRequest, event: Event, player_id: int) -> None:
    _remember(request, SESSION_SEATS, str(event.pk), player_id)


def _table_link(request: HttpRequest, series: Series) -> EventTableLink | None:
    """The evening's link of the club-night table ``series`` is played at, when this browser
    opened it and it is still valid (one query, asked only of a browser that holds a table's
    link)."""
    held = held_tables(request)
    if not held or series.league_id is None:
        return None
    here = EventTable.objects.filter(
        series=series, round__event_id=OuterRef("event_id"), number=OuterRef("number")
    )
    links = EventTableLink.objects.filter(Exists(here), token__in=list(held))
    return links.select_related("event").first()  # its club night, for the board's evening


def remember_created(request: HttpRequest, series: Series) -> None:
    """Remember that this browser started ``series``: it manages the game from now on."""
    created = request.session.get(SESSION_CREATED, [])
    if series.pk in created:
        return
    request.session[SESSION_CREATED] = [*created, series.pk][-MAX_REMEMBERED:]


def is_creator(request: HttpRequest, series: Series) -> bool:
    """Whether this browser or the logged-in user started the quick game ``series``."""
    if series.league_id is not None:
        return False  # a league's game is its members', by role
    if series.pk in request.session.get(SESSION_CREATED, []):
        return True
    # The user is loaded only for a game an account started.
    return series.created_by_id is not None and series.created_by_id == request.user.pk


def _membership(request: HttpRequest, league_id: int | None) -> tuple[str | None, bool]:
    """The user's role in the league (None for outsiders) and whether the league is archived."""
    if league_id is None or not request.user.is_authenticated:
        return None, False
    found = (
        Membership.objects.filter(league_id=league_id, user=request.user)
        .values_list("role", "league__archived_at")
        .first()
    )
    if found is None:
        return None, False
    return found[0], found[1] is not None


def league_role(request: HttpRequest, league_id: int | None) -> str | None:
    return _membership(request, league_id)[0]


def archived_message() -> str:
    return _(
        "This league is archived: it can be read but not changed. "
        "Its owner can take it out of the archive in Settings."
    )


def archived_refusal() -> PermissionDenied:
    return PermissionDenied(archived_message())


def series_access(
    request: HttpRequest, series: Series, *, table_link: EventTableLink | None = None
) -> SeriesAccess:
    """What this request may do with ``series``; 404 when it may not even see it.

    ``table_link``: the club-night table's link in the address of a table's page, which this
    browser opened (``held_tables``) and which names ``series`` as the round's game: not asked
    again."""
    role, archived = _membership(request, series.league_id)
    link = held_link(request, series)
    # The creator keeps the game whatever becomes of its links (renewed on another device).
    creator = is_creator(request, series)
    if table_link is None:
        table_link = _table_link(request, series)
    # The table's link lets in whom nothing else does; a league's viewer stays a viewer.
    table = role is None and link is None and not creator and table_link is not None
    if role is None and link is None and not creator and not table:
        if request.session.get(SESSION_LINKS, {}).get(str(series.pk)):
            raise LinkRenewed("The link this browser opened was renewed.")
        raise Http404("No such series.")
    can_manage = creator or role in (Role.OWNER, Role.SCORER)
    can_score = link == SCORE or can_manage or table
    if role is None and (link is not None or table) and series.league_id is not None:
        league = series.league
        archived = league is not None and league.archived_at is not None
    if archived:
        can_manage = can_score = False
    return SeriesAccess(
        series=series,
        can_score=can_score,
        can_manage=can_manage,
        link=link,
        archived=archived,
        table_link=table_link,
    )


def league_for(
    request: HttpRequest, league_id: int, *roles: str, write: bool | None = None
) -> tuple[League, str]:
    """The league and the user's role in it: 404 for outsiders, 403 for a role not in ``roles``,
    and for a write (by default a POST) to an archived league; ``write=False`` for the few an
    archived league allows (restore, delete, leave)."""
    role, archived = _membership(request, league_id)
    if role is None:
        raise Http404("No such league.")
    if roles and role not in roles:
        raise PermissionDenied(_("Your role in this league does not allow this."))
    if write is None:
        write = request.method == "POST"
    if archived and write:
        raise archived_refusal()
    return League.objects.get(pk=league_id), role
