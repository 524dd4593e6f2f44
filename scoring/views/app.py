"""The installable app: its manifest, its service worker and the page it shows offline."""

from __future__ import annotations

import json

import rjsmin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.http import require_safe
from django.views.decorators.vary import vary_on_headers

from scoring.table import offline
from scoring.web.middleware import VIEWER_HEADER

THEME_LIGHT = "#1d5c3a"  # the header bar (app.css)


@require_safe
@vary_on_headers("Cookie", "Accept-Language")
@cache_control(max_age=3600)
def manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest, in the reader's language."""
    data = {
        "name": _("Kozel scorekeeper"),
        "short_name": _("Kozel"),
        "description": _(
            "Score Kozel (Козёл) at the table: card points in, defeat points, eggs and "
            "the goat out."
        ),
        "lang": request.LANGUAGE_CODE,
        "id": "/",
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#f6f4ef",
        "theme_color": THEME_LIGHT,
        "icons": [
            {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
            for path, sizes, purpose in offline.ICONS
        ],
    }
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


@require_safe
@never_cache
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, at the site's root so that its scope is every page."""
    config = {
        "version": offline.app_version(),
        "shell": offline.shell_urls(),
        "offline": reverse("offline"),
        "pages": r"^/(series/\d+|tables/[A-Za-z0-9_-]{22,64})/$",
        "forget": [reverse("login"), reverse("logout")],
        "viewerHeader": VIEWER_HEADER,
        "recordedHeader": offline.RECORDED_HEADER,
    }
    # Minified as our static scripts are (rjsmin: its comments go, nothing is renamed).
    script = rjsmin.jsmin(render_to_string("scoring/sw.js", {"config": json.dumps(config)}))
    response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def offline_page(request: HttpRequest) -> HttpResponse:
    """What the service worker shows for a page this phone did not keep, with no network."""
    return render(request, "scoring/offline.html")
