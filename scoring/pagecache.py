"""Rendered scoreboards reused until their series changes: a cache, never a source of truth.

A board changes only when its series' ``version`` does (every write bumps it, in the same
transaction as the deals), so the bytes rendered for one version can be served again to the
next request that would render exactly the same board. A key holds everything its bytes depend
on: the code that rendered them (``code_version``), the series and its version and links, what
the request may do with it, its language, the user, the undo offer. What differs per response is
left out of the cached bytes as placeholders and filled in for each one (``fill``): the CSRF
token (masked afresh per response, as Django does), the deal form's one-time ``entry_key``, and
the deal form's ``autofocus`` (a whole page's only).

Two kinds of entry make every answer (``Entry``):

- the board alone (``board_key``): what htmx gets (a recorded deal's answer, the live poll),
  kept with its page title and its seats' names;
- the page around a board (``shell_key``): everything but the board and the title, which do not
  change it; so a deal recorded changes the board alone, and the next whole page is the shell
  kept before around the board the deal's answer rendered (``assemble``): nothing rendered.

The cache is each process's own memory (``CACHES["pages"]``), and with ``PAGE_CACHE_URL`` one
Redis behind it for every process and server (``CACHES["pages_shared"]``: the board a deal's
POST rendered in one worker is then the next page's in another; an entry never changes under its
key, so what a process read from Redis it keeps in memory): the placeholders and
``code_version`` are the same in every process that runs the same code with the same
``SECRET_KEY``, and a release's new templates or code never meet the bytes of an old one. Every
request still reads the series' version from the database, so a page another process or server
made stale is never served; losing the cache costs only the time to render again, and a Redis
that does not answer is a miss, never an error (after a failure this process leaves it alone for
``PAUSE`` seconds).
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from functools import cache as once
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.db import connections, router
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.html import escape
from django.utils.translation import get_language

from scoring.access import SeriesAccess, created_series_ids, held_tokens
from scoring.compression import mark_secret, shows_secret


def _stand_in(name: str) -> str:
    """A placeholder no page text holds by chance, the same in every process of this site."""
    return name + salted_hmac("scoring.pagecache", name).hexdigest()[:32]


#: Stand-ins rendered into cached bytes, replaced in every response.
CSRF_PLACEHOLDER = _stand_in("csrf")
ENTRY_PLACEHOLDER = uuid.UUID(hex=salted_hmac("scoring.pagecache", "entry").hexdigest()[:32])
#: Where the deal form's ``autofocus`` goes: a whole page focuses the first side, a board swapped
#: in by htmx does not (it would take the focus from a player typing on).
FOCUS_PLACEHOLDER = _stand_in("focus")
#: Where a page's shell takes its board and its title (``assemble``).
BOARD_PLACEHOLDER = _stand_in("board")
TITLE_PLACEHOLDER = _stand_in("title")
_CSRF = CSRF_PLACEHOLDER.encode()
_ENTRY = str(ENTRY_PLACEHOLDER).encode()
_FOCUS = FOCUS_PLACEHOLDER.encode()
_BOARD = BOARD_PLACEHOLDER.encode()
_TITLE = TITLE_PLACEHOLDER.encode()
#: The query parameters a cached board may carry (``undone`` is part of the key; ``version``,
#: the live poll's, changes only the language form's "next" on a whole page: the path is keyed).
KEYED_PARAMETERS = frozenset({"undone", "version"})


#: Seconds a process leaves a shared page cache alone after it failed to answer.
PAUSE = 10.0
_paused_until = 0.0
logger = logging.getLogger(__name__)


class Entry(NamedTuple):
    """Cached bytes, placeholders and all, and what goes with them."""

    body: bytes
    content_type: str
    secret: bool  # shows a secret link: never compressed (scoring.compression)
    title: str = ""  # a board's: its page's title
    names: tuple[str, ...] = ()  # a board's: its seats' names, clockwise (the names form)


#: What the cached bytes are rendered from: a change to any of these is a new release's markup.
RENDERED_FROM = ("templates", "scoring", "locale")
RENDERED_SUFFIXES = frozenset({".html", ".py", ".mo", ".txt", ".js"})


@once
def code_version() -> str:
    """A digest of the templates, code and catalogues that render pages, the static files'
    manifest (pages name hashed files) and ``APP_VERSION``: part of every key, so bytes cached
    by another release (in a shared cache) are never served."""
    digest = hashlib.sha256(str(getattr(settings, "APP_VERSION", "")).encode())
    base = Path(settings.BASE_DIR)
    for folder in RENDERED_FROM:
        for path in sorted((base / folder).rglob("*")):
            if path.suffix in RENDERED_SUFFIXES and path.is_file():
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if manifest.is_file():
        digest.update(manifest.read_bytes())
    return digest.hexdigest()[:16]


def cache():
    """This process's own page cache (in front of the shared one, if any)."""
    return caches["pages"]


def shared():
    """The page cache every process shares (``PAGE_CACHE_URL``), or None."""
    return caches["pages_shared"] if "pages_shared" in settings.CACHES else None


def _ask_shared(action):
    """``action`` done on the shared cache, or None: none configured, paused after a failure,
    or failing now (then paused for ``PAUSE`` seconds: a shared cache down costs renders, as
    after any miss, never an error)."""
    global _paused_until
    everyone = shared()
    if everyone is None or time.monotonic() < _paused_until:
        return None
    try:
        return action(everyone)
    except Exception as error:
        _paused_until = time.monotonic() + PAUSE
        logger.warning("page cache not answering (%s): rendering for %s s", error, PAUSE)
        return None


def _cached(key: str):
    """The entry under ``key``: from this process's memory, else from the shared cache (and
    kept in memory: an entry never changes under its key); None also when the shared cache
    does not answer."""
    found = cache().get(key)
    if found is None:
        found = _ask_shared(lambda everyone: everyone.get(key))
        if found is not None:
            cache().set(key, found)
    return found


def _keep(key: str, entry: tuple) -> None:
    cache().set(key, entry)
    _ask_shared(lambda everyone: everyone.set(key, entry))


def cacheable(request: HttpRequest) -> bool:
    """Whether this request's page may come from (and go to) the cache: no flash message
    waiting to be shown, only the known query parameters. (The views decide which answers are
    the plain page: a GET's, or the board right after a deal is recorded.)"""
    if not set(request.GET).issubset(KEYED_PARAMETERS):
        return False
    return not len(get_messages(request))  # counts without marking them read


def board_key(request: HttpRequest, access: SeriesAccess, *, undone: bool) -> str:
    """Everything the board alone depends on besides the per-response placeholders: what htmx
    gets, and what a whole page is built around (the path is not in it: only a page shows it)."""
    series = access.series
    user = request.user
    parts = (
        "board",
        code_version(),
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
        undone,
        *_request_parts(request, path=False),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def shell_key(request: HttpRequest, access: SeriesAccess, *, names: tuple[str, ...]) -> str:
    """Everything a whole page shows around its board: not the series' version (a deal changes
    the board and the title alone), but its links, league, game and house rules, what the
    request may do, the seats' ``names`` where the page offers to change them (else ()), the
    user, the language and the path (the language form's "next")."""
    series = access.series
    user = request.user
    parts = (
        "shell",
        code_version(),
        series.pk,
        series.score_token,
        series.watch_token,
        series.league_id,
        series.finished,
        series.mode,
        sorted(series.rules.items()),
        access.can_score,
        access.can_manage,
        access.link,
        user.pk if user.is_authenticated else None,
        names,
        *_request_parts(request),
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
    links = held_tokens(request)
    created = created_series_ids(request)
    ids = sorted(set(links) | {int(pk) for pk in created})
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
    parts = (
        "home",
        code_version(),
        sorted(links.items()),
        sorted(created),
        rows,
        *_request_parts(request),
    )
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


def entry(key: str) -> Entry | None:
    """What is cached under ``key``, or None (also when the cache does not answer)."""
    found = _cached(key)
    return found if isinstance(found, Entry) else None


def serve(request: HttpRequest, key: str) -> HttpResponse | None:
    """The cached page under ``key`` as a fresh response, or None."""
    found = entry(key)
    return None if found is None else respond(request, found)


def respond(request: HttpRequest, found: Entry) -> HttpResponse:
    """An entry as this request's response, filled in."""
    if found.secret:
        mark_secret(request)
    return HttpResponse(fill(found.body, request), content_type=found.content_type)


def keep(
    request: HttpRequest,
    key: str,
    rendered: HttpResponse,
    *,
    title: str = "",
    names: tuple[str, ...] = (),
) -> Entry:
    """Keep what was rendered (with its placeholders) under ``key``; a board with its page
    title and its seats' names."""
    kept = Entry(rendered.content, rendered["Content-Type"], shows_secret(request), title, names)
    _keep(key, kept)
    return kept


def store(request: HttpRequest, key: str, rendered: HttpResponse, **extra) -> HttpResponse:
    """Keep a rendered page (``keep``) and answer with it filled in."""
    keep(request, key, rendered, **extra)
    rendered.content = fill(rendered.content, request)
    return rendered


def assemble(request: HttpRequest, shell: Entry, board: Entry) -> HttpResponse:
    """A whole page: the shell around the board and its title, filled in for this response."""
    if shell.secret or board.secret:
        mark_secret(request)
    body = shell.body.replace(_TITLE, escape(board.title).encode()).replace(_BOARD, board.body)
    return HttpResponse(fill(body, request), content_type=shell.content_type)
