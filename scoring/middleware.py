"""Request context for logs, and guards against ids that cannot name anything.

Every record written while a request is served names the request.

``RequestContextMiddleware`` gives each request an id (the proxy's ``X-Request-ID`` when it is a
sane one, else a new one), echoes it in the response, and keeps the request in a context
variable; ``RequestContextFilter`` copies method, path, user id and request id onto each log
record, so an error in the logs can be traced to the request, the user and the proxy's log line.

``PathArgumentsMiddleware`` answers 404 for a path id beyond 64 bits; ``id_param`` reads an id
from a query or form parameter the same way, for every view that takes one.

The path goes in without the token of a secret link, and ``RedactingFormatter`` takes such tokens
out of the whole line (a message or a traceback may name the path too).
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.functional import empty

from scoring.redact import redact

REQUEST_ID_HEADER = "X-Request-ID"
MAX_ID = 2**63 - 1  # the largest primary key (a 64-bit integer) any database here stores
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII digits: MAX_ID has 19
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


def id_param(value: object, *, high: int = MAX_ID) -> int | None:
    """The whole number from 1 to ``high`` that a request parameter spells, else None.

    ASCII digits only: ``str.isdigit()`` is true for "²", which ``int()`` refuses, and ``int()``
    takes "٣" or "０"; a number beyond 64 bits makes a query raise instead of finding nothing.
    """
    if not isinstance(value, str) or not _DIGITS.fullmatch(value):
        return None
    number = int(value)
    return number if 1 <= number <= high else None


def database_away(error: BaseException | None) -> bool:
    """Whether ``error`` says the database did not answer (stopped, restarting, out of reach, no
    free connection in time, or SQLite's file locked too long): worth trying again shortly."""
    return isinstance(error, (OperationalError, InterfaceError))


def _user_id(request: HttpRequest, *, may_query: bool) -> str:
    """The signed-in user's id; only an error report may look it up in the database."""
    user = request.__dict__.get("user")
    wrapped = getattr(user, "_wrapped", user)
    if (wrapped is None or wrapped is empty) and user is not None and may_query:
        try:
            wrapped = user._wrapped if user.is_authenticated is not None else None
        except Exception:  # the database may be what failed; the report must still go out
            return "?"
    if wrapped is not None and wrapped is not empty:
        return str(wrapped.pk) if getattr(wrapped, "is_authenticated", False) else "anonymous"
    session = request.__dict__.get("session")
    cache = getattr(session, "_session_cache", None)
    if isinstance(cache, dict):
        return str(cache.get("_auth_user_id", "anonymous"))
    return "-"


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
        # An error report may look the user up, unless the database is what failed: the look-up
        # would wait for it once more before the answer goes out.
        failed = record.exc_info[1] if record.exc_info else None
        may_query = record.levelno >= logging.ERROR and not database_away(failed)
        record.user_id = _user_id(request, may_query=may_query)
        return True


class RedactingFormatter(logging.Formatter):
    """A formatter whose lines never carry the token of a secret link (``scoring.redact``)."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class PathArgumentsMiddleware:
    """404 for a URL whose id or token cannot name a row, before any view queries with it.

    ``<int:pk>`` accepts any number of digits, and a database refuses a number beyond 64 bits
    (SQLite raises OverflowError); PostgreSQL refuses a NUL character in a string. Either would
    be a server error in whatever view got it; no id or token of ours looks like that.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> None:
        for value in (*args, *kwargs.values()):
            if isinstance(value, int) and not -MAX_ID <= value <= MAX_ID:
                raise Http404("No such page.")
            if isinstance(value, str) and "\x00" in value:
                raise Http404("No such page.")


class HealthCheckMiddleware:
    """``/healthz`` answered before anything asks for the request's host: a load balancer asks
    each gunicorn server by its address (``curl -fsS http://127.0.0.1:8001/healthz``, with that
    Host), which ``ALLOWED_HOSTS`` does not name; every other path is checked as before."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/healthz":
            # Here, not at the top: settings' logging imports this module before the apps load.
            from scoring.views.operations import healthz

            return healthz(request)
        return self.get_response(request)
