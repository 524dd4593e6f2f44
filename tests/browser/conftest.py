"""Real-browser fixtures: Debian's Chromium driven by pytest-playwright against the live server.

Every test runs twice, in a phone viewport (360×740) and a desktop one (1280×800); with
``--phone-only`` (CI's second pass, on PostgreSQL) at the phone's width only. Each browser
tab collects console errors, uncaught exceptions, failed requests and error responses, and the
test fails when any appeared that it did not announce (``tab.expecting(422)``).

Chromium comes from Debian (``make browser``); Playwright never downloads one. When
/usr/bin/chromium is missing the tests fail, they do not skip: CI must not pass without a browser.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.browsing import DESKTOP, PHONE, VIEWPORTS, Tab

# Playwright's sync API keeps an asyncio loop in this thread, and Django then refuses ORM calls
# here (SynchronousOnlyOperation). Django documents this switch for exactly this case; the ORM
# is still only used synchronously, from one thread at a time per connection.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Generous on a busy 2-core CI machine; a passing assertion returns as soon as it holds.
TIMEOUT_MS = 10_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(autouse=True)
def limits_out_of_reach(settings):
    """The whole browser run starts games, signs up and fails log-ins from one address,
    127.0.0.1, in well under an hour: more than the limits allow one address
    (tests/table/test_limits.py, tests/site/test_accounts.py and test_logins.py test them)."""
    settings.QUICK_GAMES_PER_SESSION = settings.QUICK_GAMES_PER_ADDRESS = 100_000
    settings.SIGNUPS_PER_ADDRESS = settings.LEAGUE_GAMES_PER_ACCOUNT = 100_000
    settings.LOGIN_FAILURES_PER_ADDRESS = 100_000


def pytest_collection_modifyitems(config, items):
    """Browser tests run last, so the rest of the suite never shares a thread with Playwright."""
    here = Path(__file__).parent
    browser = [item for item in items if here in Path(item.path).parents]
    for item in browser:
        item.add_marker(pytest.mark.browser)
    if config.getoption("--phone-only"):
        desktop = [item for item in browser if _width(item) == DESKTOP]
        config.hook.pytest_deselected(items=desktop)
        browser = [item for item in browser if _width(item) != DESKTOP]
    others = [item for item in items if here not in Path(item.path).parents]
    items[:] = others + browser


def _width(item) -> int | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("width") if callspec else None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright's browser, launched from Debian's Chromium (fail, never skip, without)."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}. Install it with `make browser` "
            "(apt-get install chromium); the browser tests never download a browser.",
            pytrace=False,
        )
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url(live_server) -> str:
    """Relative URLs in the browser go to Django's live server.

    (This also replaces pytest-playwright's fallback fixture, which pytest deprecates.)
    """
    return live_server.url


@pytest.fixture(params=[PHONE, DESKTOP], ids=lambda width: f"{width}px")
def width(request) -> int:
    """The viewport width of this run of the test: a phone, then a desktop."""
    return request.param


@pytest.fixture
def open_tab(new_context, live_server, width) -> Iterator[Callable[..., Tab]]:
    """Open a tab in a fresh browser context (own cookies) at this test's viewport.

    Every tab must end the test without console errors, failed requests or error responses.
    """
    tabs: list[Tab] = []

    def _open(**context_args) -> Tab:
        context = new_context(viewport=VIEWPORTS[width], **context_args)
        context.set_default_timeout(TIMEOUT_MS)
        tab = Tab(context, live_server.url, width)
        tabs.append(tab)
        return tab

    yield _open
    problems = [problem for tab in tabs for problem in tab.problems]
    for tab in tabs:
        tab.page.remove_listener("requestfailed", tab.on_request_failed)
        tab.page.remove_listener("console", tab.on_console)
    if problems:
        pytest.fail("the browser saw problems:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def tab(open_tab) -> Tab:
    """A tab in a fresh context: a phone or a desktop nobody has used on this site yet."""
    return open_tab()


@pytest.fixture
def screen(new_context, live_server) -> Iterator[Callable[[dict], Tab]]:
    """A tab of a given size in a fresh context; each must end without browser problems."""
    tabs: list[Tab] = []

    def _open(viewport: dict) -> Tab:
        context = new_context(viewport=viewport)
        context.set_default_timeout(TIMEOUT_MS)
        tab = Tab(context, live_server.url, viewport["width"])
        tabs.append(tab)
        return tab

    yield _open
    problems = [problem for tab in tabs for problem in tab.problems]
    for tab in tabs:
        tab.page.remove_listener("requestfailed", tab.on_request_failed)
        tab.page.remove_listener("console", tab.on_console)
    if problems:
        pytest.fail("the browser saw problems:\n" + "\n".join(problems), pytrace=False)
