"""A club night in a real browser, as a club runs it: the organiser on a desktop, table phones
at 360×740 scoring at the same time, the big screen keeping up; re-seating after a player
leaves; a round of a number of deals on an offline phone; thirteen players over three rounds.

The big screen is tested in test_browser_events_screen.py, the phones' pages in
test_browser_events_phones.py, substitutes and the fair leaderboard in
test_browser_events_changes.py; what they share is in tests/browser/club.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.models import EventTable, Player
from tests.browser.browsing import axe_violations, screenshot
from tests.browser.club import (
    DESKTOP,
    PHONE,
    TV,
    big_screen_count,
    club,
    fresh_count,
    side_name,
    until,
)
from tests.helpers import make_event

pytestmark = pytest.mark.browser


def test_a_club_night_from_the_organisers_desk_to_the_big_screen(screen):
    league, owner = club(16)
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
        name = side_name(table.series, 0)
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
    page.get_by_role("button", name="Save who is present").click()
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
    expect(tv.page.locator(".live-table[data-state='cut short']")).to_have_count(4, timeout=15_000)
    page.get_by_role("button", name="Start the next round").click()
    expect(page.get_by_role("heading", name="Round 2 of 2")).to_be_visible()
    expect(page.locator(".event-table")).to_have_count(3)


def test_a_table_phone_takes_no_deal_after_the_rounds_last_even_one_typed_offline(screen):
    """A round of two deals on a 360 px phone: "Deal 2 of 2", then the round's line in place of
    the form. Offline, the phone knows the round's length too: the second deal typed offline
    waits, and the form gives way to the round's line at once; back online the deal is saved,
    and the table holds its two deals."""
    from tests.browser.offline import forgive_offline, kept_game

    league, _owner = club(0)
    event = make_event(league, 4, rounds=1, length="deals", length_value=2)
    series = EventTable.objects.get(round__event=event).series
    phone = screen(PHONE)
    page = kept_game(phone, series)
    facts = page.locator(".table-facts")
    expect(facts).to_contain_text("Deal 1 of 2")

    def enter(points: str) -> None:
        page.get_by_role("spinbutton", name=side_name(series, 0), exact=True).fill(points)
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
    expect(page.locator("#round-over")).to_contain_text("Its 2 deals were played.")
    expect(page.locator("#limit-reached")).to_contain_text("the organiser corrects it")
    expect(page.locator("form.deal-form")).to_have_count(0)
    assert list(series.deals.order_by("number").values_list("points_0", flat=True)) == [70, 80]
    forgive_offline(phone)


def test_a_thirteen_player_evening_of_three_rounds_as_a_club_runs_it(screen):
    """Thirteen players at three tables (one sits out each round), three rounds. The organiser
    on a desktop, a phone per table at 360 px, the big screen, and two players finding their
    seat, each in a browser of its own. Every table follows its rounds on its one link; a deal
    typed offline after the round closed goes to the organiser, who adds or declines it, while
    a direct POST is refused; finishing asks first; after every round the big screen's
    leaderboard is a fresh count of the tables' series (issues #27, #36)."""
    from django.test import Client

    from scoring.events.tables import place_in
    from tests.browser.offline import forgive_offline

    league, owner = club(13)
    event = make_event(league, 13, rounds=3)
    links = list(event.tables.order_by("number"))
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
        # Back online, table 3's kept deal is refused in the closed round and goes to the
        # organiser, who adds it in the first round and declines it after; the phone says which.
        accept = number == 1
        with late.expecting(422):
            late.context.set_offline(False)
            expect(late.page.get_by_role("alert")).to_contain_text(
                "Sent to the organiser: they add deal 3 to the round or decline it"
            )
        expect(late.page.locator(".proposed li")).to_contain_text("(waiting for the organiser)")
        desk.page.goto(desk.url(event.get_absolute_url()))
        proposed = desk.page.locator("ul.proposals li")
        expect(proposed).to_have_count(1)
        expect(proposed).to_contain_text(f"Round {number}, table 3: deal 3")
        proposed.get_by_role("button", name="Add it to the game" if accept else "Decline").click()
        expect(desk.page.locator("ul.proposals li")).to_have_count(0)
        told = "added your deal 3 to the game, as deal 3" if accept else "declined your deal 3"
        expect(late.page.get_by_text(told)).to_be_visible(timeout=15_000)
        expect(late.page.locator(".proposed")).to_have_count(0)
        forgive_offline(late)
        # A direct POST to the closed game is refused too, and changes nothing.
        game = EventTable.objects.get(round__event=event, round__number=number, number=3)
        direct = Client()
        direct.post(links[2].get_absolute_url())
        before = game.series.deals.count()
        assert before == (3 if accept else 2)
        answer = direct.post(
            f"/series/{game.series_id}/deals/",
            {"number": before + 1, "points_0": "90", "entry_key": "", "points_1": ""},
            headers={"HX-Request": "true"},
        )
        assert answer.status_code == 422 and game.series.deals.count() == before
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
        fresh = fresh_count(event)
        until(lambda fresh=fresh: big_screen_count(tv) == fresh, "the big screen's count")
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
    # After the last round the big screen says the final result: the evening's winner (or who
    # share first place), and no one sitting out, no seat code.
    final = tv.page.locator("#evening-final")
    expect(final).to_contain_text("Final result", timeout=15_000)
    expect(final).to_contain_text(re.compile(r"wins the evening|share the evening's first place"))
    last = tv.page.get_by_role("heading", name="Final: every round has been played")
    expect(last).to_be_visible()
    expect(tv.page.locator(".sitting-out")).to_have_count(0)
    expect(tv.page.locator(".seat-code")).to_have_count(0)
    screenshot(tv.page, "evening-final", 1920)
    # A table's phone cannot start a rematch (issue #36: one minted league games): its POST, as
    # a form sends it, is refused with words, and no game is made.
    from scoring.models import Series

    before = Series.objects.count()
    table = phones[0].page
    token = table.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
    game = EventTable.objects.get(round__event=event, round__number=3, number=1).series
    answer = table.request.post(
        phones[0].url(f"/series/{game.pk}/rematch/"),
        form={"csrfmiddlewaretoken": token or ""},
        headers={"HX-Request": "true"},
    )
    assert answer.status == 409 and "no rematch" in answer.text()
    assert Series.objects.count() == before
