"""Real-browser fixtures: Debian's Chromium driven by pytest-playwright against the live server.

Every test runs twice, in a phone viewport (360×740) and a desktop one (1280×800). Each browser
tab collects console errors, uncaught exceptions, failed requests and error responses, and the
test fails when any appeared that it did not announce (``tab.expecting(422)``).

Chromium comes from Debian (``make browser``); Playwright never downloads one. When
/usr/bin/chromium is missing the tests fail, they do not skip: CI must not pass without a browser.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.test import Client
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Response

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
PHONE, DESKTOP = 360, 1280
VIEWPORTS = {PHONE: {"width": 360, "height": 740}, DESKTOP: {"width": 1280, "height": 800}}
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "screenshots"
TIMEOUT_MS = 10_000
SERIOUS = ("serious", "critical")

_axe = Axe()


def pytest_collection_modifyitems(config, items):
    """Browser tests run last, so the rest of the suite never shares a thread with Playwright."""
    here = Path(__file__).parent
    browser = [item for item in items if here in Path(item.path).parents]
    for item in browser:
        item.add_marker(pytest.mark.browser)
    others = [item for item in items if here not in Path(item.path).parents]
    items[:] = others + browser


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


class Tab:
    """One browser tab with its own cookies, and a record of everything that went wrong in it."""

    def __init__(self, context: BrowserContext, base_url: str, width: int) -> None:
        self.context = context
        self.base_url = base_url
        self.width = width
        self.page: Page = context.new_page()
        self.problems: list[str] = []
        self._expected: list[int] = []
        self.page.on("console", self._on_console)
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on("requestfailed", self._on_request_failed)
        self.page.on("response", self._on_response)

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = message.text
        if any(f"status of {status}" in text for status in self._expected):
            return
        self.problems.append(f"console error: {text} ({message.location.get('url', '')})")

    def _on_request_failed(self, request: Request) -> None:
        # htmx aborts its own polling request when the page goes away; that is not a failure.
        if request.failure == "net::ERR_ABORTED" and request.resource_type in ("xhr", "fetch"):
            return
        self.problems.append(f"failed request: {request.method} {request.url}: {request.failure}")

    def _on_response(self, response: Response) -> None:
        if response.status >= 400 and response.status not in self._expected:
            self.problems.append(
                f"error response: {response.status} {response.request.method} {response.url}"
            )

    @contextlib.contextmanager
    def expecting(self, status: int) -> Iterator[None]:
        """Allow error responses with this status (and Chromium's console line about them)."""
        self._expected.append(status)
        try:
            yield
        finally:
            self._expected.remove(status)

    def url(self, path: str) -> str:
        return self.base_url + path

    def goto(self, path: str) -> Response | None:
        response = self.page.goto(self.url(path))
        assert response is not None and response.ok, (
            f"{path} answered {response and response.status}"
        )
        return response

    def login(self, user) -> None:
        """Log this tab in as ``user`` (the login form has its own test; this is the fast way)."""
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        self.context.add_cookies(
            [{"name": cookie.key, "value": cookie.value, "url": self.base_url}]
        )

    def assert_clean(self) -> None:
        assert not self.problems, "the browser saw problems:\n" + "\n".join(self.problems)


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
        tab.page.remove_listener("requestfailed", tab._on_request_failed)
        tab.page.remove_listener("console", tab._on_console)
    if problems:
        pytest.fail("the browser saw problems:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def tab(open_tab) -> Tab:
    """A tab in a fresh context: a phone or a desktop nobody has used on this site yet."""
    return open_tab()


def axe_violations(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, one readable line per element."""
    results = _axe.run(page)
    lines = []
    for violation in results.response["violations"]:
        if violation["impact"] not in SERIOUS:
            continue
        for node in violation["nodes"]:
            lines.append(
                f"{violation['id']} ({violation['impact']}): {', '.join(map(str, node['target']))}"
                f" — {node.get('failureSummary', '').strip()}"
            )
    return lines


def assert_accessible(page: Page, what: str) -> None:
    problems = axe_violations(page)
    assert not problems, f"axe-core on {what}:\n" + "\n".join(problems)


def screenshot(page: Page, name: str, width: int) -> Path:
    """Save a full-page screenshot as screenshots/<name>-<width>.png (git-ignored) for people."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True, animations="disabled", caret="initial")
    return path
