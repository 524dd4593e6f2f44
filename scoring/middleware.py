"""Request context for logs, and the load balancer's probe.

Each request gets an id (the proxy's ``X-Request-ID`` when sane) that every log record and the
response carry, so an error can be traced to the request, the user and the proxy's log line;
the tokens of secret links never reach a log line (``scoring.redact``).
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar

from django.contrib.auth import SESSION_KEY
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse

from scoring.redact import redact

REQUEST_ID_HEADER = "X-Request-ID"
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
    """A formatter whose lines never carry the token of a secret link (``scoring.redact``)."""

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
            # Here, not at the top: settings' logging imports this module before the apps load.
            from scoring.views.operations import healthz

            return healthz(request)
        return self.get_response(request)
