"""The site's own refusal pages: a form Django's CSRF check refused (settings.CSRF_FAILURE_VIEW),
and a request that failed (the URLconf's handler500).

403 and 404 need no view: Django's default handlers render templates/403.html and 404.html, in
the language LocaleMiddleware chose for the request.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.views import defaults

from scoring.middleware import database_away

FORBIDDEN = 403
SERVICE_UNAVAILABLE = 503
#: Seconds a client is told to wait before trying again when the database is away.
RETRY_AFTER = 5


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check: what happened and what to do, in the person's language.

    Rendering the page's forms asks for a CSRF token, so a browser that had none (cookies
    cleared) gets one with this answer, and going back and reloading is enough. The reason
    itself is logged by Django's middleware (django.security.csrf), not shown.
    """
    return render(request, "403.html", {"csrf_failed": True}, status=FORBIDDEN)


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 "try again in a moment", with ``Retry-After``: nothing the request sent was saved.

    Rendered without the request's context (its session and user live in the database that
    failed); in the language LocaleMiddleware chose. An htmx request gets the message alone.
    """
    fragment = request.headers.get("HX-Request") == "true"
    body = render_to_string("503.html", {"fragment": fragment})
    response = HttpResponse(body, status=SERVICE_UNAVAILABLE)
    response["Retry-After"] = str(RETRY_AFTER)
    add_never_cache_headers(response)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """A request that raised (Django calls this while the exception is being handled): the 503
    when the database is what failed, else Django's 500 page (templates/500.html)."""
    if database_away(sys.exception()):
        return unavailable(request)
    return defaults.server_error(request)
