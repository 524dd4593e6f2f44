"""Offline at the table (issue #15), in a real browser: every failed request is said in the page,
the site installs as an app, its service worker keeps the games this phone holds, and deals
entered with no network are kept, scored on the phone and saved once when it is back online."""

from __future__ import annotations

import re

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


def test_the_offline_engine_loads_when_a_deal_is_typed_not_with_the_page(tab):
    """offline.js and the rules engine (12 KB) are not part of a scoreboard's first load: they
    come when the player starts typing a deal (or the phone goes offline)."""
    series = start_series()
    asked: list[str] = []
    tab.page.on("request", lambda request: asked.append(request.url))
    tab.open_link(series.score_token)
    tab.page.wait_for_load_state("networkidle")
    assert not [url for url in asked if "offline" in url and url.endswith(".js")]
    assert not [url for url in asked if "kozel-rules" in url]
    with tab.page.expect_request(lambda request: "kozel-rules" in request.url):
        tab.page.get_by_role("spinbutton", name="Anna & Vera", exact=True).fill("7")
    assert [url for url in asked if "/js/offline" in url]


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
    tab.context.route(
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


FAILED = "The server could not do that just now. Nothing was lost: try again in a moment."
FORBIDDEN = "This phone may no longer do that here. Reload the page to see why."
NO_CONNECTION = "No connection. The score will catch up when the phone is back online."


NEEDS_NETWORK = "Changing a saved deal needs the network. Try again when the phone is back online."


@pytest.mark.parametrize("asked", ["undo", "put back", "live poll"])
@pytest.mark.parametrize("answer", [500, 403, None])
def test_every_request_of_the_board_that_fails_is_said_at_once(tab, asked, answer):
    """Undo, put back and the board's own asking: a server error, a refusal and a request that
    never reached the server are each said in the page. A failure of the player's own request
    stays said while the board's asking goes on and succeeds; the asking's own failure ends
    with its next answer."""
    from tests.helpers import play_deals

    series = play_deals(start_series(), [(70, 50), (40, 80)])
    tab.open_link(series.score_token)
    page = tab.page
    if asked == "put back":
        page.get_by_role("button", name="Undo").click()
        expect(page.locator("#undone")).to_be_visible()
    path = {"undo": "undo/", "put back": "redo/", "live poll": "live/"}[asked]
    lost = NO_CONNECTION if asked == "live poll" else NEEDS_NETWORK
    words = {500: FAILED, 403: FORBIDDEN, None: lost}[answer]

    def fail(route):
        if answer is None:
            route.abort("internetdisconnected")  # the network or the server is gone
        else:
            route.fulfill(status=answer, body="no", content_type="text/html")

    def failing(url: str) -> bool:
        return f"/series/{series.pk}/{path}" in url

    with tab.expecting(answer or 0):
        # The context's routes, not the page's: they hold whether or not the service worker has
        # taken the page over yet (it installs on the first visit, while the test goes on).
        tab.context.route(failing, fail)
        if asked == "undo":
            page.get_by_role("button", name="Undo").click()
        elif asked == "put back":
            page.get_by_role("button", name="Put deal 2 back").click()
        expect(status(page)).to_have_text(words)
        if asked != "live poll":
            page.wait_for_timeout(4500)  # the board asks twice meanwhile, and is answered
            expect(status(page)).to_have_text(words)
        else:
            tab.context.unroute(failing)
            if answer == 403:
                page.wait_for_timeout(4500)
                expect(status(page)).to_have_text(words)  # until the page is reloaded
            else:
                expect(status(page)).to_be_hidden()
    assert series.deals.count() == (1 if asked == "put back" else 2)
    forgive_offline(tab)
    # htmx's own console lines about the failure are the subject of this test.
    said = (f"Status Error Code {answer}", "htmx:sendError", "htmx:afterRequest")
    tab.problems[:] = [p for p in tab.problems if not any(s in p for s in said)]


def test_an_asking_that_hangs_is_given_up_said_and_caught_up(tab):
    """A phone between cells can keep a dead connection open: the board's asking that gets no
    answer is given up (app.js, ASK_TIMEOUT), said like no connection, and asked again; the
    next answer ends the message and brings what the other phones recorded meanwhile."""
    from tests.helpers import play_deals

    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    held = []  # asked, never answered
    tab.context.route(f"**/series/{series.pk}/live/**", lambda route: held.append(route))
    expect(status(page)).to_have_text(NO_CONNECTION, timeout=20_000)
    assert held, "the board asked"
    tab.context.unroute(f"**/series/{series.pk}/live/**")
    play_deals(series, [(70, 50)])  # another phone
    expect(page.locator("#scoreboard tbody tr")).to_have_count(1)
    expect(status(page)).to_be_hidden()
    forgive_offline(tab)


def test_the_russian_page_says_it_in_russian(tab):
    series = start_series()
    tab.context.add_cookies([{"name": "django_language", "value": "ru", "url": tab.base_url}])
    tab.open_link(series.score_token)
    tab.context.set_offline(True)
    expect(status(tab.page)).to_contain_text("Нет связи")
    tab.page.get_by_role("spinbutton", name="Anna & Vera", exact=True).fill("70")
    tab.page.locator("form.deal-form button[type=submit]").click()
    expect(status(tab.page)).to_have_text(
        "Нет связи. Сдач ждут сохранения: 1. Они сохранятся, когда телефон снова будет в сети."
    )
    expect(tab.page.locator(".waiting li")).to_contain_text(
        "Сдача 1: Anna & Vera 70, Boris & Gleb 50."
    )
    tab.context.set_offline(False)
    expect(tab.page.locator(".waiting")).to_have_count(0)
    forgive_offline(tab)


def wait_for_worker(page: Page) -> None:
    """Until the service worker controls the page. It claims the pages open when it starts; a
    page that was still loading then (the join link's redirect) is controlled from its reload."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    if not page.evaluate("navigator.serviceWorker.controller !== null"):
        page.reload()
    until(page, lambda: page.evaluate("navigator.serviceWorker.controller !== null"), "in control")


def cache_names(page: Page) -> list[str]:
    return sorted(page.evaluate("caches.keys()"))


def until(page: Page, check, what: str, timeout_ms: int = 10_000) -> None:
    step = 100
    for _ in range(timeout_ms // step):
        if check():
            return
        page.wait_for_timeout(step)
    raise AssertionError(f"never came true: {what}")


def test_the_site_installs_as_an_app(browser_type, browser_type_launch_args, live_server, tmp_path):
    """Chromium never offers to install from an incognito context (a Playwright context is one):
    a browser with a profile on disk, as a phone has."""
    series = start_series()
    context = browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        **browser_type_launch_args,
        viewport={"width": 360, "height": 740},
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(f"{live_server.url}/join/{series.score_token}/")
        page.locator("form[action^='/join/'] button[type=submit]").click()
        expect(page.locator(".sides")).to_be_visible()
        wait_for_worker(page)
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == []
        assert '"display": "standalone"' in manifest["data"]
        for icon in ("icon-192.png", "icon-512.png", "icon-maskable-512.png"):
            assert page.request.get(f"{live_server.url}/static/img/app/{icon}").ok
    finally:
        context.close()


def test_a_kept_scoreboard_opens_offline_after_a_reload(tab):
    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    wait_for_worker(page)
    page.reload()  # now through the worker, which keeps the page
    until(page, lambda: any(n.startswith("kozel-pages-") for n in cache_names(page)), "kept")
    tab.context.set_offline(True)
    page.reload()
    expect(page.locator(".sides .side-name")).to_have_text(["Anna & Vera", "Boris & Gleb"])
    expect(page.locator("#net-status")).to_be_visible()
    # A page this phone never kept: the site's offline page, not the browser's error.
    page.goto(tab.url("/history/"))
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    tab.context.set_offline(False)
    forgive_offline(tab)


def test_a_stale_worker_updates_itself_after_a_deploy(tab, settings):
    from scoring.table.offline import app_version

    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    wait_for_worker(page)
    before = "kozel-shell-" + app_version()
    until(page, lambda: before in cache_names(page), "the first shell cached")
    settings.APP_VERSION = "deploy-2"  # a deploy: the worker's source changes
    after = "kozel-shell-" + app_version()
    assert after != before
    page.reload()  # a navigation makes the browser look for a new worker
    until(page, lambda: after in cache_names(page), "the new shell cached")
    # The new worker takes over (and deletes the old shell) once the old one has finished what
    # it was handling, the reload's navigation: slow on a machine busy with other browser tests.
    until(page, lambda: before not in cache_names(page), "the old shell deleted", 30_000)
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")


def test_logging_out_forgets_the_private_pages_this_phone_kept(tab):
    from tests.browser.data import a_league

    league = a_league(series=1)
    owner = league.memberships.get().user
    live = league.series.filter(finished=False).get()
    tab.login(owner)
    tab.goto(f"/series/{live.pk}/")
    page = tab.page
    wait_for_worker(page)
    page.reload()
    until(page, lambda: any(n.startswith("kozel-pages-") for n in cache_names(page)), "kept")
    with page.expect_navigation():
        page.get_by_role("button", name="Log out").click()
    until(page, lambda: not any(n.startswith("kozel-pages-") for n in cache_names(page)), "gone")
    # Offline, the league's page is no longer on this phone for whoever holds it next.
    tab.context.set_offline(True)
    page.goto(tab.url(f"/series/{live.pk}/"))
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    expect(page.locator(".sides")).to_have_count(0)
    tab.context.set_offline(False)
    forgive_offline(tab)


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
    tab.open_link(series.score_token)
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


def test_five_deals_offline_are_kept_scored_and_saved_once(tab):
    from scoring.models import Deal

    series = start_series()
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    for (first, _rest), tricks in FIVE:
        enter_deal(page, str(first), naked="Anna & Vera" if tricks else None)
        expect(page.locator(".waiting li")).to_have_count(FIVE.index(((first, _rest), tricks)) + 1)
    waiting = page.locator(".waiting li")
    expect(waiting).to_have_count(5)
    expect(waiting.nth(0)).to_contain_text("Eggs! 60:60.")
    expect(waiting.nth(1)).to_contain_text("(naked)")
    expect(page.locator(".sides .side-total")).to_have_text(expected_totals(FIVE))
    expect(page.get_by_role("heading", name="Deal 6: card points")).to_be_visible()
    expect(status(page)).to_contain_text("Deals waiting to be saved: 5.")
    assert series.deals.count() == 0

    page.reload()  # offline: the kept page, and the deals from the phone
    expect(page.locator(".waiting li")).to_have_count(5)
    expect(page.locator(".sides .side-total")).to_have_text(expected_totals(FIVE))

    tab.context.set_offline(False)
    expect(status(page)).to_have_text("Back online: every waiting deal is saved.")
    expect(status(page)).to_be_hidden(timeout=8_000)  # said, then let go
    expect(page.locator(".waiting")).to_have_count(0)
    expect(page.locator("table.deals tbody th")).to_have_text(["5", "4", "3", "2", "1"])
    expect(page.locator(".sides .side-total")).to_have_text(expected_totals(FIVE))
    page.wait_for_timeout(500)  # nothing more arrives later either
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    assert [(row.points_0, row.points_1) for row in rows] == [points for points, _ in FIVE]
    assert len({row.entry_key for row in rows}) == 5
    forgive_offline(tab)


def test_deals_offline_show_the_eggs_multiplier_the_dealer_and_the_goat(tab):
    """Eggs that double the next deal, the dealer after each deal and the goat at the end, all
    worked out on the phone with no network, as the server then records them."""
    from scoring import rules
    from scoring.rules.table import dealer_seat
    from tests.helpers import TEAMS

    ruleset = rules.PRESETS["eggs-double"]
    deals = [((60, 60), None), ((40, 80), None), ((100, 20), None)]
    deals += [((0, 120), (False, True)), ((40, 80), None)]

    def dealer_after(count: int) -> str:
        state = rules.replay(2, [rules.Deal(*deal) for deal in deals[:count]], rules=ruleset)
        return TEAMS[dealer_seat(0, (0, 1, 0, 1), state)]

    series = start_series(ruleset=ruleset)
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    facts = page.locator(".waiting-facts")
    waiting = page.locator(".waiting li")
    dealer = page.locator(".table-facts [data-fact=dealer] strong")
    enter_deal(page, "60")
    expect(facts).to_have_text("Totals with them: Anna & Vera 0, Boris & Gleb 0.")
    # The board's own lines say what the deals waiting make of it, never the contrary.
    expect(dealer).to_have_text(dealer_after(1))
    expect(page.locator("[data-fact=leader]")).to_have_text("Leads: whoever took the last trick")
    expect(page.locator("[data-fact=multiplier]")).to_have_text("Next deal counts ×2")
    expect(page.locator(".last-result")).to_have_text(
        "Deal 1: Anna & Vera 60, Boris & Gleb 60. Eggs! 60:60. (not saved yet)"
    )
    enter_deal(page, "40")
    expect(waiting.nth(1)).to_have_text(
        "Deal 2: Anna & Vera 40, Boris & Gleb 80. Anna & Vera +4 (×2 for the eggs.)"
    )
    expect(facts).to_have_text("Totals with them: Anna & Vera 4, Boris & Gleb 0.")
    expect(dealer).to_have_text(dealer_after(2))
    expect(page.locator("[data-fact=multiplier]")).to_be_hidden()
    expect(page.locator(".last-result")).to_contain_text("Deal 2: Anna & Vera 40")
    enter_deal(page, "100")
    enter_deal(page, "0", naked="Anna & Vera")
    expect(waiting.nth(3)).to_contain_text("Anna & Vera +6 (naked)")
    enter_deal(page, "40")  # Anna & Vera reach 12: the goat
    expect(waiting).to_have_count(5)
    expect(facts).to_have_text(
        "Totals with them: Anna & Vera 12, Boris & Gleb 4. The goat: Anna & Vera."
    )
    expect(page.locator(".sides .side").first).to_have_class(re.compile(r"\bgoat\b"))
    expect(page.locator("form.deal-form")).to_be_hidden()

    tab.context.set_offline(False)
    expect(page.locator("table.deals tbody th")).to_have_text(["5", "4", "3", "2", "1"])
    expect(page.locator(".waiting")).to_have_count(0)
    until(page, lambda: series.deals.count() == 5, "the five deals recorded")
    series.refresh_from_db()
    assert series.finished
    expect(page.locator(".sides .side-total")).to_have_text(["12", "4"])
    forgive_offline(tab)


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


def test_the_kept_game_and_its_waiting_deals_outlive_a_browser_restart(
    browser_type, browser_type_launch_args, live_server, tmp_path
):
    """A phone's browser closed at once after a deal was typed with no network, and opened again
    still offline: the kept scoreboard opens with the deal waiting. Opened once more online (the
    page's note of waiting deals lost, as a killed browser may lose it), the deal is saved once
    as the page loads."""
    series = start_series()
    profile = str(tmp_path / "profile")
    options = {**browser_type_launch_args, "viewport": {"width": 360, "height": 740}}

    def browser(*, online: bool, note_lost: bool = False):
        # Offline from its start: the tab it reopens must not load the game online first.
        context = browser_type.launch_persistent_context(profile, **options, offline=not online)
        if note_lost:
            context.add_init_script("localStorage.clear()")
        return context, context.pages[0] if context.pages else context.new_page()

    context, page = browser(online=True)
    # A browser without Background Sync (Firefox, Safari): Chromium's would fire it as it starts
    # again, and its worker send the deal over the machine's network (the emulated offline is
    # the pages'); that sync has a test of its own.
    context.add_init_script(
        "Object.defineProperty(ServiceWorkerRegistration.prototype, 'sync', {get: () => undefined})"
    )
    try:
        page.goto(f"{live_server.url}/join/{series.score_token}/")
        page.locator("form[action^='/join/'] button[type=submit]").click()
        expect(page.locator(".sides")).to_be_visible()
        wait_for_worker(page)
        page.reload()
        until(page, lambda: any(n.startswith("kozel-pages-") for n in cache_names(page)), "kept")
        context.set_offline(True)
        enter_deal(page, "70")
        expect(page.locator(".waiting li")).to_have_count(1)
        page.wait_for_timeout(1500)  # the phone put down for a while
    finally:
        close_offline(context, page)

    context, page = browser(online=False)
    try:
        page.goto(f"{live_server.url}/series/{series.pk}/")
        expect(page.locator(".sides .side-name")).to_have_text(["Anna & Vera", "Boris & Gleb"])
        expect(page.locator(".waiting li")).to_have_text(
            re.compile(r"^Deal 1: Anna & Vera 70, Boris & Gleb 50\.")
        )
    finally:
        close_offline(context, page)
    assert series.deals.count() == 0

    context, page = browser(online=True, note_lost=True)
    try:
        page.goto(f"{live_server.url}/series/{series.pk}/")
        expect(page.locator("table.deals tbody th")).to_have_text(["1"])
        expect(page.locator(".waiting")).to_have_count(0)
        page.wait_for_timeout(500)
        assert list(series.deals.values_list("points_0", flat=True)) == [70]
    finally:
        context.close()


@pytest.mark.parametrize("choice", ["Keep mine after theirs", "Drop mine"])
def test_two_phones_offline_record_deal_6_and_the_second_chooses(open_tab, choice):
    from scoring.models import Deal
    from tests.helpers import play_deals

    series = play_deals(start_series(), [(40, 80)] * 5)
    first, second = open_tab(), open_tab()
    pages = [kept_game(first, series), kept_game(second, series)]
    for tab in (first, second):
        tab.context.set_offline(True)
    enter_deal(pages[0], "100")
    enter_deal(pages[1], "70")
    for page in pages:
        expect(page.locator(".waiting li")).to_have_count(1)
        expect(page.locator(".waiting li")).to_contain_text("Deal 6:")

    first.context.set_offline(False)
    expect(pages[0].locator(".waiting")).to_have_count(0)
    with second.expecting(409):  # the server's answer to a deal 6 that is taken
        second.context.set_offline(False)
        # Both versions: theirs on the board, mine waiting, and the choice.
        alert = pages[1].locator(".waiting .notice")
        expect(alert).to_contain_text("Another phone recorded deals meanwhile")
    expect(pages[1].locator("table.deals tbody th").first).to_have_text("6")
    expect(pages[1].locator(".waiting li")).to_contain_text("Anna & Vera 70")
    assert list(
        Deal.objects.filter(series=series, number=6).values_list("points_0", flat=True)
    ) == [100]

    pages[1].get_by_role("button", name=choice).click()
    expect(pages[1].locator(".waiting")).to_have_count(0)
    stored = list(
        Deal.objects.filter(series=series).order_by("number").values_list("points_0", flat=True)
    )
    if choice == "Drop mine":
        pages[1].wait_for_timeout(500)
        stored = list(
            Deal.objects.filter(series=series).order_by("number").values_list("points_0", flat=True)
        )
        assert stored == [40] * 5 + [100]
    else:
        expect(pages[1].locator("table.deals tbody th").first).to_have_text("7")
        stored = list(
            Deal.objects.filter(series=series).order_by("number").values_list("points_0", flat=True)
        )
        assert stored == [40] * 5 + [100, 70]
    expect(
        pages[1].get_by_role("heading", name=f"Deal {len(stored) + 1}: card points")
    ).to_be_visible()
    for tab in (first, second):
        forgive_offline(tab)


ROUND_OVER = (
    "This round is over: its deals were all recorded meanwhile (they are on the board above). "
    "The deals on this phone cannot be saved in it."
)
SERIES_OVER = (
    "This series is over: its last deal was recorded meanwhile (it is on the board above). "
    "The deals on this phone cannot be saved in it."
)


@pytest.mark.parametrize("ended", ["round", "series"])
def test_a_waiting_deal_that_theirs_left_no_room_for_can_only_be_dropped(open_tab, ended):
    """Both phones offline type the last deal there is room for (a club night's round of 2, or
    the deal that ends the series): the second phone back online is told the round (or the
    series) is over and offered only to drop its deal; keeping it after theirs could never be
    saved."""
    from tests.helpers import LONG, play_deals, record

    if ended == "round":
        series = record(start_series(ruleset=LONG, deal_limit=2), (40, 80))
        last, words = 2, ROUND_OVER
    else:
        series = play_deals(start_series(), [(100, 20)] * 2)  # Boris & Gleb on 8 of 12
        last, words = 3, SERIES_OVER
    first, second = open_tab(), open_tab()
    pages = [kept_game(first, series), kept_game(second, series)]
    for tab in (first, second):
        tab.context.set_offline(True)
    enter_deal(pages[0], "100")  # the last deal of the round, or the one that ends the series
    enter_deal(pages[1], "70")
    for page in pages:
        expect(page.locator(".waiting li")).to_contain_text(f"Deal {last}:")

    first.context.set_offline(False)
    expect(pages[0].locator(".waiting")).to_have_count(0)
    with second.expecting(409):
        second.context.set_offline(False)
        expect(pages[1].locator(".waiting .notice")).to_have_text(words)
    waiting = pages[1].locator(".waiting")
    expect(waiting.locator("li")).to_contain_text("Anna & Vera 70")
    expect(waiting.get_by_role("button", name="Keep mine after theirs")).to_have_count(0)
    expect(status(pages[1])).to_be_hidden()  # the choice says it; nothing is being sent

    waiting.get_by_role("button", name="Drop mine").click()
    expect(pages[1].locator(".waiting")).to_have_count(0)
    expect(pages[1].locator("form.deal-form")).to_have_count(0)
    pages[1].wait_for_timeout(500)
    stored = list(series.deals.order_by("number").values_list("points_0", flat=True))
    assert stored[-1] == 100 and len(stored) == last
    for tab in (first, second):
        forgive_offline(tab)


def test_a_tab_closed_while_sending_loses_and_doubles_nothing(tab):
    from scoring.models import Deal

    series = start_series()
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    enter_deal(page, "100")
    enter_deal(page, "70")
    expect(page.locator(".waiting li")).to_have_count(2)

    # The first deal reaches the server, and then the tab is gone before the answer comes.
    def reach_then_vanish(route):
        route.fetch()
        route.abort()

    page.route(f"**/series/{series.pk}/deals/", reach_then_vanish)  # goes with the tab
    tab.context.set_offline(False)
    until(page, lambda: series.deals.count() == 1, "the first deal recorded")
    page.close()

    again = tab.context.new_page()  # the phone opens the game again
    again.goto(tab.url(f"/series/{series.pk}/"))
    expect(again.locator(".waiting")).to_have_count(0)
    expect(again.locator("table.deals tbody th")).to_have_text(["2", "1"])
    again.wait_for_timeout(500)
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    assert [(row.points_0, row.points_1) for row in rows] == [(100, 20), (70, 50)]
    tab.problems[:] = [p for p in tab.problems if "ERR_FAILED" not in p]
    forgive_offline(tab)


def test_undoing_a_waiting_deal_drops_it_and_a_saved_one_needs_the_network(tab):
    from tests.helpers import record

    series = record(start_series(), (40, 80))  # deal 1 is saved
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    enter_deal(page, "100")
    enter_deal(page, "60")
    expect(page.locator(".waiting li")).to_have_count(2)
    expect(page.locator(".sides .side-total")).to_have_text(["2", "4"])
    page.get_by_role("button", name="Drop waiting deal 3").click()
    expect(page.locator(".waiting li")).to_have_count(1)
    expect(page.get_by_role("heading", name="Deal 3: card points")).to_be_visible()
    page.get_by_role("button", name="Drop waiting deal 2").click()
    expect(page.locator(".waiting")).to_have_count(0)
    expect(page.locator(".sides .side-total")).to_have_text(["2", "0"])
    expect(page.get_by_role("heading", name="Deal 2: card points")).to_be_visible()
    # Changing the saved deal is the server's: with no network the page says so and stays.
    expect(status(page)).to_have_text(NO_CONNECTION)
    page.get_by_role("button", name="Undo").click()
    expect(status(page)).to_have_text(NEEDS_NETWORK)
    expect(page.locator("#undone")).to_have_count(0)
    page.get_by_role("link", name="Edit deal 1").click()
    expect(status(page)).to_have_text(NEEDS_NETWORK)
    expect(page).to_have_url(tab.url(f"/series/{series.pk}/"))
    expect(page.locator(".sides")).to_be_visible()
    tab.context.set_offline(False)
    page.wait_for_timeout(500)
    assert series.deals.count() == 1
    forgive_offline(tab)


def test_another_account_on_this_phone_never_opens_the_last_ones_kept_pages(tab):
    from tests.browser.data import a_league
    from tests.helpers import make_user

    league = a_league(series=1)
    live = league.series.filter(finished=False).get()
    tab.login(league.memberships.get().user)
    tab.goto(f"/series/{live.pk}/")
    page = tab.page
    wait_for_worker(page)
    page.reload()
    until(page, lambda: any(n.startswith("kozel-pages-") for n in cache_names(page)), "kept")
    kept_before = [n for n in cache_names(page) if n.startswith("kozel-pages-")]

    # Someone else's session on this phone (no logout seen): their first page is enough.
    tab.login(make_user("stranger"))
    game = start_series()
    tab.open_link(game.score_token)
    page.reload()
    until(page, lambda: kept_before[0] not in cache_names(page), "the first account's pages gone")
    tab.context.set_offline(True)
    page.goto(tab.url(f"/series/{live.pk}/"))
    expect(page.get_by_role("heading", name="No connection")).to_be_visible()
    page.goto(tab.url(f"/series/{game.pk}/"))
    expect(page.locator(".sides .side-name")).to_have_text(["Anna & Vera", "Boris & Gleb"])
    tab.context.set_offline(False)
    forgive_offline(tab)


def test_background_sync_sends_the_waiting_deals_with_no_page_of_the_site_open(tab):
    from scoring.models import Deal

    series = start_series()
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    enter_deal(page, "100")
    enter_deal(page, "70")
    expect(page.locator(".waiting li")).to_have_count(2)

    # The phone's browser is left on another site; the network comes back; the browser fires
    # the sync the page registered (here through the DevTools protocol, as Chromium would).
    other = tab.context.new_page()
    cdp = tab.context.new_cdp_session(other)
    registrations: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.close()
    tab.context.set_offline(False)
    until(other, lambda: bool(registrations), "the worker's registration")
    cdp.send(
        "ServiceWorker.dispatchSyncEvent",
        {
            "origin": tab.base_url,
            "registrationId": registrations[0]["registrationId"],
            "tag": "kozel-deals",
            "lastChance": False,
        },
    )
    until(other, lambda: series.deals.count() == 2, "both deals recorded by the worker")
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    assert [(row.points_0, row.points_1) for row in rows] == [(100, 20), (70, 50)]

    again = tab.context.new_page()  # opened again: nothing waits, nothing is sent twice
    again.goto(tab.url(f"/series/{series.pk}/"))
    expect(again.locator(".waiting")).to_have_count(0)
    expect(again.locator("table.deals tbody th")).to_have_text(["2", "1"])
    assert series.deals.count() == 2
    forgive_offline(tab)


RENEWED = (
    "The scoring link this phone opened was renewed: the deals waiting here were not saved. Ask "
    "whoever started the game for the new link (its QR code) and open it on this phone: they "
    "are sent then."
)


def test_deals_waiting_when_the_score_link_is_renewed_stay_until_the_new_link_is_opened(tab):
    """Two deals typed with no network; meanwhile the game's creator renews the score link. Back
    online, the phone is not told "saved": its deals stay on it, with what to do; opening the
    new link on it sends them, each recorded once (issue #25)."""
    from scoring.table import services

    series = start_series()
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    enter_deal(page, "70")
    enter_deal(page, "40")
    expect(page.locator(".waiting li")).to_have_count(2)
    renewed = services.series_link_renew(series=series, link="score")  # the creator's phone
    with tab.expecting(410), tab.expecting(286):
        tab.context.set_offline(False)
        expect(page.locator(".waiting .notice")).to_have_text(RENEWED)
        page.wait_for_timeout(2500)  # the board's asking finds the link gone meanwhile
        expect(page.locator(".waiting li")).to_have_count(2)
        expect(status(page)).not_to_have_text("Back online: every waiting deal is saved.")
        assert series.deals.count() == 0
        tab.open_link(renewed.score_token)  # the new link, from the creator's QR code
        until(page, lambda: series.deals.count() == 2, "the two waiting deals recorded")
    expect(page.locator(".waiting")).to_have_count(0)
    expect(page.locator("table.deals tbody th")).to_have_text(["2", "1"])
    assert [deal.points[:2] for deal in series.deals.order_by("number")] == [(70, 50), (40, 80)]
    forgive_offline(tab)


def test_the_status_line_never_covers_the_board_it_speaks_of(tab):
    """With deals waiting, the status line sticks to the top of the screen: the board is
    scrolled just below it, so the totals and the waiting deals stay in view (issue #25)."""
    series = start_series()
    page = kept_game(tab, series)
    tab.context.set_offline(True)
    for points in ("70", "40", "100"):
        enter_deal(page, points)
    expect(page.locator(".waiting li")).to_have_count(3)
    line = status(page).bounding_box()
    sides = page.locator(".sides").bounding_box()
    assert line is not None and sides is not None
    assert sides["y"] >= line["y"] + line["height"] - 1, (line, sides)
    tab.context.set_offline(False)
    expect(page.locator(".waiting")).to_have_count(0)
    forgive_offline(tab)


def test_changing_a_saved_deal_offline_says_why_until_the_phone_is_back(tab):
    """Offline, Edit says it needs the network, and the board's failing asking does not replace
    that with "No connection" a moment later (issue #25)."""
    from tests.helpers import play_deals

    series = play_deals(start_series(), [(70, 50)])
    page = kept_game(tab, series)
    page.locator("form.deal-form input[data-points]").first.fill("5")  # the offline module
    page.wait_for_timeout(500)
    tab.context.set_offline(True)
    page.get_by_role("link", name="Edit deal 1").click()
    expect(status(page)).to_have_text(NEEDS_NETWORK)
    page.wait_for_timeout(4_500)  # the board asks twice meanwhile, and fails
    expect(status(page)).to_have_text(NEEDS_NETWORK)
    tab.context.set_offline(False)
    expect(status(page)).to_be_hidden()
    forgive_offline(tab)


def test_the_tab_says_the_score_after_a_deal_here_or_on_another_phone(tab):
    """A phone's tab (and its place in the phone's list of apps) names the score as it is."""
    from tests.helpers import record

    series = start_series()
    tab.open_link(series.score_token)
    page = tab.page
    expect(page).to_have_title("Anna & Vera 0 : Boris & Gleb 0 · Kozel")
    enter_deal(page, "100")  # Boris & Gleb +4
    expect(page).to_have_title("Anna & Vera 0 : Boris & Gleb 4 · Kozel")
    record(series, (20, 100))  # another phone: Anna & Vera +4
    expect(page).to_have_title("Anna & Vera 4 : Boris & Gleb 4 · Kozel")
