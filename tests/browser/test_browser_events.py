"""A club night in a real browser: the organiser on a desktop, table phones at 360×740 scoring
at the same time, the leaderboard on a big screen keeping up; re-seating after a player leaves;
a timed round cut short."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import expect

from scoring.models import EventTable, League, Membership, Player, Role
from tests.browser.browsing import Tab, axe_violations
from tests.browser.conftest import TIMEOUT_MS
from tests.helpers import make_event, make_user

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}


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
        tab.page.remove_listener("requestfailed", tab._on_request_failed)
        tab.page.remove_listener("console", tab._on_console)
    if problems:
        pytest.fail("the browser saw problems:\n" + "\n".join(problems), pytrace=False)


def _club(players: int) -> tuple[League, object]:
    owner = make_user("olga")
    league = League.objects.create(name="Village club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    for n in range(1, players + 1):
        Player.objects.create(name=f"Player {n:02}", league=league)
    return league, owner


def _side_name(series, side: int) -> str:
    seats = series.seats.select_related("player").order_by("position")
    return " & ".join(s.player.name for s in seats if s.side == side)


def test_a_club_night_from_the_organisers_desk_to_the_big_screen(screen):
    league, owner = _club(16)
    desk = screen(DESKTOP)
    desk.login(owner)
    page = desk.page

    # The organiser creates the evening: sixteen present, two rounds of three deals.
    desk.goto(f"/leagues/{league.pk}/events/")
    page.get_by_role("link", name="New club night").click()
    page.get_by_label("Name of the evening").fill("Friday")
    for n in range(1, 17):
        page.get_by_label(f"Player {n:02}", exact=True).check()
    page.get_by_label("Rounds").fill("2")
    page.get_by_label("A number of deals").check()
    page.get_by_label("Deals or minutes").fill("3")
    page.get_by_role("button", name="Seat the players and start round 1").click()
    expect(page.get_by_role("heading", name="Round 1 of 2")).to_be_visible()
    expect(page.locator(".event-table")).to_have_count(4)
    links = [page.locator(f"#table-{n}-link").input_value() for n in (1, 2, 3, 4)]
    assert all(re.search(r"/join/[\w-]+/$", link) for link in links)

    # The big screen shows the leaderboard, nobody having played yet.
    event_url = page.url
    board_url = page.get_by_role("link", name="Leaderboard for the big screen").get_attribute(
        "href"
    )
    tv = screen(TV)
    tv.login(owner)
    tv.goto(board_url)
    expect(tv.page.locator(".board-present")).to_be_visible()
    round_line = tv.page.locator(".round-results li").first
    before = round_line.inner_text()

    # Four table phones, no account, open their table's link and score at the same time.
    tables = list(EventTable.objects.filter(round__number=1).order_by("number"))
    phones = []
    for link in links:
        phone = screen(PHONE)
        phone.page.goto(link)
        phone.page.get_by_role("button", name="Open the game to score").click()
        phones.append(phone)
    for phone, table in zip(phones, tables, strict=True):
        name = _side_name(table.series, 0)
        phone.page.get_by_role("spinbutton", name=name, exact=True).fill("50")
    for phone in phones:
        phone.page.get_by_role("button", name="Record deal").click()
    for phone in phones:
        expect(phone.page.locator(".last-result")).to_contain_text("Deal 1")
        expect(phone.page.locator(".table-facts")).to_contain_text("Deal 2 of 3")
    for table in tables:
        table.series.refresh_from_db()
        assert table.series.deal_count == 1

    # The leaderboard catches up by itself (htmx polling), without a reload.
    expect(round_line).not_to_have_text(before, timeout=15_000)

    # A player leaves: the second round is seated again without them.
    page.goto(event_url)
    expect(page.locator(".event-table .status").first).to_contain_text("Deals played: 1 of 3")
    page.get_by_role("link", name="Late arrivals and early leavers").click()
    page.get_by_label("Player 16", exact=True).uncheck()
    page.get_by_role("button", name="Seat the rounds to come again").click()
    expect(page.locator(".flash")).to_contain_text("The rounds to come are seated again.")
    expect(page.locator(".plan > li").nth(1)).not_to_contain_text("Player 16")
    expect(page.locator(".plan > li").nth(1)).to_contain_text("Sitting out")
    expect(page.locator(".plan > li").nth(0)).to_contain_text("Player 16")

    # Three deals are up: the round ends with both series unfinished, scored by the rule.
    page.get_by_role("button", name="Finish this round").click()
    expect(page.locator(".flash")).to_contain_text("Round 1 is over.")
    expect(tv.page.locator(".adjudicated")).to_contain_text(
        "unfinished series scored by standing defeat points", timeout=15_000
    )
    page.get_by_role("button", name="Start the next round").click()
    expect(page.get_by_role("heading", name="Round 2 of 2")).to_be_visible()
    expect(page.locator(".event-table")).to_have_count(3)


def test_twenty_players_fit_the_big_screen_without_scrolling(screen):
    league, owner = _club(0)
    event = make_event(league, 20, rounds=4)
    tv = screen(TV)
    tv.login(owner)
    tv.goto(f"{event.get_absolute_url()}board/?present=1")
    expect(tv.page.locator(".leaderboard tbody tr")).to_have_count(20)
    overflow = tv.page.evaluate("() => document.documentElement.scrollHeight - window.innerHeight")
    tv.page.screenshot(path="/tmp/club/board.png")
    assert overflow <= 0, f"the big screen scrolls by {overflow}px"
    last = tv.page.locator(".leaderboard tbody tr").last.bounding_box()
    assert last is not None and last["y"] + last["height"] <= TV["height"]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_club_night_pages_pass_axe(screen, viewport):
    league, owner = _club(0)
    event = make_event(league, 9, rounds=3)
    tab = screen(viewport)
    tab.login(owner)
    for path in ("", "board/", "board/?present=1", "cards/", "players/"):
        tab.goto(f"{event.get_absolute_url()}{path}")
        assert axe_violations(tab.page) == [], path
    tab.goto(f"/leagues/{league.pk}/events/new/")
    assert axe_violations(tab.page) == []


def test_a_table_phone_takes_no_deal_after_the_rounds_last_even_one_typed_offline(screen):
    """A round of two deals on a 360 px phone: "Deal 2 of 2", then the round's line in place of
    the form. Offline, the phone knows the round's length too: the second deal typed offline
    waits, and the form gives way to the round's line at once; back online the deal is saved,
    and the table holds its two deals."""
    from tests.browser.test_browser_offline import forgive_offline, kept_game

    league, _owner = _club(0)
    event = make_event(league, 4, rounds=1, length="deals", length_value=2)
    series = EventTable.objects.get(round__event=event).series
    phone = screen(PHONE)
    page = kept_game(phone, series)
    facts = page.locator(".table-facts")
    expect(facts).to_contain_text("Deal 1 of 2")

    def enter(points: str) -> None:
        page.get_by_role("spinbutton", name=_side_name(series, 0), exact=True).fill(points)
        page.get_by_role("button", name="Record deal").click()

    enter("70")
    expect(facts).to_contain_text("Deal 2 of 2")
    phone.context.set_offline(True)
    enter("80")
    expect(page.locator(".waiting li")).to_have_count(1)
    expect(page.locator("form.deal-form")).to_be_hidden()
    expect(page.locator("#limit-reached")).to_have_text(
        "This round’s deals have all been played: the organiser finishes the round."
    )
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the phone scrolls sideways by {overflow}px"
    assert axe_violations(page) == []

    phone.context.set_offline(False)
    expect(page.locator(".waiting")).to_have_count(0)
    expect(page.locator("#limit-reached")).to_contain_text("This round's 2 deals have been played.")
    expect(page.locator("form.deal-form")).to_have_count(0)
    assert list(series.deals.order_by("number").values_list("points_0", flat=True)) == [70, 80]
    forgive_offline(phone)
