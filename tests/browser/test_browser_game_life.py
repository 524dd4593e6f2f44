"""A club night's games as people see them close (issue #36), in a real browser: a table phone
at 360×740, the organiser's desk, the big screen at 1920×1080, each in a context of its own.
Points typed but not sent when the round closes stay on the phone, said, and go to the organiser;
the organiser adds a missing deal to a closed game from its own board and every screen follows;
the organiser renews a table's link and ends every link of the evening, and the screens that
held them say so; a table's phone starts no rematch of its game, however it asks."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.models import EventTable, League, Membership, Role, Series
from tests.browser.browsing import Tab, axe_violations, screenshot
from tests.helpers import make_event, make_user

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
#: Long enough for a table's phone or the big screen to poll (every 2–5 s) on a busy machine.
POLLED = 20_000


def _evening(deals: int = 3):
    """A club of eight, its organiser, and a club night of two rounds of ``deals`` deals."""
    owner = make_user("olga")
    league = League.objects.create(name="Village club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    event = make_event(league, 8, rounds=2, length="deals", length_value=deals)
    return owner, event


def _table_phone(screen, event, number: int) -> Tab:
    phone = screen(PHONE)
    link = event.tables.get(number=number)
    phone.page.goto(phone.url(link.get_absolute_url()))
    phone.page.get_by_role("button", name=f"Score table {number} on this phone").click()
    expect(phone.page.locator(".evening")).to_contain_text(f"Table {number}")
    return phone


def _deal(phone: Tab, points: str, number: int) -> None:
    """The first side's card points for deal ``number``, recorded (the rest of 120 is the
    other side's)."""
    phone.page.locator("form.deal-form input[data-points]").first.fill(points)
    phone.page.get_by_role("button", name="Record deal").click()
    expect(phone.page.locator("table.deals tbody th").first).to_have_text(str(number))


def _finish_round(desk: Tab, event) -> None:
    desk.goto(event.get_absolute_url())
    desk.page.get_by_role("button", name="Finish this round").click()
    if desk.page.get_by_role("button", name="Finish the round now").count():
        desk.page.get_by_role("button", name="Finish the round now").click()
    expect(desk.page.locator(".flash")).to_contain_text("is over.")


def test_points_typed_but_not_sent_when_the_round_closes_stay_on_the_phone_and_are_said(screen):
    """Issue #36: they vanished without a word. Now the phone says the round closed before they
    were sent, sends them to the organiser, and says what the organiser made of them."""
    owner, event = _evening()
    phone = _table_phone(screen, event, 2)
    _deal(phone, "70", 1)
    page = phone.page
    page.locator("form.deal-form input[data-points]").first.fill("25")  # deal 2, not sent
    page.wait_for_timeout(500)  # the offline module loads as the player types
    desk = screen(DESKTOP)
    desk.login(owner)
    _finish_round(desk, event)

    # The table's next poll brings the closed round: the typed points are kept and said.
    told = page.locator("[data-told]")
    expect(told).to_contain_text(
        "The round closed before your points for deal 2 were sent: they are kept on this phone "
        "and go to the organiser.",
        timeout=POLLED,
    )
    expect(page.locator(".proposed li")).to_contain_text("25")
    expect(page.locator(".proposed li")).to_contain_text("(waiting for the organiser)")
    expect(page.locator("#net-status")).not_to_contain_text("Saving")  # nothing is saving
    expect(page.locator("form.deal-form")).to_have_count(0)
    screenshot(page, "points-kept-at-close", PHONE["width"])
    assert axe_violations(page) == []
    game = EventTable.objects.get(round__event=event, round__number=1, number=2).series
    assert game.deals.count() == 1

    # The organiser sees it on the evening's page and declines it in one tap.
    desk.goto(event.get_absolute_url())
    proposed = desk.page.locator("ul.proposals li")
    expect(proposed).to_have_count(1)
    expect(proposed).to_contain_text("Round 1, table 2: deal 2")
    proposed.get_by_role("button", name="Decline").click()
    expect(desk.page.locator(".flash")).to_contain_text("Declined: the game stays as it was.")
    expect(page.get_by_text("The organiser declined your deal 2")).to_be_visible(timeout=POLLED)
    expect(page.locator(".proposed")).to_have_count(0)
    assert game.deals.count() == 1


def test_the_organiser_adds_a_missing_deal_to_a_closed_game_and_every_screen_follows(screen):
    """Issue #36: the organiser's view of a closed game offered no way to add a deal. Table 1
    plays its round of two deals level; the organiser adds the deal its phone missed, from the
    game's own board, and the board, the table's phone and the big screen say who won."""
    owner, event = _evening(deals=2)
    phone = _table_phone(screen, event, 1)
    tv = screen(TV)
    tv.page.goto(tv.url(f"/public/events/{event.share_token}/?present=1"))
    _deal(phone, "40", 1)
    _deal(phone, "80", 2)  # 2 : 2, and the round's two deals are played
    expect(phone.page.locator("#round-over")).to_contain_text("Level: nobody wins it.")
    # The round is open: its result is provisional, on the table and on the big screen alike.
    expect(phone.page.locator("#result-status")).to_contain_text("Provisional")
    first = tv.page.locator(".live-table").first
    expect(first).to_contain_text("Played to its limit: level, nobody wins it", timeout=POLLED)
    expect(first).to_contain_text("provisional")
    expect(tv.page.locator("#evening-provisional")).to_be_visible()

    desk = screen(DESKTOP)
    desk.login(owner)
    desk.goto(event.get_absolute_url())
    desk.page.locator(".event-table").first.get_by_role("link", name="Scoreboard").click()
    board = desk.page.locator("#scoreboard")
    expect(board).to_contain_text("As an organiser you can still correct this game")
    board.get_by_text("Add a deal missing from this game…").click()
    form = board.locator("form.deal-form")
    expect(form.get_by_role("heading")).to_have_text("A missing deal, as deal 3: card points")
    form.locator("input[data-points]").first.fill("90")  # the other side loses this one
    desk.page.wait_for_timeout(500)  # the page's offline module loads as the organiser types
    add = form.get_by_role("button", name="Add the missing deal")
    expect(add).to_be_visible()  # the page's offline engine took the limit for everyone's
    add.click()
    expect(board.locator("table.deals tbody th").first).to_have_text("3")
    series = EventTable.objects.get(round__event=event, round__number=1, number=1).series
    winners = " & ".join(
        series.seats.filter(side=0).order_by("position").values_list("player__name", flat=True)
    )
    expect(board.locator("#round-over")).to_contain_text(f"Won by {winners}")
    screenshot(desk.page, "organiser-adds-a-missing-deal", DESKTOP["width"])
    series.refresh_from_db()
    assert (series.deal_count, series.winner_side) == (3, 0)
    assert series.events.get(number=3).via == "correction"

    # The table's phone and the big screen follow by themselves.
    expect(phone.page.locator("#round-over")).to_contain_text(f"Won by {winners}", timeout=POLLED)
    expect(phone.page.locator("form.deal-form")).to_have_count(0)  # the table adds nothing
    expect(first).to_contain_text("Played to its limit: won on standing defeat points")
    for name in winners.split(" & "):
        row = tv.page.locator(".leaderboard tbody tr", has_text=name)
        expect(row.locator(".won")).to_have_text("1/1")  # won of played
    screenshot(tv.page, "big-screen-after-a-correction", TV["width"])


def test_the_organiser_renews_a_table_link_and_ends_every_link_and_the_screens_say_so(screen):
    owner, event = _evening()
    old = _table_phone(screen, event, 1)
    tv = screen(TV)
    tv.page.goto(tv.url(f"/public/events/{event.share_token}/?present=1"))
    expect(tv.page.locator(".board-present")).to_be_visible()
    desk = screen(DESKTOP)
    desk.login(owner)
    desk.goto(event.get_absolute_url())
    card = desk.page.locator(".event-table").first
    card.get_by_text("Renew or revoke this table's link…").click()
    card.get_by_role("button", name="New link for this table").click()
    expect(desk.page.locator(".flash")).to_contain_text("New link: print the table's card again")
    renewed = desk.page.locator("#table-1-link").input_value()

    # The old link's phone is told whose doing it was, and what to do.
    expect(old.page.get_by_role("alert")).to_contain_text(
        "This table's link no longer works: the organiser renewed or revoked it.",
        timeout=POLLED,
    )
    screenshot(old.page, "table-link-renewed", PHONE["width"])
    fresh = screen(PHONE)
    fresh.page.goto(renewed)
    fresh.page.get_by_role("button", name="Score table 1 on this phone").click()
    _deal(fresh, "70", 1)

    # Every link of the evening ends: the tables' and the big screen's.
    desk.goto(event.get_absolute_url())
    desk.page.get_by_text("Every table's link…").click()
    desk.page.get_by_role(
        "button", name="End every link of this evening (the tables' and the public one)"
    ).click()
    expect(desk.page.locator(".flash")).to_contain_text("Every link of this evening has ended")
    expect(fresh.page.get_by_role("alert")).to_contain_text(
        "the organiser renewed or revoked it", timeout=POLLED
    )
    expect(tv.page.get_by_role("alert")).to_contain_text(
        "The organiser ended this link of the evening", timeout=POLLED
    )
    expect(tv.page.locator("#net-status")).to_be_hidden()  # not "try again in a moment"
    screenshot(tv.page, "big-screen-link-ended", TV["width"])


def test_a_table_phone_starts_no_rematch_of_its_game_played_to_the_goat(screen):
    """Issue #36: holding a table's link, a POST to the rematch URL of a game played to the goat
    made a new league game, and its rematch another, all counted in the standings."""
    _owner, event = _evening(deals=6)
    phone = _table_phone(screen, event, 1)
    for number in (1, 2, 3):
        _deal(phone, "20", number)  # +4 each: 12, the goat
    page = phone.page
    expect(page.locator(".the-end")).to_be_visible()
    expect(page.get_by_role("button", name="Rematch")).to_have_count(0)
    expect(page.get_by_role("link", name="Rematch")).to_have_count(0)
    screenshot(page, "table-game-goat", PHONE["width"])
    series = EventTable.objects.get(round__event=event, number=1).series
    before = Series.objects.count()
    token = page.locator("input[name=csrfmiddlewaretoken]").first.get_attribute("value")
    answer = page.request.post(
        phone.url(f"/series/{series.pk}/rematch/"),
        form={"csrfmiddlewaretoken": token or ""},
        headers={"HX-Request": "true"},
    )
    assert answer.status == 409
    assert "A club night&#x27;s game has no rematch" in answer.text()
    assert Series.objects.count() == before and not series.rematches.exists()
