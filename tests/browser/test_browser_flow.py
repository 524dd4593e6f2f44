"""Phones in step and the flow at the table, in a real browser at phone and desktop size.

Three phones on one game (the creator's, a scoring phone, a watcher) see each other's deals
without a reload; typed points survive a deal taken meanwhile; every link has Copy, Share and a
QR code; the deciding deal brings the goat into view; a quick game is a few taps from home.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from scoring.leagues import services as league_services
from scoring.models import Deal, Series
from tests.browser.browsing import VIEWPORTS, Tab, axe_violations
from tests.browser.data import a_league
from tests.helpers import record, start_series

pytestmark = pytest.mark.browser

#: A deal recorded on one phone shows on the others within this (they ask every 2 s).
IN_STEP_MS = 3_500
SHOTS = Path("/tmp/flow-shots")
#: Web Share where the browser has none (Chromium on Linux): the page's script only sees a
#: navigator.share, and the test sees what it was handed.
FAKE_SHARE = "navigator.share = data => { window.sharedData = data; return Promise.resolve(); };"


def points(page: Page, side: str):
    return page.get_by_role("spinbutton", name=side, exact=True)


def totals(page: Page):
    return page.locator(".sides .side-total")


def shot(page: Page, name: str, width: int) -> None:
    """A screenshot to look at (caret left alone: hiding it would inject a style the CSP blocks)."""
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True, caret="initial")


def quick_game(tab: Tab) -> Series:
    """Start a quick game from the home page, as its creator."""
    tab.goto("/")
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Quick game").click()
    return Series.objects.order_by("pk").last()


def test_three_phones_stay_in_step_without_a_reload(open_tab):
    creator, scoring, watching = open_tab(), open_tab(), open_tab()
    series = quick_game(creator)
    scoring.open_link(series.table.score_token)
    watching.open_link(series.table.watch_token)
    phones = (creator.page, scoring.page, watching.page)

    # Recorded on the creator's phone: the two others show it by themselves.
    points(creator.page, "North & South").fill("70")
    creator.page.get_by_role("button", name="Record deal").click()
    for page in phones:
        expect(totals(page)).to_have_text(["0", "2"], timeout=IN_STEP_MS)
    expect(scoring.page.get_by_role("heading", name="Deal 2: card points")).to_be_visible()

    # Typed on the scoring phone while the creator records deal 2: the board moves on around
    # the form, the typed points stay, and the form says they are now for deal 3.
    points(scoring.page, "East & West").fill("80")
    points(creator.page, "North & South").fill("80")
    creator.page.get_by_role("button", name="Record deal").click()
    expect(totals(scoring.page)).to_have_text(["0", "4"], timeout=IN_STEP_MS)
    expect(points(scoring.page, "East & West")).to_have_value("80")
    expect(points(scoring.page, "East & West")).to_be_focused()
    expect(scoring.page.locator("form.deal-form .notice")).to_have_text(
        "Deal 2 was just recorded on another phone; your points are kept: check them and "
        "record them as deal 3."
    )
    expect(scoring.page.get_by_role("heading", name="Deal 3: card points")).to_be_visible()
    scoring.page.get_by_role("button", name="Record deal").click()
    for page in phones:
        expect(totals(page)).to_have_text(["2", "4"], timeout=IN_STEP_MS)
    assert list(Deal.objects.values_list("number", "points_1")) == [(1, 50), (2, 40), (3, 80)]

    # An edit on the scoring phone and an undo on the creator's reach everyone too.
    scoring.page.get_by_role("link", name="Edit deal 1").click()
    points(scoring.page, "North & South").fill("50")
    points(scoring.page, "East & West").fill("70")
    scoring.page.get_by_role("button", name="Save deal").click()
    for page in phones:
        expect(totals(page)).to_have_text(["4", "2"], timeout=IN_STEP_MS)
    creator.page.get_by_role("button", name="Undo").click()
    for page in phones:
        expect(page.locator("table.deals tbody th[scope=row]")).to_have_text(
            ["2", "1"], timeout=IN_STEP_MS
        )
        expect(totals(page)).to_have_text(["2", "2"])


def test_a_hidden_page_stops_asking_and_asks_at_once_when_shown_again(tab):
    series = start_series()
    tab.open_link(series.table.score_token)
    asked: list[str] = []
    tab.page.on("request", lambda request: "/live/" in request.url and asked.append(request.url))
    tab.page.wait_for_timeout(2_500)
    assert asked, "an open scoreboard asks for news"
    hide = (
        "hidden => { Object.defineProperty(document, 'hidden', {value: hidden, configurable: 1});"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    tab.page.evaluate(hide, True)
    before = len(asked)
    tab.page.wait_for_timeout(4_500)
    assert len(asked) == before, "a hidden page asks nothing"
    record(series, (70, 50))
    tab.page.evaluate(hide, False)
    expect(totals(tab.page)).to_have_text(["0", "2"], timeout=1_500)  # asked at once


def test_an_empty_form_moves_on_to_the_next_deal_without_a_word(tab):
    """The deal form in focus but nothing typed: another phone's deal renumbers it, and no
    notice says points were kept (there are none)."""
    series = start_series()
    tab.open_link(series.table.score_token)
    points(tab.page, "Anna & Vera").focus()
    record(series, (70, 50))  # another phone
    expect(tab.page.get_by_role("heading", name="Deal 2: card points")).to_be_visible(
        timeout=IN_STEP_MS
    )
    expect(points(tab.page, "Anna & Vera")).to_be_focused()
    expect(tab.page.locator("form.deal-form .notice")).to_have_count(0)


def test_points_typed_for_a_deal_taken_meanwhile_are_kept(open_tab):
    series = start_series()
    other, stale = open_tab(), open_tab()
    other.open_link(series.table.score_token)
    stale.open_link(series.table.score_token)
    # This phone hears nothing new (a poor connection): its form is for deal 1 still.
    stale.context.route("**/live/**", lambda route: route.fulfill(status=204))
    points(other.page, "Anna & Vera").fill("70")
    other.page.get_by_role("button", name="Record deal").click()
    expect(totals(other.page)).to_have_text(["0", "2"])

    points(stale.page, "Anna & Vera").fill("40")
    with stale.expecting(409):
        stale.page.get_by_role("button", name="Record deal").click()
        expect(stale.page.locator("#scoreboard > .notice")).to_have_text(
            "Deal 1 was just recorded on another phone; your points are kept: check them and "
            "record them as deal 2."
        )
    expect(points(stale.page, "Anna & Vera")).to_have_value("40")
    expect(totals(stale.page)).to_have_text(["0", "2"])
    stale.page.get_by_role("button", name="Record deal").click()
    expect(totals(stale.page)).to_have_text(["2", "2"])
    assert list(Deal.objects.values_list("points_0", flat=True)) == [70, 40]


def test_typing_into_a_filled_in_value_replaces_it(tab):
    series = start_series()
    tab.open_link(series.table.score_token)
    page = tab.page
    points(page, "Anna & Vera").fill("70")
    expect(points(page, "Boris & Gleb")).to_have_value("50")
    points(page, "Boris & Gleb").click()
    page.keyboard.type("40")
    expect(points(page, "Boris & Gleb")).to_have_value("40")  # not "5040"
    expect(points(page, "Anna & Vera")).to_have_value("70")
    points(page, "Anna & Vera").fill("")
    expect(points(page, "Anna & Vera")).to_have_value("80")
    points(page, "Anna & Vera").focus()  # tabbing in selects what the page filled in
    page.keyboard.type("75")
    expect(points(page, "Anna & Vera")).to_have_value("75")
    expect(points(page, "Boris & Gleb")).to_have_value("40")


def test_each_link_has_copy_share_and_a_qr_code(open_tab):
    page_tab = open_tab(permissions=["clipboard-read", "clipboard-write"])
    page_tab.context.add_init_script(FAKE_SHARE)
    codes_fetched: list[str] = []
    page_tab.page.on("request", lambda r: "/qr/" in r.url and codes_fetched.append(r.url))
    series = quick_game(page_tab)
    page = page_tab.page
    page.wait_for_load_state("networkidle")
    assert codes_fetched == []  # the QR codes are folded away: the first load fetches none
    for label, token in (
        ("Scoring link", series.table.score_token),
        ("Watching link", series.table.watch_token),
    ):
        link = f"{page_tab.base_url}/tables/{token}/"
        expect(page.get_by_label(label, exact=True)).to_have_value(link)
        page.get_by_role("button", name=f"Copy · {label}").click()
        expect(
            page.locator(".share-link", has=page.get_by_label(label, exact=True))
        ).to_contain_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == link
        page.get_by_role("button", name=f"Share · {label}").click()
        assert page.evaluate("window.sharedData.url") == link
        page.get_by_text(f"QR code · {label}").click()
        qr = page.get_by_role("img", name=f"QR code of the {label.lower()}")
        expect(qr).to_be_visible()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=qr.element_handle()
        )
        assert qr.bounding_box()["width"] >= 150  # big enough to scan from another phone
        assert codes_fetched[-1] == f"{page_tab.base_url}/qr/tables/{token}/"
    # Renewing asks first and says who is locked out.
    page.get_by_text("New scoring link…").click()
    expect(page.locator("details.renew[open]")).to_contain_text("you (the creator) keep access")
    assert axe_violations(page) == []
    shot(page, "share", page_tab.width)

    # The league's invite link and its public standings link.
    owner_tab = open_tab()
    owner_tab.context.add_init_script(FAKE_SHARE)
    league = a_league(series=1)
    league_services.invite_renew(league=league, role="viewer")
    league_services.share_renew(league=league)
    owner_tab.login(league.memberships.get(role="owner").user)
    for path, qr_name in (
        (f"/leagues/{league.pk}/members/", "QR code of the invite link"),
        (f"/leagues/{league.pk}/settings/", "QR code of the public standings link"),
    ):
        owner_tab.goto(path)
        share = owner_tab.page.locator(".share-link")
        expect(share.get_by_role("button", name="Copy", exact=False)).to_be_visible()
        expect(share.get_by_role("button", name="Share", exact=False)).to_be_visible()
        share.locator("summary").click()
        expect(owner_tab.page.get_by_role("img", name=qr_name)).to_be_visible()
        assert axe_violations(owner_tab.page) == []


def test_without_a_share_sheet_there_is_no_share_button(tab):
    quick_game(tab)
    expect(tab.page.get_by_role("button", name="Copy · Scoring link")).to_be_visible()
    assert tab.page.evaluate("'share' in navigator") is False
    expect(tab.page.get_by_role("button", name="Share · Scoring link")).to_be_hidden()


def test_a_phone_whose_link_was_renewed_is_told_what_happened(open_tab):
    creator, friend = open_tab(), open_tab()
    series = quick_game(creator)
    friend.open_link(series.table.score_token)
    creator.page.get_by_text("New scoring link…").click()
    with creator.page.expect_navigation():
        creator.page.get_by_role("button", name="Renew the scoring link").click()
    expect(creator.page.get_by_role("heading", name="Deal 1: card points")).to_be_visible()
    with friend.expecting(410):
        # The friend's board learns it at its next question; reloaded, the page explains.
        expect(friend.page.locator("#scoreboard .notice")).to_contain_text(
            "whoever started the game renewed it", timeout=IN_STEP_MS
        )
        friend.page.reload()
        expect(friend.page.get_by_role("heading", name="This link no longer works")).to_be_visible()
        expect(friend.page.locator("main")).to_contain_text("Whoever started this game renewed")
        assert axe_violations(friend.page) == []


def test_the_deciding_deal_brings_the_goat_into_view(tab):
    series = start_series()
    for _deal in range(5):
        record(series, (60, 60), (True, True))  # eggs: a long list, the page scrolls
    record(series, (0, 120), (False, True))  # naked: Anna & Vera 6, the next naked deal ends it
    assert series.totals == [6, 0]
    tab.open_link(series.table.score_token)
    page = tab.page
    page.get_by_role("button", name="Record deal").scroll_into_view_if_needed()
    page.mouse.wheel(0, 400)
    points(page, "Anna & Vera").fill("0")
    page.get_by_role("group", name="Did Anna & Vera take a trick?").get_by_label("No").check()
    page.get_by_role("button", name="Record deal").click()
    the_end = page.locator(".the-end")
    expect(the_end.locator(".goat-title")).to_be_in_viewport()
    expect(the_end.locator(".score-line")).to_have_text("Anna & Vera 12 : 0 Boris & Gleb")
    expect(the_end.locator(".score-line")).to_be_in_viewport()
    expect(the_end).to_be_focused()


def test_the_goat_moment_tallies_this_line_ups_games(tab):
    series = start_series()
    while not series.finished:
        record(series, (0, 120), (False, True))
    tab.open_link(series.table.score_token)
    tab.page.get_by_role("button", name="Rematch: same seats, next dealer").click()
    expect(tab.page.get_by_role("heading", name="Deal 1: card points")).to_be_visible()
    rematch = Series.objects.get(rematch_of=series)
    record(rematch, (120, 0), (True, False))  # Boris & Gleb naked: 6, the next one ends it
    expect(totals(tab.page)).to_have_text(["0", "6"], timeout=IN_STEP_MS)
    points(tab.page, "Anna & Vera").fill("120")
    tab.page.get_by_role("group", name="Did Boris & Gleb take a trick?").get_by_label("No").check()
    tab.page.get_by_role("button", name="Record deal").click()
    expect(tab.page.locator(".goat-tally")).to_have_text(
        "Goats in this line-up's games: Anna & Vera 1 : 1 Boris & Gleb"
    )


def test_an_undo_says_what_it_removed_and_the_deal_can_be_put_back(tab):
    series = start_series()
    record(series, (70, 50))
    tab.open_link(series.table.score_token)
    page = tab.page
    page.get_by_role("link", name="Edit deal 1").click()
    points(page, "Anna & Vera").fill("20")
    points(page, "Boris & Gleb").fill("100")
    page.get_by_role("button", name="Save deal").click()
    expect(page.locator(".flash")).to_contain_text("Deal 1 changed: Anna & Vera 70 → ")
    points(page, "Anna & Vera").fill("40")
    page.get_by_role("button", name="Record deal").click()
    expect(totals(page)).to_have_text(["6", "0"])
    expect(page.locator(".flash")).to_have_count(0)  # the edit's word belongs to its moment

    page.get_by_role("button", name="Undo").click()
    undone = page.locator("#undone")
    expect(undone).to_have_text("Deal 2 undone: Anna & Vera 40, Boris & Gleb 80. Put deal 2 back")
    expect(undone).to_be_in_viewport()
    expect(undone).to_be_focused()
    page.get_by_role("button", name="Put deal 2 back").click()
    expect(totals(page)).to_have_text(["6", "0"])
    expect(page.locator("#undone")).to_have_count(0)
    assert list(Deal.objects.values_list("points_0", flat=True)) == [20, 40]


def test_a_quick_game_is_three_taps_from_home_to_the_first_deal(tab):
    page = tab.page
    tab.goto("/")
    taps = 0
    with page.expect_navigation():
        page.get_by_role("button", name="Quick game").click()
    taps += 1
    first = points(page, "North & South")
    if not first.evaluate("el => el === document.activeElement"):
        first.click()  # a phone that did not focus the field: one more tap
        taps += 1
    page.keyboard.type("70")  # the digits; the other team gets the rest of 120
    expect(points(page, "East & West")).to_have_value("50")
    page.get_by_role("button", name="Record deal").click()
    taps += 1
    expect(totals(page)).to_have_text(["0", "2"])
    print(f"\ntaps from home to the first recorded deal: {taps} plus the digits")
    assert taps <= 3
    series = Series.objects.get()
    assert [seat.player.name for seat in series.seats.order_by("position")] == [
        "North",
        "East",
        "South",
        "West",
    ]
    # The names, later, on the board.
    page.get_by_text("Change the names").click()
    for seat, name in (("North", "Anna"), ("East", "Boris"), ("South", "Vera"), ("West", "Gleb")):
        page.get_by_label(seat, exact=True).fill(name)
    with page.expect_navigation():
        page.get_by_role("button", name="Save names").click()
    expect(page.locator(".sides .side-name")).to_have_text(["Anna & Vera", "Boris & Gleb"])


def test_large_text_keeps_the_scores_and_the_points_fields_on_one_screen(
    new_context, live_server, width
):
    # 150 %: a 360×740 phone lays the page out in 240×493 CSS pixels, drawn 1.5 times larger.
    size = {name: round(value / 1.5) for name, value in VIEWPORTS[width].items()}
    context = new_context(viewport=size, device_scale_factor=1.5)
    tab = Tab(context, live_server.url, width)
    series = start_series()
    record(series, (70, 50))
    tab.open_link(series.table.score_token)
    page = tab.page
    for _deal in range(2):
        expect(page.locator(".sides")).to_be_in_viewport(ratio=1)
        expect(points(page, "Anna & Vera")).to_be_in_viewport(ratio=1)
        points(page, "Anna & Vera").fill("60")
        page.get_by_role("button", name="Record deal").click()
        expect(page.locator(".table-facts .eggs")).to_be_visible()
    shot(page, "large-text", width)
    tab.assert_clean()


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_new_pieces_in_russian_and_in_the_dark(open_tab, scheme):
    tab = open_tab(color_scheme=scheme, locale="ru-RU")
    tab.goto("/")
    expect(tab.page.get_by_role("button", name="Быстрая игра")).to_be_visible()
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Быстрая игра").click()
    page = tab.page
    expect(page.locator(".sides .side-name")).to_have_text(["Север & Юг", "Восток & Запад"])
    points(page, "Север & Юг").fill("0")
    page.get_by_role("group", name="Север & Юг: была хоть одна взятка?").get_by_label("Нет").check()
    page.get_by_role("button", name="Записать сдачу").click()
    expect(totals(page)).to_have_text(["6", "0"])
    page.get_by_role("button", name="Отменить").click()
    expect(page.locator("#undone")).to_contain_text(
        "Сдача 1 отменена: Север & Юг 0, Восток & Запад 120."
    )
    page.get_by_text("QR-код · Ссылка для записи").click()
    page.get_by_text("Новая ссылка для записи…").click()
    assert axe_violations(page) == []
    shot(page, f"ru-{scheme}", tab.width)
    series = Series.objects.get()
    while not Series.objects.get(pk=series.pk).finished:
        record(series, (0, 120), (False, True))
    page.reload()
    expect(page.locator(".the-end .score-line")).to_have_text("Север & Юг 12 : 0 Восток & Запад")
    assert axe_violations(page, ["color-contrast"]) == []
    shot(page, f"ru-goat-{scheme}", tab.width)
