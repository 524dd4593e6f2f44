"""The site's own refusal pages: a form Django's CSRF check refused (settings.CSRF_FAILURE_VIEW).

403, 404 and 500 need no view: Django's default handlers render templates/403.html, 404.html
and 500.html, in the language LocaleMiddleware chose for the request.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

FORBIDDEN = 403


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check: what happened and what to do, in the person's language.

    Rendering the page's forms asks for a CSRF token, so a browser that had none (cookies
    cleared) gets one with this answer, and going back and reloading is enough. The reason
    itself is logged by Django's middleware (django.security.csrf), not shown.
    """
    return render(request, "403.html", {"csrf_failed": True}, status=FORBIDDEN)
