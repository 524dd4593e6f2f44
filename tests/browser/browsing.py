"""What the browser tests share: a tab that records what went wrong, axe-core, screenshots."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.test import Client
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, Request, Response

PHONE, DESKTOP = 360, 1280
VIEWPORTS = {PHONE: {"width": 360, "height": 740}, DESKTOP: {"width": 1280, "height": 800}}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
SERIOUS = ("serious", "critical")
EVERY_IMPACT = ("minor", "moderate", "serious", "critical")

# axe-core's JavaScript ships inside the axe-playwright-python wheel (axe.min.js): no download.
_axe = Axe()


class Tab:
    """One browser tab with its own cookies, and a record of everything that went wrong in it."""

    def __init__(self, context: BrowserContext, base_url: str, width: int) -> None:
        self.context = context
        self.base_url = base_url
        self.width = width
        self.page: Page = context.new_page()
        self.problems: list[str] = []
        self._expected: list[int] = []
        self.page.on("console", self.on_console)
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on("requestfailed", self.on_request_failed)
        self.page.on("response", self.on_response)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        text = message.text
        if any(f"status of {status}" in text for status in self._expected):
            return
        self.problems.append(f"console error: {text} ({message.location.get('url', '')})")

    def on_request_failed(self, request: Request) -> None:
        # A load the browser itself cancelled (the next navigation, htmx replacing a request,
        # the favicon of a page being left) is not a failure of the site.
        if request.failure == "net::ERR_ABORTED":
            return
        self.problems.append(f"failed request: {request.method} {request.url}: {request.failure}")

    def on_response(self, response: Response) -> None:
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

    def open_link(self, token: str) -> None:
        """Open a game's score or watch link as a person does: the link, then its one button
        (a phone that holds the link already goes straight to the game)."""
        self.goto(f"/tables/{token}/")
        button = self.page.locator(f'form[action="/tables/{token}/"] button[type=submit]')
        if button.count():
            with self.page.expect_navigation():
                button.click()

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


def axe_violations(
    page: Page, rules: list[str] | None = None, impacts: tuple[str, ...] = SERIOUS
) -> list[str]:
    """axe-core's serious and critical violations on the page, one readable line per element.

    ``rules``: run only these axe rules (say ``["color-contrast"]`` after switching to dark mode).
    ``impacts``: the violations that count (``EVERY_IMPACT``: minor and moderate ones too).
    """
    options: dict = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    results = _axe.run(page, options=options)
    lines = []
    for violation in results.response["violations"]:
        if violation["impact"] not in impacts:
            continue
        for node in violation["nodes"]:
            lines.append(
                f"{violation['id']} ({violation['impact']}): {', '.join(map(str, node['target']))}"
                f" — {node.get('failureSummary', '').strip()}"
            )
    return lines


def screenshot(page: Page, name: str, width: int) -> Path:
    """Save a full-page screenshot as screenshots/<name>-<width>.png (git-ignored) for people."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True, animations="disabled", caret="initial")
    return path
