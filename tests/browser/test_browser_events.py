"""A club night in a real browser: the organiser on a desktop, table phones at 360×740 scoring
at the same time, the leaderboard on a big screen keeping up; re-seating after a player leaves;
a timed round cut short."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import expect

from scoring.models import EventTable, League, Membership, Player, Role
from tests.browser.browsing import Tab, axe_violations, screenshot
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
        tab.page.remove_listener("requestfailed", tab.on_request_failed)
        tab.page.remove_listener("console", tab.on_console)
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
    assert all(re.search(r"/tables/[\w-]+/$", link) for link in links)

    # The big screen shows the leaderboard, nobody having played yet.
    event_url = page.url
    board_url = page.get_by_role("link", name="Leaderboard for the big screen").get_attribute(
        "href"
    )
    tv = screen(TV)
    tv.login(owner)
    tv.goto(board_url)
    expect(tv.page.locator(".board-present")).to_be_visible()
    round_line = tv.page.locator(".live-table").first
    before = round_line.inner_text()

    # Four table phones, no account, open their table's link and score at the same time.
    tables = list(EventTable.objects.filter(round__number=1).order_by("number"))
    phones = []
    for number, link in enumerate(links, start=1):
        phone = screen(PHONE)
        phone.page.goto(link)
        phone.page.get_by_role("button", name=f"Score table {number} on this phone").click()
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
    score = " : ".join(map(str, tables[0].series.totals))
    expect(page.locator(".event-table .status").first).to_contain_text(score)
    page.get_by_role("link", name="Late arrivals and early leavers").click()
    page.get_by_label("Player 16", exact=True).uncheck()
    page.get_by_role("button", name="Seat the rounds to come again").click()
    expect(page.locator(".flash")).to_contain_text("The rounds to come are seated again.")
    expect(page.locator(".plan > li").nth(1)).not_to_contain_text("Player 16")
    expect(page.locator(".plan > li").nth(1)).to_contain_text("Sitting out")
    expect(page.locator(".plan > li").nth(0)).to_contain_text("Player 16")

    # The organiser finishes the round early: asked first, with each table and how it will
    # be scored; then the tables are scored by the rule, and the big screen says so.
    page.get_by_role("button", name="Finish this round").click()
    expect(page.get_by_role("heading", name="Finish round 1 of 2?")).to_be_visible()
    playing = page.get_by_role("list", name="Tables still playing").get_by_role("listitem")
    expect(playing).to_have_count(4)
    expect(playing.first).to_contain_text(f"Table 1: {score} after 1 deal, scored by standing")
    page.get_by_role("button", name="Finish the round now").click()
    expect(page.locator(".flash")).to_contain_text("Round 1 is over.")
    expect(tv.page.locator(".live-table[data-state=scored]")).to_have_count(4, timeout=15_000)
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
    screenshot(tv.page, "big-screen-20", TV["width"])
    assert overflow <= 0, f"the big screen scrolls by {overflow}px"
    last = tv.page.locator(".leaderboard tbody tr").last.bounding_box()
    assert last is not None and last["y"] + last["height"] <= TV["height"]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_club_night_pages_pass_axe(screen, viewport):
    league, owner = _club(0)
    event = make_event(league, 9, rounds=3)
    tab = screen(viewport)
    tab.login(owner)
    for path in ("", "board/", "board/?present=1", "cards/", "players/", "rounds/finish/"):
        tab.goto(f"{event.get_absolute_url()}{path}")
        assert axe_violations(tab.page) == [], path
    for path in (f"/leagues/{league.pk}/events/new/", f"/public/events/{event.share_token}/seat/"):
        tab.goto(path)
        assert axe_violations(tab.page) == [], path


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


# The big screen, the phones at 360 px, "Find your seat", the cards ------------------------------

#: Names as a club's are: most short, some long, one of two words.
NAMES = [
    "Konstantin", "Aleksandra", "Svyatoslav", "Yekaterina", "Sergei", "Olga", "Pavel", "Vera",
    "Gleb", "Anna", "Boris", "Dmitri", "Lyudmila", "Nadezhda", "Timofei", "Zhanna", "Rostislav",
    "Valentina", "Yaroslav", "Miroslava", "Stanislav", "Ksenia", "Arkady", "Evgenia",
    "Anna Maria", "Vsevolod", "Lidia", "Fyodor", "Taisia", "Gennady", "Inna", "Leonid", "Marfa",
    "Nikifor", "Oksana", "Prokhor", "Raisa", "Semyon", "Uliana", "Vasilisa",
]  # fmt: skip

#: The words of the elements matched by a selector that the browser broke over two lines.
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map(box => Math.round(box.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""

#: The elements of the big screen that stick out of the window (cut off, as it never scrolls).
OUTSIDE = """() => [...document.querySelectorAll('.board-present *')]
  .filter(element => element.getClientRects().length && !element.closest('.visually-hidden'))
  .filter(element => {
    const box = element.getBoundingClientRect();
    const clipped = element.scrollWidth > element.clientWidth + 1
      && getComputedStyle(element).overflow === 'hidden';
    return box.bottom > innerHeight + 0.5 || box.right > innerWidth + 0.5 || box.left < -0.5
      || clipped;
  })
  .map(element => `${element.tagName}.${element.className}: ${element.textContent.trim()}`)"""


def _evening_under_way(league, players: int):
    """An evening of ``players`` over six rounds: round 1 played (table 1 to the goat, table 2
    with two eggs in a row, the rest cut short), round 2 under way (a deal or two a table)."""
    from scoring.events import services as event_services
    from tests.helpers import play_out, record

    event = make_event(league, players, rounds=6, names=NAMES)
    first = list(EventTable.objects.filter(round__event=event).order_by("number"))
    play_out(first[0].series, loser=1)
    for table in first[1:]:
        if table.number == 2:
            record(table.series, [60, 60], [True, True])
            record(table.series, [60, 60], [True, True])
        record(table.series, [40, 80])
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    second = EventTable.objects.filter(round__event=event, round__number=2).order_by("number")
    for table in second:
        record(table.series, [30, 90] if table.number % 2 else [70, 50])
        if table.number % 3 == 0:
            record(table.series, [50, 70])
    event.refresh_from_db()
    return event


@pytest.mark.parametrize("players", [12, 13, 24, 40])
def test_the_big_screen_is_read_across_the_room(screen, players):
    """1920×1080: every player's line, the round's tables with their scores, who sits out and
    the public link's code, nothing cut off and no scrolling; names at least 36 px up to 24
    players (smaller beyond), never broken inside a word."""
    league, owner = _club(0)
    event = _evening_under_way(league, players)
    tv = screen(TV)
    tv.login(owner)
    tv.goto(f"{event.get_absolute_url()}board/?present=1")
    page = tv.page
    expect(page.locator(".leaderboard tbody tr")).to_have_count(players)
    tables = EventTable.objects.filter(round__event=event, round__number=2).count()
    expect(page.locator(".live-table")).to_have_count(tables)
    expect(page.get_by_role("img", name="QR code of the page where players find their seat"))
    if players % 4:
        expect(page.locator(".sitting-out")).to_contain_text("Sitting out")
    screenshot(page, f"big-screen-{players}", TV["width"])
    sizes = page.eval_on_selector_all(
        ".leaderboard th.name", "cells => cells.map(c => parseFloat(getComputedStyle(c).fontSize))"
    )
    if players <= 24:
        assert min(sizes) >= 36, f"names are {min(sizes):.1f} px on a 1080-line screen"
    else:
        assert min(sizes) >= 24, f"names are {min(sizes):.1f} px"
    out = page.evaluate(
        "() => [document.documentElement.scrollWidth - innerWidth,"
        " document.documentElement.scrollHeight - innerHeight]"
    )
    assert out == [0, 0], f"the big screen scrolls by {out}"
    assert page.evaluate(OUTSIDE) == []
    assert page.evaluate(BROKEN_WORDS, ".leaderboard th.name, .live-sides") == []
    out_size = page.eval_on_selector_all(
        ".sitting-out", "ps => ps.map(p => parseFloat(getComputedStyle(p).fontSize))"
    )
    assert all(size >= 30 for size in out_size), out_size


def test_the_big_screen_keeps_up_by_itself_and_asks_cheaply(screen):
    """Polled every few seconds, it answers 204 while nothing changed, and shows a new deal
    at its table without a reload."""
    from tests.helpers import record

    league, owner = _club(0)
    event = make_event(league, 8, rounds=2, names=NAMES)
    tv = screen(TV)
    tv.login(owner)
    answers: list[int] = []
    tv.page.on(
        "response",
        lambda response: answers.append(response.status) if "version=" in response.url else None,
    )
    tv.goto(f"{event.get_absolute_url()}board/?present=1")
    first = tv.page.locator(".live-table").first
    expect(first).to_have_attribute("data-state", "waiting")
    tv.page.wait_for_timeout(5_500)
    assert answers and set(answers) == {204}
    series = EventTable.objects.get(round__event=event, number=1).series
    series = record(series, [30, 90])
    expect(first).to_have_attribute("data-state", "playing", timeout=15_000)
    expect(first.locator(".live-score")).to_have_text(" : ".join(map(str, series.totals)))


def _no_sideways_scroll(page) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] == width[1], f"the page is {width[0]} px wide on a {width[1]} px phone"


def test_the_new_club_night_form_fits_a_360_px_phone(screen):
    league, owner = _club(0)
    for name in NAMES[:16]:
        Player.objects.create(name=name, league=league)
    phone = screen(PHONE)
    phone.login(owner)
    phone.goto(f"/leagues/{league.pk}/events/new/")
    expect(phone.page.get_by_role("button", name="Seat the players and start round 1"))
    screenshot(phone.page, "new-club-night", PHONE["width"])
    _no_sideways_scroll(phone.page)
    assert phone.page.evaluate(BROKEN_WORDS, ".present-grid .choice span") == []


def test_the_phone_leaderboard_fits_360_px_and_breaks_no_name(screen):
    league, owner = _club(0)
    event = _evening_under_way(league, 12)
    phone = screen(PHONE)
    phone.login(owner)
    phone.goto(f"{event.get_absolute_url()}board/")
    expect(phone.page.locator(".leaderboard tbody tr")).to_have_count(12)
    screenshot(phone.page, "leaderboard", PHONE["width"])
    _no_sideways_scroll(phone.page)
    assert phone.page.evaluate(BROKEN_WORDS, ".leaderboard th.name") == []
    phone.goto(event.get_absolute_url())
    screenshot(phone.page, "organiser", PHONE["width"])
    _no_sideways_scroll(phone.page)
    expect(phone.page.locator(".event-table .status[data-state]")).to_have_count(3)


def test_a_player_finds_their_seat_and_the_page_follows_the_rounds(screen):
    """From the evening's public link, without an account: pick a name, see the table, seat,
    partner and opponents now and next, and the results; the phone remembers the name, and
    the page moves on by itself when the next round starts."""
    from scoring.events import services as event_services
    from scoring.events.tables import place_in

    league, _owner = _club(0)
    event = make_event(league, 9, rounds=3, names=NAMES)
    olga = Player.objects.get(league=league, name="Olga")
    phone = screen(PHONE)
    phone.goto(f"/public/events/{event.share_token}/")
    page = phone.page
    page.get_by_role("link", name="Find your seat").click()
    expect(page.get_by_role("heading", name="Find your seat")).to_be_visible()
    _no_sideways_scroll(page)
    page.get_by_role("button", name="Olga", exact=True).click()
    expect(page.get_by_role("heading", name="Olga", exact=True)).to_be_visible()
    now = place_in(event, 1, olga.pk)
    first = page.get_by_role("region", name="Round 1 of 3 · in play")
    if now.table:
        expect(first.locator(".seat-place")).to_have_text(f"Table {now.table}, {now.seat_name}")
    else:
        expect(first.locator(".seat-place")).to_have_text("You sit out this round.")
    expect(page.get_by_role("region", name="Round 2 of 3 · next")).to_be_visible()
    screenshot(page, "find-your-seat", PHONE["width"])
    _no_sideways_scroll(page)
    assert axe_violations(page) == []

    # The same phone later: the name is remembered; the rounds move on by themselves.
    phone.goto(f"/public/events/{event.share_token}/seat/")
    expect(page.get_by_role("heading", name="Olga", exact=True)).to_be_visible()
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    expect(page.get_by_role("region", name="Round 2 of 3 · in play")).to_be_visible(timeout=15_000)
    expect(page.get_by_role("region", name="Round 3 of 3 · next")).to_be_visible()

    # Not them: another name, picked again.
    page.get_by_role("link", name="Not you? Pick another name").click()
    page.get_by_role("button", name="Vera", exact=True).click()
    expect(page.get_by_role("heading", name="Vera", exact=True)).to_be_visible()


def test_the_table_cards_print_one_table_a_page(screen):
    league, owner = _club(0)
    event = make_event(league, 13, rounds=4, names=NAMES)
    desk = screen(DESKTOP)
    desk.login(owner)
    desk.goto(f"{event.get_absolute_url()}cards/")
    cards = desk.page.locator("article.card")
    expect(cards).to_have_count(event.table_links.count())
    expect(cards.first.get_by_role("heading", name="Table 1")).to_be_visible()
    expect(cards.first.locator(".card-seating tbody tr")).to_have_count(4)
    pdf = desk.page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages == event.table_links.count()


# The whole evening, as a club runs it ------------------------------------------------------------


def _fresh_count(event) -> dict[str, tuple[int, int, int]]:
    """Each player's (played, won, goats), counted afresh from the tables' series: a series with
    a deal is played; a series over is won by its winner, one cut short by its fewest defeat
    points (level: nobody); a goat only at the end of a series."""
    counts = {name: [0, 0, 0] for name in Player.objects.values_list("name", flat=True)}
    for table in EventTable.objects.filter(round__event=event).select_related("series"):
        series = table.series
        if not series.deal_count:
            continue
        if series.finished:
            winner = series.winner_side
        else:
            least = min(series.totals)
            leaders = [side for side, total in enumerate(series.totals) if total == least]
            winner = leaders[0] if table.adjudicated and len(leaders) == 1 else None
        for seat in series.seats.select_related("player"):
            line = counts[seat.player.name]
            line[0] += 1
            line[1] += seat.side == winner
            line[2] += series.finished and seat.is_goat
    return {name: tuple(line) for name, line in counts.items()}


def _big_screen_count(tv: Tab) -> dict[str, tuple[int, int, int]]:
    shown = {}
    for row in tv.page.locator("#board table.leaderboard tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        shown[row.locator("th.name").inner_text()] = (int(cells[1]), int(cells[2]), int(cells[3]))
    return shown


def _until(check, what: str, seconds: float = 15) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never came true: {what}")
        time.sleep(0.25)


def test_a_thirteen_player_evening_of_three_rounds_as_a_club_runs_it(screen):
    """Thirteen players at three tables (one sits out each round), three rounds. The organiser
    on a desktop, a phone per table at 360 px, the big screen, and two players finding their
    seat, each in a browser of its own. Every table follows its rounds on its one link; a deal
    typed after the round closed is refused on the table's phone and by a direct POST;
    finishing asks first; after every round the big screen's leaderboard is a fresh count of
    the tables' series (issue #27)."""
    from django.test import Client

    from scoring.events.tables import place_in
    from tests.browser.test_browser_offline import forgive_offline

    league, owner = _club(13)
    event = make_event(league, 13, rounds=3)
    links = list(event.table_links.order_by("number"))
    assert len(links) == 3

    desk = screen(DESKTOP)
    desk.login(owner)
    desk.goto(event.get_absolute_url())
    tv = screen(TV)
    tv.page.goto(tv.url(f"/public/events/{event.share_token}/?present=1"))
    phones = []
    for link in links:
        phone = screen(PHONE)
        phone.page.goto(phone.url(link.get_absolute_url()))
        phone.page.get_by_role("button", name=f"Score table {link.number} on this phone").click()
        expect(phone.page.locator(".evening")).to_contain_text(
            f"Round 1 of 3 · Table {link.number}"
        )
        phones.append(phone)
    addresses = [phone.page.url for phone in phones]
    players = []
    for name in ("Player 01", "Player 13"):
        player = screen(PHONE)
        player.page.goto(player.url(f"/public/events/{event.share_token}/seat/"))
        player.page.get_by_role("button", name=name, exact=True).click()
        expect(player.page.get_by_role("heading", name=name)).to_be_visible()
        players.append((player, Player.objects.get(name=name)))

    for number in (1, 2, 3):
        # Where each player sits, on their own phone, as the plan has it.
        event.refresh_from_db()
        for player, who in players:
            place = place_in(event, number, who.pk)
            heading = f"Round {number} of 3 · in play"
            section = player.page.locator("section.seat-round", has_text=heading)
            expect(section).to_be_visible(timeout=15_000)
            if place.table is None:
                expect(section).to_contain_text("You sit out this round.")
            else:
                expect(section).to_contain_text(f"Table {place.table}, {place.seat_name}")
        # Each table records two deals on its phone: one level, one won, one lost by the end.
        for deal in (1, 2):
            for index, phone in enumerate(phones):
                points = "80" if deal == 1 else ("50", "100", "20")[index]
                phone.page.locator("form.deal-form input[data-points]").first.fill(points)
                phone.page.get_by_role("button", name="Record deal").click()
            for phone in phones:
                expect(phone.page.locator("table.deals tbody th").first).to_have_text(str(deal))
        # Table 3's phone types a third deal with no network, kept on the phone.
        late = phones[2]
        late.page.locator("form.deal-form input[data-points]").first.fill("90")
        late.page.wait_for_timeout(500)  # the offline module loads as the player types
        late.context.set_offline(True)
        late.page.get_by_role("button", name="Record deal").click()
        expect(late.page.locator(".waiting li")).to_have_count(1)
        # The organiser finishes the round: asked first, naming each table still playing.
        desk.page.goto(desk.url(event.get_absolute_url()))
        desk.page.get_by_role("button", name="Finish this round").click()
        expect(
            desk.page.get_by_role("heading", name=f"Finish round {number} of 3?")
        ).to_be_visible()
        expect(
            desk.page.get_by_role("list", name="Tables still playing").locator("li")
        ).to_have_count(3)
        expect(desk.page.get_by_role("list", name="Tables still playing")).to_contain_text(
            "after 2 deals, scored by standing defeat points"
        )
        desk.page.get_by_role("button", name="Finish the round now").click()
        expect(desk.page.get_by_text(f"Round {number} is over.")).to_be_visible()
        # Back online, table 3's waiting deal is refused, with why; it can only be dropped.
        with late.expecting(422):
            late.context.set_offline(False)
            expect(late.page.locator(".waiting .notice")).to_contain_text(
                "This round is over at this table"
            )
            late.page.get_by_role("button", name="Drop mine").click()
        expect(late.page.locator(".waiting")).to_have_count(0)
        forgive_offline(late)
        # A direct POST to the closed game is refused too, and changes nothing.
        game = EventTable.objects.get(round__event=event, round__number=number, number=3)
        direct = Client()
        direct.post(links[2].get_absolute_url())
        before = game.series.deals.count()
        answer = direct.post(
            f"/series/{game.series_id}/deals/",
            {"number": before + 1, "points_0": "90", "entry_key": "", "points_1": ""},
            headers={"HX-Request": "true"},
        )
        assert answer.status_code == 422 and game.series.deals.count() == before == 2
        # Every table's phone says its round is over and where its players go next.
        for phone in phones:
            expect(phone.page.locator("#round-over")).to_contain_text(
                f"Round {number} is over at this table"
            )
            if number < 3:
                expect(phone.page.locator("#round-over")).to_contain_text(
                    f"Waiting for round {number + 1}"
                )
        # The big screen's leaderboard is a fresh count of the tables' series.
        fresh = _fresh_count(event)
        _until(lambda fresh=fresh: _big_screen_count(tv) == fresh, "the big screen's count")
        if number == 2:
            screenshot(tv.page, "evening-big-screen", 1920)
            screenshot(phones[0].page, "evening-table-round-over", 360)
            screenshot(players[0][0].page, "evening-find-your-seat", 360)
        if number < 3:
            desk.page.goto(desk.url(event.get_absolute_url()))
            desk.page.get_by_role("button", name="Start the next round").click()
            # Every table's phone moves on by itself, on the same address: no scan, no reload.
            for link, phone, address in zip(links, phones, addresses, strict=True):
                expect(phone.page.locator(".evening")).to_contain_text(
                    f"Round {number + 1} of 3 · Table {link.number}", timeout=15_000
                )
                expect(phone.page.locator("form.deal-form")).to_be_visible()
                assert phone.page.url == address
    for phone in phones:
        expect(phone.page.locator("#round-over")).to_contain_text(
            "That was the last round of the evening."
        )
