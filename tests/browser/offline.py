"""What the offline tests share: the words the status line says, typing a deal, a game kept by
the service worker, waiting until something comes true, a browser closed with no network."""

from __future__ import annotations

from playwright.sync_api import Page

from tests.browser.browsing import Tab

OFFLINE_NOISE = ("ERR_INTERNET_DISCONNECTED", "ERR_NAME_NOT_RESOLVED", "ERR_NETWORK_CHANGED")


def forgive_offline(tab: Tab) -> None:
    """What a browser with no network reports of itself (requests that could not leave) is the
    point of these tests, not a fault of the site; everything else still fails the test."""
    tab.problems[:] = [p for p in tab.problems if not any(n in p for n in OFFLINE_NOISE)]


def status(page: Page):
    return page.locator("#net-status")


FAILED = "The server could not do that just now. Nothing was lost: try again in a moment."


FORBIDDEN = "This phone may no longer do that here. Reload the page to see why."


NO_CONNECTION = "No connection. The score will catch up when the phone is back online."


NEEDS_NETWORK = "Changing a saved deal needs the network. Try again when the phone is back online."


def wait_for_worker(page: Page) -> None:
    """Until the service worker controls the page. It claims the pages open when it starts; a
    page that was still loading then (the join link's redirect) is controlled from its reload."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    if not page.evaluate("navigator.serviceWorker.controller !== null"):
        page.reload()
    until(page, lambda: page.evaluate("navigator.serviceWorker.controller !== null"), "in control")


def cache_names(page: Page) -> list[str]:
    return sorted(page.evaluate("caches.keys()"))


def came_true(page: Page, check, timeout_ms: int = 10_000) -> bool:
    """Whether ``check()`` came true within the time, asked every tenth of a second."""
    step = 100
    for _ in range(timeout_ms // step):
        if check():
            return True
        page.wait_for_timeout(step)
    return False


def until(page: Page, check, what: str, timeout_ms: int = 10_000) -> None:
    if not came_true(page, check, timeout_ms):
        raise AssertionError(f"never came true: {what}")


#: The service worker's registration as the page sees it, for a failure's message.
WORKER_STATE = """navigator.serviceWorker.getRegistration().then((r) => r ? JSON.stringify({
  installing: r.installing && r.installing.state, waiting: r.waiting && r.waiting.state,
  active: r.active && r.active.state}) : "no registration")"""


def points_field(page: Page, side: str):
    return page.get_by_role("spinbutton", name=side, exact=True)


def enter_deal(page: Page, first: str, *, naked: str | None = None) -> None:
    """Type the first side's points (the page fills the rest of 120) and record the deal."""
    points_field(page, "Anna & Vera").fill(first)
    if naked:
        page.get_by_role("group", name=f"Did {naked} take a trick?").get_by_label("No").check()
    page.get_by_role("button", name="Record deal").click()


def kept_game(tab: Tab, series) -> Page:
    """A scoring phone that opened the game and has it kept by the service worker."""
    tab.open_link(series.table.score_token)
    page = tab.page
    wait_for_worker(page)
    page.reload()
    until(page, lambda: any(n.startswith("kozel-pages-") for n in cache_names(page)), "kept")
    return page


FIVE = [
    ((60, 60), None),
    ((0, 120), (False, True)),
    ((40, 80), None),
    ((100, 20), None),
    ((70, 50), None),
]


def expected_totals(deals) -> list[str]:
    from scoring import rules

    state = rules.replay(2, [rules.Deal(points, tricks) for points, tricks in deals])
    return [str(total) for total in state.totals]


def close_offline(context, page: Page) -> None:
    """A browser closed with no network. As Playwright closes a persistent context or a page
    (or navigates it away), the page can find itself online for a moment and send what waits
    over the machine's network (seen under load on CI: the deal recorded while the phone was to
    have none), which no phone closing offline does: so the page is told it stays offline to
    its end (``navigator.onLine``, which every send of offline.js asks first), then closed
    before its context. (Killing the browser instead loses its newest cookies, and with them
    the game's link, as a killed phone's browser may.)"""
    page.evaluate("Object.defineProperty(navigator, 'onLine', {get: () => false})")
    page.close()
    context.close()


ROUND_OVER = (
    "This round is over: its deals were all recorded meanwhile (they are on the board above). "
    "The deals on this phone cannot be saved in it."
)


SERIES_OVER = (
    "This series is over: its last deal was recorded meanwhile (it is on the board above). "
    "The deals on this phone cannot be saved in it."
)


RENEWED = (
    "The scoring link this phone opened was renewed: the deals waiting here were not saved. Ask "
    "whoever started the game for the new link (its QR code) and open it on this phone: they "
    "are sent then."
)
