"""Every middleware of the site, in the order settings.MIDDLEWARE runs them: a request's context
for the logs, the load balancer's probe, compression where it is safe, and whose page a page is.

Each request gets an id (the proxy's ``X-Request-ID`` when sane) that every log record and the
response carry, so an error can be traced to the request, the user and the proxy's log line;
the tokens of secret links never reach a log line (``scoring.lib.redact``).
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from csp.middleware import CSPMiddleware
from django.contrib.auth import SESSION_KEY
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import salted_hmac

from scoring.lib.redact import redact

REQUEST_ID_HEADER = "X-Request-ID"
#: Answers with no body, which no Content-Security-Policy applies to.
BODYLESS = frozenset({204, 304})
_SANE_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
_current: ContextVar[HttpRequest | None] = ContextVar("current_request", default=None)


def request_id(request: HttpRequest) -> str:
    """The proxy's request id when it looks like one, or a new one."""
    given = request.headers.get(REQUEST_ID_HEADER, "")
    return given if _SANE_ID.fullmatch(given) else uuid.uuid4().hex


class RequestWithId(HttpRequest):
    """A request once ``RequestContextMiddleware`` has given it its id."""

    id: str


class RequestContextMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: RequestWithId) -> HttpResponse:
        request.id = request_id(request)
        token = _current.set(request)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[REQUEST_ID_HEADER] = request.id
        return response


def database_away(error: BaseException | None) -> bool:
    """Whether ``error`` says the database did not answer (stopped, restarting, out of reach, no
    free connection in time, or SQLite's file locked too long): worth trying again shortly."""
    return isinstance(error, (OperationalError, InterfaceError))


def _user_id(request: HttpRequest, *, may_query: bool) -> str:
    """The signed-in user's id from the session; only an error report may read a session the
    request has not read yet (a query: the database may be what failed)."""
    session = getattr(request, "session", None)
    if session is None or not (session.accessed or may_query):
        return "-"
    try:
        return str(session.get(SESSION_KEY, "anonymous"))
    except Exception:  # the report must still go out
        return "?"


class RequestContextFilter(logging.Filter):
    """Adds ``request_id``, ``method``, ``path`` and ``user_id`` to every record (``-`` outside)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is not None:
            return True  # already filled in by a logger's filter
        request = _current.get()
        if request is None:
            candidate = getattr(record, "request", None)
            request = candidate if isinstance(candidate, HttpRequest) else None
        if request is None:
            record.request_id = record.method = record.path = record.user_id = "-"
            return True
        record.request_id = getattr(request, "id", "-")
        record.method = request.method or "-"
        record.path = redact(request.path)
        failed = record.exc_info[1] if record.exc_info else None
        if database_away(failed):
            # Reading the session would wait for the database once more before the answer goes.
            record.user_id = "?"
        else:
            record.user_id = _user_id(request, may_query=record.levelno >= logging.ERROR)
        return True


class RedactingFormatter(logging.Formatter):
    """A formatter whose lines never carry the token of a secret link (``scoring.lib.redact``)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class HealthCheckMiddleware:
    """``/healthz`` answered before anything asks for the request's host: a load balancer asks
    each gunicorn server by its address (``curl -fsS http://127.0.0.1:8001/healthz``, with that
    Host), which ``ALLOWED_HOSTS`` does not name; every other path is checked as before."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/healthz":
            return healthz(request)
        return self.get_response(request)


health_logger = logging.getLogger("scoring.health")


def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database answers, 503 when it does not (exempt from the HTTPS redirect);
    GET and HEAD only, never cached."""
    if request.method not in ("GET", "HEAD"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, HEAD"
        return response
    try:
        # The database answers, and nothing else is asked: no table, no migration, whatever the
        # schema (docs/PERFORMANCE.md, "Statements written in SQL").
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        health_logger.exception("Health check: the database does not answer")
        response = HttpResponse("database unavailable\n", status=503, content_type="text/plain")
    else:
        response = HttpResponse("ok\n", content_type="text/plain")
    add_never_cache_headers(response)
    return response


# Compression where it is safe ---------------------------------------------------------------
#
# HTML compressed where it is safe (BREACH). BREACH guesses a secret in a compressed response
# from its size, given an input the attacker controls reflected beside it, in requests the
# attacker makes the victim's browser send. A page that draws a secret link (``{% share_link %}``
# calls ``mark_secret``) or is reached through one (a ``token`` URL argument: every phone's
# table page) is compressed only without a query string, when nothing an attacker chooses is
# reflected in it (a POST's input is the CSRF check's to refuse; and a token's page is asked for
# by whoever holds the token, which the attacker would have to know already). A password
# reset's page (``uidb64``) is never compressed.
# Django's GZipMiddleware also pads every compressed response with random bytes (Heal the
# BREACH). CSRF tokens are masked afresh in every response, Django's own mitigation; the deal
# form's entry key is random per response too.

SECRET_ATTRIBUTE = "_kozel_shows_secret"
#: URL arguments that are secrets (the tokens of links, a password reset's user id, a link drawn
#: as a QR code).
SECRET_ARGUMENTS = frozenset({"token", "uidb64", "link"})
#: Those whose pages are never compressed, whatever the request (a password reset's).
NEVER_COMPRESSED = frozenset({"uidb64"})


def mark_secret(request: HttpRequest) -> None:
    """This response shows a secret link (above)."""
    setattr(request, SECRET_ATTRIBUTE, True)


class SafeGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (with its BREACH padding), except where it is not safe."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        match = getattr(request, "resolver_match", None)
        kwargs = match.kwargs if match is not None else {}
        if not NEVER_COMPRESSED.isdisjoint(kwargs):
            return response  # a password reset's page
        secret = getattr(request, SECRET_ATTRIBUTE, False) or not SECRET_ARGUMENTS.isdisjoint(
            kwargs
        )
        if secret and request.META.get("QUERY_STRING"):
            return response  # a secret beside a query string an attacker may choose
        return super().process_response(request, response)


# Whose page this is, for the service worker's kept pages (scoring/table/offline.py) ----------

VIEWER_HEADER = "X-Kozel-Viewer"


def viewer(request: HttpRequest) -> str:
    """Who a page is for, as the service worker files it: an account (a keyed digest of its id,
    never the id itself), or "anon" for a phone that is not logged in."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return "anon"
    return salted_hmac("scoring.offline.viewer", str(user.pk)).hexdigest()[:16]


class ViewerMiddleware:
    """Names the viewer of every HTML page in ``X-Kozel-Viewer`` for the service worker (htmx's
    partials aside: the worker keeps pages a phone navigated to)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # Pages the worker may keep only: not htmx's partials (a poll's 204 then reads no
        # session), nor a server's error page (nobody's page; when the database is what failed,
        # asking whose it is would wait for the database once more).
        if (
            response.status_code < 500
            and not getattr(request, "htmx", False)
            and response.get("Content-Type", "").startswith("text/html")
        ):
            response[VIEWER_HEADER] = viewer(request)
        return response


class DocumentCSPMiddleware(CSPMiddleware):
    """django-csp's policy on every answer that has a body to apply it to: a 204 or a 304 (a
    board's poll with nothing new, most of the site's requests) gets none, and saves building it
    (docs/PERFORMANCE.md)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        if response.status_code in BODYLESS:
            return response
        return super().process_response(request, response)
