"""Offline at the table (issue #15), in a real browser: every failed request is said in the page,
the site installs as an app, its service worker keeps the games this phone holds, and deals
entered with no network are kept, scored on the phone and saved once when it is back online."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.browsing import Tab
from tests.helpers import start_series

pytestmark = pytest.mark.browser

OFFLINE_NOISE = ("ERR_INTERNET_DISCONNECTED", "ERR_NAME_NOT_RESOLVED", "ERR_NETWORK_CHANGED")


def forgive_offline(tab: Tab) -> None:
    """What a browser with no network reports of itself (requests that could not leave) is the
    point of these tests, not a fault of the site; everything else still fails the test."""
    tab.problems[:] = [p for p in tab.problems if not any(n in p for n in OFFLINE_NOISE)]


def status(page: Page):
    return page.locator("#net-status")


def test_no_connection_is_said_at_once_in_the_page(tab):
    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    expect(status(page)).to_be_hidden()
    tab.context.set_offline(True)
    # The board's poll fails: the page says so, politely, without waiting for a deal.
    expect(status(page)).to_have_text(
        "No connection. The score will catch up when the phone is back online."
    )
    expect(status(page)).to_have_attribute("aria-live", "polite")
    tab.context.set_offline(False)
    expect(status(page)).to_be_hidden()
    forgive_offline(tab)


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (500, "The server could not do that just now."),
        (403, "This phone may no longer do that here."),
    ],
)
def test_a_refused_or_failed_deal_is_said_not_swallowed(tab, code, words):
    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    page.route(
        f"**/series/{series.pk}/deals/",
        lambda route: route.fulfill(status=code, body="no", content_type="text/html"),
    )
    page.get_by_role("spinbutton", name="Anna & Vera", exact=True).fill("70")
    with tab.expecting(code):
        page.get_by_role("button", name="Record deal").click()
        expect(status(page)).to_contain_text(words)
    assert series.deals.count() == 0
    # htmx's own console line about the refusal is the subject of this test.
    tab.problems[:] = [p for p in tab.problems if f"Status Error Code {code}" not in p]


def test_the_russian_page_says_it_in_russian(tab):
    series = start_series()
    tab.context.add_cookies([{"name": "django_language", "value": "ru", "url": tab.base_url}])
    tab.open_link(series.score_token)
    tab.context.set_offline(True)
    expect(status(tab.page)).to_contain_text("Нет связи")
    tab.context.set_offline(False)
    forgive_offline(tab)
