"""Deals typed with no network (issue #15), in a real browser: kept, scored on the phone and
saved once when it is back online; two phones offline, a round closed meanwhile, a renewed
link, Background Sync."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.offline import (
    FIVE,
    NEEDS_NETWORK,
    NO_CONNECTION,
    RENEWED,
    ROUND_OVER,
    SERIES_OVER,
    cache_names,
    close_offline,
    enter_deal,
    expected_totals,
    forgive_offline,
    kept_game,
    status,
    until,
    wait_for_worker,
)
from tests.helpers import start_series

pytestmark = pytest.mark.browser


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
        page.goto(f"{live_server.url}/tables/{series.table.score_token}/")
        page.locator("form[action^='/tables/'] button[type=submit]").click()
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
        page.goto(f"{live_server.url}/tables/{series.table.score_token}/")
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


def test_a_round_of_four_offline_says_which_deal_the_form_is_for(tab):
    """The line "Deal k of N" above the form follows the deals waiting on the phone, and goes
    back when one is dropped: the line and the form's heading never disagree."""
    from tests.helpers import LONG

    series = start_series(ruleset=LONG, deal_limit=4)
    page = kept_game(tab, series)
    deal_of = page.locator(".deal-of")
    expect(deal_of).to_have_text("Deal 1 of 4")
    tab.context.set_offline(True)
    enter_deal(page, "70")
    expect(page.locator(".last-result")).to_contain_text("(not saved yet)")
    expect(deal_of).to_have_text("Deal 2 of 4")
    expect(page.get_by_role("heading", name="Deal 2: card points")).to_be_visible()
    page.get_by_role("button", name="Drop waiting deal 1").click()
    expect(page.locator(".waiting")).to_have_count(0)
    expect(page.get_by_text("not saved yet")).to_have_count(0)
    expect(deal_of).to_have_text("Deal 1 of 4")
    expect(page.get_by_role("heading", name="Deal 1: card points")).to_be_visible()
    forgive_offline(tab)


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
    expect(pages[1].get_by_text("not saved yet")).to_have_count(0)  # nothing left says so
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
    expect(page).to_have_url(tab.url(f"/tables/{series.table.score_token}/"))
    expect(page.locator(".sides")).to_be_visible()
    tab.context.set_offline(False)
    page.wait_for_timeout(500)
    assert series.deals.count() == 1
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
    renewed = services.table_link_renew(table=series.table, link="score")  # the creator's phone
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
