"""Seasons and publishing in a real browser: an owner starts a season across three club nights
with a late joiner and reads it at a phone's width; a finished series' preview picture fetched
and checked; the embeddable standings inside a page of another origin, which also reads the
feed, whose ETag answers 304."""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PIL import Image
from playwright.sync_api import expect

from scoring.leagues import services as league_services
from scoring.models import League, Membership, Role
from tests.browser.browsing import PHONE, axe_violations, screenshot
from tests.helpers import finished, free_port, make_user
from tests.seasons.nights import night, refold

pytestmark = pytest.mark.browser

FIRST = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor", "Zhenya", "Ilya"]
LATER = [*FIRST[:7], "Zoya"]


def club() -> tuple[League, object]:
    owner = make_user("olga")
    league = League.objects.create(name="Village club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    return league, owner


def test_an_owner_starts_a_season_across_three_club_nights_with_a_late_joiner(open_tab):
    league, owner = club()
    night(league, FIRST, date(2025, 5, 12))
    night(league, LATER, date(2025, 5, 26))
    night(league, LATER, date(2025, 6, 9), losers=[1, 1])
    refold(league)
    tab = open_tab()
    tab.login(owner)
    tab.goto(f"/leagues/{league.pk}/standings/")
    tab.page.get_by_role("link", name="Seasons").click()
    form = tab.page.locator("form.season-form")
    form.get_by_label("Name of the season").fill("Spring 2025")
    form.get_by_label("From", exact=True).fill("2025-06-30")
    form.get_by_label("To", exact=True).fill("2025-05-01")
    form.get_by_label("Best nights that count").fill("2")
    form.get_by_label("Nights needed to be ranked").fill("3")
    with tab.expecting(422):
        form.get_by_role("button", name="Start the season").click()
        expect(tab.page.get_by_text("The season cannot end before it starts.")).to_be_visible()
    form = tab.page.locator("form.season-form")
    form.get_by_label("From", exact=True).fill("2025-05-01")
    form.get_by_label("To", exact=True).fill("2025-06-30")
    form.get_by_label("Club nights only").check()
    form.get_by_role("button", name="Start the season").click()

    page = tab.page
    expect(page.get_by_role("heading", name="Spring 2025")).to_be_visible()
    table = page.get_by_role("table", name="Season standings")
    anna = table.locator("tr.line").filter(has_text="Anna")
    expect(anna).to_contain_text("2")  # two series won in her two best nights
    explained = table.locator("tr.line:has-text('Anna') + tr.words")
    expect(explained).to_have_text("2 of 3 nights count: May 12, May 26.")
    apart = page.locator("section.apart")
    expect(apart.get_by_text("Zoya")).to_be_visible()
    expect(apart).to_contain_text("1 more night to be ranked.")
    expect(apart).to_contain_text("Ilya")
    expect(page.locator(".season-awards")).to_contain_text("Most series won")
    page.reload()  # without the flash of "started" (base.html's list with role=status: axe's)
    assert axe_violations(page) == []
    if tab.width == PHONE:
        # The page fits a phone: nothing wider than the screen but the table's own scroller.
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE
    screenshot(page, "season", tab.width)


def test_a_finished_series_declares_a_preview_picture_of_the_right_size_and_type(open_tab):
    league, owner = club()
    series = finished(league, names=("Анна", "Вера", "田中", "శ్రీను"), loser=1)
    tab = open_tab(locale="ru-RU", extra_http_headers={"Accept-Language": "ru"})
    tab.login(owner)
    tab.goto(series.get_absolute_url())
    image = tab.page.locator('meta[property="og:image"]').get_attribute("content")
    assert image is not None and image.endswith("lang=ru")
    title = tab.page.locator('meta[property="og:title"]').get_attribute("content")
    assert title is not None and "Анна" in title
    answer = tab.context.request.get(image)
    assert answer.status == 200 and answer.headers["content-type"] == "image/png"
    picture = Image.open(io.BytesIO(answer.body()))
    assert (picture.format, picture.size) == ("PNG", (1200, 630))


class _OtherSite(BaseHTTPRequestHandler):
    """A club's own site on another origin: one page that frames the standings and another
    that tries to frame a page that may not be framed."""

    pages: dict[str, str] = {}

    def do_GET(self) -> None:
        body = self.pages.get(self.path, "").encode()
        self.send_response(200 if body else 204)  # 204: its favicon, say
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[tuple[str, dict[str, str]]]:
    pages: dict[str, str] = {}
    handler = type("Handler", (_OtherSite,), {"pages": pages})
    server = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pages
    server.shutdown()
    server.server_close()


def test_the_standings_framed_on_another_origin_and_its_feed(open_tab, live_server, other_site):
    league, _owner = club()
    finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    league = league_services.share_renew(league=league)
    token = league.share_token
    site, pages = other_site
    pages["/club.html"] = (
        "<!doctype html><title>Our club</title><h1>Our club</h1>"
        f'<iframe src="{live_server.url}/embed/{token}/?lang=ru" title="standings" '
        'width="340" height="400"></iframe>'
    )
    tab = open_tab()
    tab.page.goto(f"{site}/club.html")
    framed = tab.page.frame_locator("iframe")
    expect(framed.get_by_role("heading", name="Village club")).to_be_visible()
    expect(framed.get_by_role("row").filter(has_text="Anna")).to_be_visible()
    expect(framed.locator("html")).to_have_attribute("lang", "ru")
    assert framed.locator("form").count() == 0
    cookies = [c for c in tab.context.cookies() if live_server.url.split(":")[1] in c["domain"]]
    assert cookies == []  # the framed standings set none

    # The club's page reads the feed across origins.
    feed = f"{live_server.url}/public/{token}/feed.json"
    document = tab.page.evaluate("url => fetch(url).then(answer => answer.json())", feed)
    assert document["version"] == 1
    assert [row["player"] for row in document["standings"]][:2] == ["Anna", "Boris"]
    first = tab.context.request.get(feed)
    etag = first.headers["etag"]
    again = tab.context.request.get(feed, headers={"If-None-Match": etag})
    assert again.status == 304
    assert json.loads(first.body())["league"] == {"name": "Village club"}

    # Any other page of the site refuses to be framed there.
    pages["/steal.html"] = (
        "<!doctype html><title>Not ours</title>"
        f'<iframe src="{live_server.url}/public/{token}/" title="standings"></iframe>'
    )
    tab.page.goto(f"{site}/steal.html")
    tab.page.wait_for_timeout(500)
    assert "Village club" not in tab.page.frames[-1].content()
    # Chromium blocks the load and says why on its console: the refusal this test asked for.
    refused = ("frame-ancestors", "ERR_BLOCKED_BY_RESPONSE")
    tab.problems[:] = [p for p in tab.problems if not any(word in p for word in refused)]


def test_the_public_standings_hand_a_text_for_a_chat_to_the_clipboard(open_tab):
    league, _owner = club()
    finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    league = league_services.share_renew(league=league)
    tab = open_tab(permissions=["clipboard-read", "clipboard-write"])
    tab.goto(f"/public/{league.share_token}/")
    block = tab.page.locator("[data-share-result]")
    text = block.get_by_label("Text for a chat")
    expect(text).to_have_value(re.compile(r"^Village club: 1 series played\. Top: "))
    expect(text).to_have_value(re.compile(rf"/public/{league.share_token}/$"))
    has_share_sheet = tab.page.evaluate("'share' in navigator")
    expect(block.get_by_role("button", name="Share")).to_be_visible(visible=has_share_sheet)
    block.get_by_role("button", name="Copy").click()
    expect(block.get_by_role("status")).to_have_text("Copied")
    copied = tab.page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("Village club: 1 series played.") and league.share_token in copied
    assert axe_violations(tab.page) == []
