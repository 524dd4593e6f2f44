"""What a browser keeps in its session besides its login: the table links it opened, the kitchen
tables it started, and the name it picked at a club night. The only reader and writer of those
keys; written only by the POST that opens a link or starts a table (a GET writes nothing).

A view works out who is asking once (``visitor_of``) and passes that on as plain values.
"""

from __future__ import annotations

from django.http import HttpRequest

from scoring.core.visitors import Visitor
from scoring.models import Event, Table

SESSION_LINKS = "tables"  # the table links this browser opened: token → the table's id
SESSION_STARTED = "tables_started"  # ids of the kitchen tables this browser started
SESSION_SEATS = "event_players"  # "Find your seat": event id → the player picked on this phone
MAX_REMEMBERED = 200


def visitor_of(request: HttpRequest) -> Visitor:
    """Who is asking: the account, and what this browser's session holds (read, never written)."""
    user = request.user if request.user.is_authenticated else None
    session = request.session
    links = session.get(SESSION_LINKS, {})
    started = session.get(SESSION_STARTED, [])
    return Visitor(
        user=user,
        links={str(token): int(pk) for token, pk in links.items()},
        started=frozenset(int(pk) for pk in started),
    )


def hold_link(request: HttpRequest, table: Table, token: str) -> None:
    """Remember that this browser opened ``token``, a link of ``table`` (on the POST that opens
    it): it scores or watches whichever game the table plays, and keeps seeing the games it
    played."""
    _remember(request, SESSION_LINKS, token, table.pk)


def hold_started(request: HttpRequest, table: Table) -> None:
    """Remember that this browser started the kitchen table ``table``: it manages its games."""
    started = request.session.get(SESSION_STARTED, [])
    if table.pk not in started:
        request.session[SESSION_STARTED] = [*started, table.pk][-MAX_REMEMBERED:]


def _remember(request: HttpRequest, key: str, name: str, value: object) -> None:
    """``name`` → ``value`` in the session's ``key``, newest last, past ``MAX_REMEMBERED``
    the oldest forgotten."""
    kept = {old: held for old, held in request.session.get(key, {}).items() if old != name}
    kept[name] = value
    request.session[key] = dict(list(kept.items())[-MAX_REMEMBERED:])


def picked_player(request: HttpRequest, event: Event) -> int | None:
    """The player this phone said it is at ``event`` ("Find your seat"), if any: a name picked,
    no access to anything (the evening's public link opens the same page to anyone)."""
    picked = request.session.get(SESSION_SEATS, {}).get(str(event.pk))
    return picked if isinstance(picked, int) else None


def remember_player(request: HttpRequest, event: Event, player_id: int) -> None:
    _remember(request, SESSION_SEATS, str(event.pk), player_id)
