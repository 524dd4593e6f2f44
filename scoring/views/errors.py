"""The site's own refusal pages: a form the CSRF check refused, and a request that failed
(handler500). 403 and 404 need no view: Django's handlers render templates/403.html and 404.html.
"""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import add_never_cache_headers
from django.views import defaults

from scoring.web.middleware import database_away

FORBIDDEN = 403
SERVICE_UNAVAILABLE = 503
#: Seconds a client is told to wait before trying again when the database is away.
RETRY_AFTER = 5


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check: what happened and what to do. Rendering the page's
    forms gives a browser that had no token (cookies cleared) one, so going back and reloading
    is enough; Django's middleware logs the reason."""
    return render(request, "403.html", {"csrf_failed": True}, status=FORBIDDEN)


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 "try again in a moment", with ``Retry-After``: nothing the request sent was saved.
    Rendered without the request's context, whose session and user live in the database that
    failed; an htmx request gets the message alone."""
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
