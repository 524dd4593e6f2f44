"""The scoreboard's first load and the 50 KB goal of issue #15 ("the service worker and JS engine
included, compressed"): the page, every file it names, the manifest and the icon the browser
fetches to offer the install, the service worker, and what the worker fetches as it installs
(the offline deals module and the rules engine, not yet in the browser's cache).

``make lighthouse`` prints what a real browser transfers; this counts it in every test run.
Static files are counted as the site serves them to a phone (our scripts and style sheets
minified: ``kozel_site/staticfiles.py``; compressed with Brotli by whitenoise at collectstatic,
as every phone browser asks for over HTTPS), images as they are, pages as the site's own
middleware sends them (gzipped), and each response with a share for its headers."""

from __future__ import annotations

import gzip
import json
import re

import brotli
import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from scoring.table import offline
from tests.helpers import creator_client, play_deals, start_series

pytestmark = pytest.mark.django_db

BUDGET = 50 * 1024
HEADERS = 300  # what a response's status line and headers add on the wire (HTTP/2), each
#: A game in progress after seven deals with eggs and a naked deal (10 : 10), as ``make lighthouse``
#: has it: the board with the most on it, a deal form and every deal's row.
GAME = [(60, 60), ((0, 120), (False, True)), (100, 20), (40, 80), (75, 45), (95, 25), (59, 61)]
#: What the page itself makes the browser fetch (an apple-touch-icon is Safari's, on demand; a
#: lazy picture waits until it is shown, as a share link's QR code in its closed <details>:
#: test_browser_flow checks that the browser leaves it until it is unfolded).
FETCHED = re.compile(
    r'<(?:link rel="(?!apple-touch-icon)[^"]*"|script|img(?![^>]*loading="lazy"))'
    r'[^>]*?(?:href|src)="([^"]+)"'
)


def sent(client: Client, path: str) -> int:
    response = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200, path
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return len(body)


def static_file(url: str) -> int:
    path = finders.find(url.removeprefix("/static/"))
    assert path, url
    with open(path, "rb") as file:
        data = file.read()
    return len(data) if url.endswith(".png") else len(brotli.compress(data))  # as whitenoise does


def page_load(client: Client, path: str) -> dict[str, int]:
    """What the page itself loads, each file once, and its size on the wire."""
    page = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200
    body = gzip.decompress(page.content) if page.get("Content-Encoding") == "gzip" else page.content
    weights = {path: len(page.content)}
    for url in sorted(set(FETCHED.findall(body.decode()))):
        weights[url] = static_file(url) if url.startswith("/static/") else sent(client, url)
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    # The browser fetches one icon of the manifest to offer the install: the largest, counted.
    largest = max(manifest["icons"], key=lambda icon: int(icon["sizes"].split("x")[0]))
    weights[largest["src"]] = static_file(largest["src"])
    weights["/sw.js"] = sent(client, "/sw.js")
    return weights


def with_the_workers_install(client: Client, weights: dict[str, int]) -> dict[str, int]:
    """The worker's install fetches the shell: what the page has not loaded yet comes too."""
    return weights | {url: static_file(url) for url in offline.shell_urls() if url not in weights}


def total(weights: dict[str, int]) -> int:
    return sum(weights.values()) + HEADERS * len(weights)


def said(weights: dict[str, int]) -> str:
    return f"{total(weights)} B: " + ", ".join(f"{url} {size}" for url, size in weights.items())


def through_the_join_page(client: Client, path: str) -> dict[str, int]:
    """A phone that scanned the table's QR code: the join page and what it names, the tap on
    "Join" (a redirect: its headers only), then the board, whose files are already loaded."""
    weights = page_load(client, path)
    weights[f"{path} (join)"] = weights.pop(path)
    response = client.post(path)
    assert response.status_code == 302
    weights[f"{path} (joined)"] = 0
    board = page_load(client, path)
    return board | weights


@pytest.fixture
def scoreboard(db) -> tuple[Client, str]:
    """A second phone at a game with its board at its fullest, nothing of the site loaded yet."""
    series = play_deals(start_series(), GAME)
    return Client(), f"/tables/{series.table.score_token}/"


def test_what_the_scoreboard_itself_loads_stays_under_50_kb(scoreboard):
    client, path = scoreboard
    weights = through_the_join_page(client, path)
    assert "/manifest.webmanifest" in weights and any(u.endswith("htmx.min.js") for u in weights)
    assert 'id="deal-form"' in client.get(path).content.decode()  # the board, not the join page
    assert total(weights) < BUDGET, said(weights)


def test_the_first_load_with_the_workers_install_stays_under_50_kb(scoreboard):
    client, path = scoreboard
    weights = with_the_workers_install(client, through_the_join_page(client, path))
    assert any("kozel-rules" in url for url in weights) and any("offline" in url for url in weights)
    assert total(weights) < BUDGET, said(weights)


def test_the_game_creators_board_stays_under_50_kb_with_its_links_to_share(db):
    """The phone that started the game, its links' QR codes folded away: its board with what
    it names and the worker's install (its files came with the home page already)."""
    series = play_deals(start_series(), GAME)
    client, path = creator_client(series), f"/tables/{series.table.score_token}/"
    weights = with_the_workers_install(client, page_load(client, path))
    assert "Share this game" in client.get(path).content.decode()
    assert total(weights) < BUDGET, said(weights)
