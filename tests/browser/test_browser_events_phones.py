"""A club night's pages on a 360×740 phone (and axe on a desktop too): the leaderboard, the
organiser's screen, the new club night's form, "Find your seat", the table cards; names as long
as the site allows never make a page wider than the phone (issue #38, item 5); the board of an
old round's game hears of the next round by itself."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.events import services as event_services
from scoring.models import MAX_NAME, EventTable, Player
from tests.browser.browsing import axe_violations, screenshot
from tests.browser.club import (
    BROKEN_WORDS,
    DESKTOP,
    NAMES,
    PHONE,
    club,
    evening_under_way,
    no_sideways_scroll,
)
from tests.helpers import make_event, record

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_the_club_night_pages_pass_axe(screen, viewport):
    league, owner = club(0)
    event = make_event(league, 9, rounds=3)
    tab = screen(viewport)
    tab.login(owner)
    for path in ("", "board/", "board/?present=1", "cards/", "players/", "rounds/finish/"):
        tab.goto(f"{event.get_absolute_url()}{path}")
        assert axe_violations(tab.page) == [], path
    for path in (
        f"/leagues/{league.pk}/events/new/",
        f"/public/events/{event.share_token}/seat/",
        f"/public/events/{event.share_token}/",
        "/tv/",
    ):
        tab.goto(path)
        assert axe_violations(tab.page) == [], path


def test_the_new_club_night_form_fits_a_360_px_phone(screen):
    league, owner = club(0)
    for name in NAMES[:16]:
        Player.objects.create(name=name, league=league)
    phone = screen(PHONE)
    phone.login(owner)
    phone.goto(f"/leagues/{league.pk}/events/new/")
    expect(phone.page.get_by_role("button", name="Seat the players and start round 1"))
    screenshot(phone.page, "new-club-night", PHONE["width"])
    no_sideways_scroll(phone.page)
    assert phone.page.evaluate(BROKEN_WORDS, ".present-grid .choice span") == []


def test_the_phone_leaderboard_fits_360_px_and_breaks_no_name(screen):
    league, owner = club(0)
    event = evening_under_way(league, 12)
    phone = screen(PHONE)
    phone.login(owner)
    phone.goto(f"{event.get_absolute_url()}board/")
    expect(phone.page.locator(".leaderboard tbody tr")).to_have_count(12)
    screenshot(phone.page, "leaderboard", PHONE["width"])
    no_sideways_scroll(phone.page)
    assert phone.page.evaluate(BROKEN_WORDS, ".leaderboard th.name") == []
    phone.goto(event.get_absolute_url())
    screenshot(phone.page, "organiser", PHONE["width"])
    no_sideways_scroll(phone.page)
    expect(phone.page.locator(".event-table .status[data-state]")).to_have_count(3)


def test_a_player_finds_their_seat_and_the_page_follows_the_rounds(screen):
    """From the evening's public link, without an account: pick a name, see the table, seat,
    partner and opponents now and next, and the results; the phone remembers the name, and
    the page moves on by itself when the next round starts."""
    from scoring.events import services as event_services
    from scoring.events.tables import place_in

    league, _owner = club(0)
    event = make_event(league, 9, rounds=3, names=NAMES)
    olga = Player.objects.get(league=league, name="Olga")
    phone = screen(PHONE)
    phone.goto(f"/public/events/{event.share_token}/")
    page = phone.page
    page.get_by_role("link", name="Find your seat").click()
    expect(page.get_by_role("heading", name="Find your seat")).to_be_visible()
    no_sideways_scroll(page)
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
    no_sideways_scroll(page)
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
    league, owner = club(0)
    event = make_event(league, 13, rounds=4, names=NAMES)
    desk = screen(DESKTOP)
    desk.login(owner)
    desk.goto(f"{event.get_absolute_url()}cards/")
    cards = desk.page.locator("article.card")
    expect(cards).to_have_count(event.tables.count())
    expect(cards.first.get_by_role("heading", name="Table 1")).to_be_visible()
    expect(cards.first.locator(".card-seating tbody tr")).to_have_count(4)
    expect(cards.first.locator(".card-seating-number")).to_have_text("Seating 1")
    pdf = desk.page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages == event.tables.count()


#: Names as long as the site allows: one a single word, one of several words.
LONG_NAMES = [
    "Александрапетровнаконстантинопольская12"[:MAX_NAME],
    "Константин Константинович Преображенский-Петров"[:MAX_NAME],
    *NAMES[:10],
]


def test_names_as_long_as_the_site_allows_fit_a_360_px_phone(screen):
    """A 39-character name and one of 40: the public leaderboard, "Find your seat", the
    organiser's screen and the table's phone with its point box and card counter stay 360 px
    wide (issue #38: the point box broke, the public page grew to 390 px)."""
    league, owner = club(0)
    assert {len(name) for name in LONG_NAMES[:2]} == {MAX_NAME - 1, MAX_NAME}
    event = make_event(league, 12, rounds=3, names=LONG_NAMES)
    for table in EventTable.objects.filter(round__event=event):
        record(table.series, [40, 80])
    long_one = Player.objects.get(name=LONG_NAMES[0])
    phone = screen(PHONE)
    phone.goto(f"/public/events/{event.share_token}/")
    expect(phone.page.locator(".leaderboard tbody tr")).to_have_count(12)
    screenshot(phone.page, "public-board-long-names", PHONE["width"])
    no_sideways_scroll(phone.page)
    # Only the words too long for the phone break; the names that fit keep theirs whole.
    broken = set(phone.page.evaluate(BROKEN_WORDS, ".leaderboard th.name"))
    assert not broken & {word for name in NAMES[:10] for word in name.split()}, broken
    phone.goto(f"/public/events/{event.share_token}/seat/")
    no_sideways_scroll(phone.page)
    phone.page.get_by_role("button", name=long_one.name).click()
    expect(phone.page.get_by_role("heading", name=long_one.name)).to_be_visible()
    no_sideways_scroll(phone.page)
    # The table's phone where the long name sits: its point box and card counter.
    table = EventTable.objects.get(round__event=event, series__seats__player=long_one)
    link = event.tables.get(number=table.number)
    phone.page.goto(phone.url(link.get_absolute_url()))
    phone.page.get_by_role("button", name=f"Score table {link.number} on this phone").click()
    points = phone.page.locator("form.deal-form input[data-points]")
    expect(points.first).to_be_visible()
    screenshot(phone.page, "table-phone-long-names", PHONE["width"])
    no_sideways_scroll(phone.page)
    for box in points.all():
        found = box.bounding_box()
        assert found is not None and found["width"] >= 80 and found["x"] + found["width"] <= 360
    organiser = screen(PHONE)
    organiser.login(owner)
    organiser.goto(event.get_absolute_url())
    no_sideways_scroll(organiser.page)
    organiser.goto(f"{event.get_absolute_url()}board/")
    no_sideways_scroll(organiser.page)


def test_an_old_rounds_board_follows_the_evening_by_itself(screen):
    """Round 1's game opened by its own address (the organiser's "Scoreboard" link): "Waiting
    for round 2" once it ends; when round 2 starts the board follows its table to the game it
    plays now, as every board of a table does (no reload). Round 1's game opened afterwards
    says where its players sit in round 2, and still so after round 2 ends."""
    league, owner = club(0)
    event = make_event(league, 8, rounds=3, names=NAMES)
    game = EventTable.objects.get(round__event=event, round__number=1, number=1).series
    record(game, [40, 80])
    phone = screen(PHONE)
    phone.login(owner)
    phone.goto(f"/series/{game.pk}/")
    event_services.round_finish(event=event)
    heading = phone.page.locator("#round-over h3")
    expect(heading).to_have_text("Waiting for round 2", timeout=15_000)
    event_services.round_start(event=event)
    evening = phone.page.locator(".evening")
    expect(evening).to_contain_text("Round 2 of 3", timeout=15_000)
    expect(evening).to_contain_text("Table 1")
    assert "/tables/" in phone.page.url  # the table's page, which follows its next games

    phone.goto(f"/series/{game.pk}/")  # round 1's game: a game of the past now
    expect(heading).to_have_text("Round 2")
    event_services.round_finish(event=event)
    phone.page.reload()
    expect(heading).to_have_text("Round 2")  # never "Waiting for round 2" once it began
    screenshot(phone.page, "old-round-board", PHONE["width"])
    no_sideways_scroll(phone.page)
