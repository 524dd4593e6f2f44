"""The installable app: the manifest in the reader's language, the service worker at the root
with a cache version that a deploy changes, the offline page, and whose pages the worker keeps."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from scoring.table import offline
from scoring.web.middleware import VIEWER_HEADER
from tests.helpers import creator_client, logged_in, make_user

pytestmark = pytest.mark.django_db


def test_the_manifest_makes_an_installable_app_in_the_readers_language(client: Client):
    response = client.get("/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["display"] == "standalone"
    assert data["start_url"] == "/" and data["scope"] == "/"
    sizes = {(icon["sizes"], icon["purpose"]) for icon in data["icons"]}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    assert data["name"] == "Kozel scorekeeper"
    russian = json.loads(client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="ru").content)
    assert russian["lang"] == "ru" and russian["name"] != data["name"]


def test_every_page_links_the_manifest_and_names_the_worker(client: Client):
    page = client.get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert 'data-sw="/sw.js"' in page
    assert 'media="(prefers-color-scheme: dark)"' in page


def test_the_worker_is_served_from_the_root_never_cached_and_versioned(client: Client, settings):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    body = response.content.decode()
    assert f'"version":"{offline.app_version()}"' in body
    for url in offline.shell_urls():
        assert json.dumps(url) in body
    assert "// " not in body  # minified, as the static scripts are
    # A deploy with another build id changes the worker, so phones update and drop the old cache.
    settings.APP_VERSION = "build-2"
    assert '"version":"build-2-' in client.get("/sw.js").content.decode()
    assert "Content-Security-Policy" in response  # the worker runs under the site's CSP too


def test_the_offline_page_says_so_in_the_readers_language(client: Client):
    assert "No connection" in client.get("/offline/").content.decode()
    assert "Нет связи" in client.get("/offline/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()


def test_pages_name_their_viewer_an_account_never_by_its_id(quick_series):
    anonymous = creator_client(quick_series).get(quick_series.get_absolute_url())
    assert anonymous[VIEWER_HEADER] == "anon"
    anna, boris = make_user("anna"), make_user("boris")
    first = logged_in(anna).get("/")[VIEWER_HEADER]
    second = logged_in(boris).get("/")[VIEWER_HEADER]
    assert first != second and "anon" not in (first, second)
    assert str(anna.pk) != first and len(first) == 16
    assert VIEWER_HEADER not in Client().get("/sw.js")
