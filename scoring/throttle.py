"""How many quick games one browser and one address may start in an hour.

A quick game needs no account, so nothing else keeps a script from starting thousands. The
limits (settings ``QUICK_GAMES_PER_SESSION`` and ``QUICK_GAMES_PER_ADDRESS``, per hour) are far
above any evening: a table plays a few games an hour, and a whole club room behind one address
stays well under a hundred. A rematch of a quick game is a new quick game and counts too.

League games are not counted: only a league's owner or scorer can start one, logged in, the
owner answers for who may score in the league (and can remove them), and a club night may start
many tables from one address.

The start times of the last hour live in Django's cache, a database table that every app
process shares (settings ``CACHES``); the processes keep nothing of their own. Reading and
writing a list is not one atomic step, so starts at the very same moment may all pass: the
limit can be overshot by as many requests as arrive at once, which a guard against floods can
live with.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext

from scoring.clients import client_address

WINDOW = 60 * 60  # seconds: the limits are per hour


def _key(kind: str, value: str) -> str:
    """A cache key that does not keep the address or session key itself."""
    return f"quick-games:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def _session_refusal(limit: int) -> str:
    return ngettext(
        "This browser has started %(count)s quick game in the last hour, the most allowed. "
        "Try again later, or log in and start the game in a league.",
        "This browser has started %(count)s quick games in the last hour, the most allowed. "
        "Try again later, or log in and start the game in a league.",
        limit,
    ) % {"count": limit}


def _address_refusal(limit: int) -> str:
    return ngettext(
        "%(count)s quick game was started from your network in the last hour, the most "
        "allowed. Try again later, or log in and start the game in a league.",
        "%(count)s quick games were started from your network in the last hour, the most "
        "allowed. Try again later, or log in and start the game in a league.",
        limit,
    ) % {"count": limit}


def _counters(request: HttpRequest) -> Iterator[tuple[str, int, Callable[[int], str]]]:
    """(cache key, limit, refusal) for this browser's session and for its address."""
    session_key = request.session.session_key
    if session_key is None:
        request.session.save()  # a key to count this browser's games under
        session_key = request.session.session_key or ""
    session = _key("session", session_key)
    address = _key("address", client_address(request))
    yield session, settings.QUICK_GAMES_PER_SESSION, _session_refusal
    yield address, settings.QUICK_GAMES_PER_ADDRESS, _address_refusal


def _recent(key: str, now: float) -> list[float]:
    return [moment for moment in cache.get(key, []) if moment > now - WINDOW]


def quick_game_refusal(request: HttpRequest) -> str | None:
    """Why this request may not start a quick game now, or None when it may."""
    now = time.time()
    for key, limit, refusal in _counters(request):
        if len(_recent(key, now)) >= limit:
            return refusal(limit)
    return None


def quick_game_started(request: HttpRequest) -> None:
    """Count a quick game this request started."""
    now = time.time()
    for key, _limit, _refusal in _counters(request):
        cache.set(key, [*_recent(key, now), now], WINDOW)
