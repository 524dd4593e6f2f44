"""How often one browser, network or account may do a thing in an hour: start quick games, make
accounts, start league games, type a wrong big-screen code; and the failed log-ins
``scoring.web.logins`` caps.

Nothing else keeps a script from starting thousands of quick games (no account needed), making
accounts or filling a league with games; the limits (settings, docs/DEPLOY.md) are far above any
evening. A club night's tables and rematches are not counted as league games: the organiser's
evening is not a flood, and a rematch needs a game played to its end. The moments live in
Django's cache, a database table every process shares. Reading and writing a list is not one
atomic step, so a limit can be overshot by as many requests as arrive at once, which a guard
against floods can live with.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache, caches
from django.http import HttpRequest
from django.utils.translation import ngettext

from scoring.web.clients import client_network

WINDOW = 60 * 60  # seconds: the limits are per hour


def _key(kind: str, value: str) -> str:
    """A cache key that does not keep the address, session key or account itself."""
    return f"{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def _recent(key: str, now: float) -> list[float]:
    return [moment for moment in cache.get(key, []) if moment > now - WINDOW]


def count(kind: str, value: str) -> int:
    """How many times ``kind`` happened for ``value`` (an address, an account…) in the hour."""
    return len(_recent(_key(kind, value), time.time()))


def note(kind: str, value: str) -> None:
    now = time.time()
    key = _key(kind, value)
    cache.set(key, [*_recent(key, now), now], WINDOW)


def forget(kind: str, value: str) -> None:
    cache.delete(_key(kind, value))


@dataclass(frozen=True)
class _Limit:
    kind: str
    value: str
    most: int
    refusal: Callable[[int], str]


def _refusal(limits: list[_Limit]) -> str | None:
    for limit in limits:
        if count(limit.kind, limit.value) >= limit.most:
            return limit.refusal(limit.most)
    return None


def _counted(limits: list[_Limit]) -> None:
    for limit in limits:
        note(limit.kind, limit.value)


# Quick games -----------------------------------------------------------------------------------


def _quick_session_refusal(most: int) -> str:
    return ngettext(
        "This browser has started %(count)s quick game in the last hour, the most allowed. "
        "Try again later, or log in and start the game in a league.",
        "This browser has started %(count)s quick games in the last hour, the most allowed. "
        "Try again later, or log in and start the game in a league.",
        most,
    ) % {"count": most}


def _quick_network_refusal(most: int) -> str:
    return ngettext(
        "%(count)s quick game was started from your network in the last hour, the most "
        "allowed. Try again later, or log in and start the game in a league.",
        "%(count)s quick games were started from your network in the last hour, the most "
        "allowed. Try again later, or log in and start the game in a league.",
        most,
    ) % {"count": most}


def _quick_games(request: HttpRequest) -> list[_Limit]:
    session_key = request.session.session_key
    if session_key is None:
        request.session.save()  # a key to count this browser's games under
        session_key = request.session.session_key or ""
    return [
        _Limit(
            "quick-games:session",
            session_key,
            settings.QUICK_GAMES_PER_SESSION,
            _quick_session_refusal,
        ),
        _Limit(
            "quick-games:address",
            client_network(request),
            settings.QUICK_GAMES_PER_ADDRESS,
            _quick_network_refusal,
        ),
    ]


def quick_game_refusal(request: HttpRequest) -> str | None:
    """Why this request may not start a quick game now, or None when it may."""
    return _refusal(_quick_games(request))


def quick_game_started(request: HttpRequest) -> None:
    _counted(_quick_games(request))


# Accounts --------------------------------------------------------------------------------------


def _signup_refusal(most: int) -> str:
    return ngettext(
        "%(count)s account was made from your network in the last hour, the most allowed. "
        "Try again later.",
        "%(count)s accounts were made from your network in the last hour, the most allowed. "
        "Try again later.",
        most,
    ) % {"count": most}


def _signups(request: HttpRequest) -> list[_Limit]:
    network = client_network(request)
    return [_Limit("signups:address", network, settings.SIGNUPS_PER_ADDRESS, _signup_refusal)]


def signup_refusal(request: HttpRequest) -> str | None:
    """Why this request may not make an account now, or None when it may."""
    return _refusal(_signups(request))


def signed_up(request: HttpRequest) -> None:
    _counted(_signups(request))


# League games ----------------------------------------------------------------------------------


def _league_game_refusal(most: int) -> str:
    return ngettext(
        "You have started %(count)s league game in the last hour, the most allowed. Try again "
        "later.",
        "You have started %(count)s league games in the last hour, the most allowed. Try again "
        "later.",
        most,
    ) % {"count": most}


def _league_games(request: HttpRequest) -> list[_Limit]:
    account = str(request.user.pk)
    most = settings.LEAGUE_GAMES_PER_ACCOUNT
    return [_Limit("league-games:account", account, most, _league_game_refusal)]


def league_game_refusal(request: HttpRequest) -> str | None:
    """Why this (logged-in) request may not start a league game now, or None when it may."""
    return _refusal(_league_games(request))


def league_game_started(request: HttpRequest) -> None:
    _counted(_league_games(request))


# Big-screen codes --------------------------------------------------------------------------------

#: Wrong club-night codes typed at /tv/ per network and hour: a TV's mistypes many times over,
#: and a guesser's chance, a few dozen codes against ~887 million, stays nothing.
TV_CODE_FAILURES_PER_NETWORK = 20


def _tv_code_refusal(most: int) -> str:
    return ngettext(
        "%(count)s wrong code was typed from your network in the last hour, the most allowed. "
        "Try again later, or open the evening's public link.",
        "%(count)s wrong codes were typed from your network in the last hour, the most allowed. "
        "Try again later, or open the evening's public link.",
        most,
    ) % {"count": most}


def _tv_codes(request: HttpRequest) -> list[_Limit]:
    network = client_network(request)
    return [_Limit("tv-codes:address", network, TV_CODE_FAILURES_PER_NETWORK, _tv_code_refusal)]


def tv_code_refusal(request: HttpRequest) -> str | None:
    """Why this request may not try a big-screen code now (too many wrong ones from its
    network), or None when it may."""
    return _refusal(_tv_codes(request))


def tv_code_failed(request: HttpRequest) -> None:
    _counted(_tv_codes(request))


# The league feed -------------------------------------------------------------------------------


def feed_allowed(network: str) -> bool:
    """Whether one more request for a league's JSON feed from ``network`` (``client_network``)
    is within ``FEED_REQUESTS_PER_MINUTE``; counts it. A counter per network and minute, kept in
    this process's memory (``caches["local"]``): the feed is a GET, and a GET writes nothing
    shared, so behind N workers a network may ask up to N times the limit."""
    local = caches["local"]
    key = _key("feed:network", f"{network}:{int(time.time() // 60)}")
    local.add(key, 0, 120)
    try:
        count = local.incr(key)
    except ValueError:  # culled between the two calls: count afresh
        local.set(key, 1, 120)
        count = 1
    return count <= settings.FEED_REQUESTS_PER_MINUTE
