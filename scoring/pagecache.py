"""Rendered scoreboards reused until their series changes: a cache, never a source of truth.

A board changes only when its series' ``version`` does (every write bumps it, in the same
transaction as the deals), so the bytes rendered for one version can be served again to the
next request that would render exactly the same page. The key holds everything the page
depends on (``board_key``): the series and its version and links, what the request may do with
it, its language, the user, htmx or a whole page, the undo offer, the path. What differs per
response is left out of the cached bytes as placeholders and filled in for each one
(``fill``): the CSRF token (masked afresh per response, as Django does), the deal form's
one-time ``entry_key``, and the deal form's ``autofocus`` (a whole page's only).

One board, two answers: the board alone (htmx: a recorded deal, the live poll) and the whole page
around it. A whole page is built around the board's cached bytes (``board_bytes``), so the board
a recorded deal rendered is not rendered again for the next whole page.

The cache (``CACHES["pages"]``) is each process's own memory, or with ``PAGE_CACHE_URL`` one
Redis for every process and server (the board a deal's POST rendered in one worker is then the
next page's in another). Either way every request still reads the series' version from the
database, so a page another process or server made stale is never served; losing the cache
costs only the time to render again, and a Redis that does not answer is a miss, never an error
(after a failure this process leaves it alone for ``PAUSE`` seconds).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
import uuid

from django.contrib.messages import get_messages
from django.core.cache import caches
from django.db import connections, router
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.translation import get_language

from scoring.access import SESSION_CREATED, SESSION_LINKS, SeriesAccess
from scoring.compression import mark_secret, shows_secret

#: Stand-ins rendered into a cached page, replaced in every response (new in every process).
CSRF_PLACEHOLDER = "csrf" + secrets.token_hex(16)
ENTRY_PLACEHOLDER = uuid.uuid4()
#: Where the deal form's ``autofocus`` goes: a whole page focuses the first side, a board swapped
#: in by htmx does not (it would take the focus from a player typing on).
FOCUS_PLACEHOLDER = "focus" + secrets.token_hex(16)
_CSRF = CSRF_PLACEHOLDER.encode()
_ENTRY = str(ENTRY_PLACEHOLDER).encode()
_FOCUS = FOCUS_PLACEHOLDER.encode()
#: The query parameters a cached board may carry (``undone`` is part of the key; ``version``,
#: the live poll's, changes only the language form's "next" on a whole page: the path is keyed).
KEYED_PARAMETERS = frozenset({"undone", "version"})


#: Seconds a process leaves a shared page cache alone after it failed to answer.
PAUSE = 10.0
_paused_until = 0.0
logger = logging.getLogger(__name__)


def cache():
    return caches["pages"]


def _cached(key: str):
    """The entry under ``key``, or None: also when the cache does not answer."""
    global _paused_until
    if time.monotonic() < _paused_until:
        return None
    try:
        return cache().get(key)
    except Exception as error:  # a shared cache down: render, as after any miss
        _paused_until = time.monotonic() + PAUSE
        logger.warning("page cache not answering (%s): rendering for %s s", error, PAUSE)
        return None


def _keep(key: str, entry: tuple) -> None:
    global _paused_until
    if time.monotonic() < _paused_until:
        return
    try:
        cache().set(key, entry)
    except Exception as error:
        _paused_until = time.monotonic() + PAUSE
        logger.warning("page cache not answering (%s): rendering for %s s", error, PAUSE)


def cacheable(request: HttpRequest) -> bool:
    """Whether this request's page may come from (and go to) the cache: no flash message
    waiting to be shown, only the known query parameters. (The views decide which answers are
    the plain page: a GET's, or the board right after a deal is recorded.)"""
    if not set(request.GET).issubset(KEYED_PARAMETERS):
        return False
    return not len(get_messages(request))  # counts without marking them read


def board_key(
    request: HttpRequest, access: SeriesAccess, *, undone: bool, partial: bool | None = None
) -> str:
    """Everything a scoreboard page depends on besides the per-response placeholders.

    ``partial``: the key of the board alone (what htmx gets), else of what this request gets.
    The board alone does not show the path (only a whole page's language form does)."""
    series = access.series
    user = request.user
    if partial is None:
        partial = bool(getattr(request, "htmx", False))
    parts = (
        "board",
        series.pk,
        series.version,
        series.score_token,  # renewing a link does not bump the version
        series.watch_token,
        series.league_id,
        series.finished,
        access.can_score,
        access.can_manage,
        access.link,
        user.pk if user.is_authenticated else None,
        partial,
        undone,
        *_request_parts(request, path=not partial),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def _request_parts(request: HttpRequest, *, path: bool = True) -> tuple:
    return (
        get_language(),
        timezone.get_current_timezone_name(),
        request.get_full_path() if path else None,  # the language form's "next" on a page
        request.get_host(),  # share links are absolute
        request.is_secure(),
    )


def home_key(request: HttpRequest) -> str | None:
    """The home page's key for a browser without an account, or None (not cached).

    Its games are the quick games the session holds links for or started
    (``selectors.visible_series_filter``): one plain query reads their versions, links and
    leagues, so a game played on, renamed, renewed, moved or deleted changes the key. A
    logged-in user's home also lists the games of their leagues: not cached.
    """
    if request.user.is_authenticated:
        return None
    links = request.session.get(SESSION_LINKS, {})
    created = request.session.get(SESSION_CREATED, [])
    ids = sorted({int(pk) for pk in links} | {int(pk) for pk in created})
    rows: list = []
    if ids:
        from scoring.models import Series

        connection = connections[router.db_for_read(Series)]
        table = connection.ops.quote_name(Series._meta.db_table)
        marks = ", ".join(["%s"] * len(ids))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT id, version, score_token, watch_token, league_id, finished FROM "
                f"{table} WHERE id IN ({marks}) ORDER BY id",
                ids,
            )
            rows = cursor.fetchall()
    parts = ("home", sorted(links.items()), sorted(created), rows, *_request_parts(request))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def fill(body: bytes, request: HttpRequest) -> bytes:
    """The cached bytes with this response's CSRF token, a fresh one-time entry key, and the
    focus on the deal form for a whole page."""
    if _CSRF in body:
        body = body.replace(_CSRF, get_token(request).encode())
    if _ENTRY in body:
        body = body.replace(_ENTRY, str(uuid.uuid4()).encode())
    if _FOCUS in body:
        body = body.replace(_FOCUS, b"" if getattr(request, "htmx", False) else b"autofocus")
    return body


def board_bytes(key: str) -> tuple[bytes, str] | None:
    """The board alone as cached under ``key`` (``board_key(..., partial=True)``), placeholders
    and all, and the page title it was stored with: what a whole page is built around."""
    entry = _cached(key)
    return None if entry is None else (entry[0], entry[3])


def serve(request: HttpRequest, key: str) -> HttpResponse | None:
    """The cached page under ``key`` as a fresh response, or None."""
    entry = _cached(key)
    if entry is None:
        return None
    body, content_type, secret, _title = entry
    response = HttpResponse(fill(body, request), content_type=content_type)
    if secret:
        mark_secret(request)
    return response


def store(
    request: HttpRequest, key: str, response: HttpResponse, *, answer: bool = True, title: str = ""
) -> HttpResponse:
    """Keep a rendered page (with its placeholders) and answer with it filled in (``answer``;
    else it stays as rendered: the board a whole page is built around). ``title``: a board's
    page title, kept with it for the page built around it."""
    body = response.content
    _keep(key, (body, response["Content-Type"], shows_secret(request), title))
    if answer:
        response.content = fill(body, request)
    return response
