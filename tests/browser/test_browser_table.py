"""Journeys at the table in a real browser, at phone and desktop size: new game to the goat."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from scoring.models import Deal, Series
from tests.helpers import record, start_series

pytestmark = pytest.mark.browser


def points(page: Page, side: str):
    return page.get_by_role("spinbutton", name=side, exact=True)


def totals(page: Page):
    return page.locator(".sides .side-total")


def record_deal(page: Page, entries: dict[str, str], *, naked: str | None = None) -> None:
    """Type card points (and for a side with 0, that it took no trick), then record the deal."""
    for side, value in entries.items():
        points(page, side).fill(value)
    if naked:
        page.get_by_role("group", name=f"Did {naked} take a trick?").get_by_label("No").check()
    page.get_by_role("button", name="Record deal").click()


def stored_points(series: Series) -> list[tuple[int, ...]]:
    return list(Deal.objects.filter(series=series).values_list("points_0", "points_1"))


def start_game(page: Page, mode: str | None, names: dict[str, str]) -> None:
    page.get_by_role("link", name="New game").click()
    expect(page).to_have_title("New game · Kozel")
    if mode:
        page.get_by_label(mode, exact=True).check()
    for seat, name in names.items():
        page.get_by_label(seat, exact=True).fill(name)
    page.get_by_role("button", name="Start").click()


def test_a_two_team_series_runs_from_new_game_to_the_goat_screen(tab):
    page = tab.page
    tab.goto("/")
    start_game(page, None, {"North": "Anna", "East": "Boris", "South": "Vera", "West": "Gleb"})
    expect(page.locator(".sides .side-name")).to_have_text(["Anna & Vera", "Boris & Gleb"])
    expect(totals(page)).to_have_text(["0", "0"])
    expect(page.get_by_role("heading", name="Deal 1: card points")).to_be_visible()

    # The browser fills the other side's points from 120 while typing.
    points(page, "Anna & Vera").fill("60")
    expect(points(page, "Boris & Gleb")).to_have_value("60")
    page.get_by_role("button", name="Record deal").click()
    expect(page.locator(".last-result")).to_contain_text("Deal 1: Eggs! 60:60.")
    expect(page.locator(".table-facts .eggs")).to_contain_text("1 egg")
    expect(totals(page)).to_have_text(["0", "0"])

    # Naked: 0 points and no trick. The trick question shows up only for 0 points.
    tricks = page.get_by_role("group", name="Did Anna & Vera take a trick?")
    expect(tricks).to_be_hidden()
    points(page, "Anna & Vera").fill("0")
    expect(tricks).to_be_visible()
    record_deal(page, {}, naked="Anna & Vera")
    expect(totals(page)).to_have_text(["6", "0"])
    expect(page.locator(".last-result")).to_contain_text(re.compile(r"Anna & Vera.*naked"))
    expect(page.locator("table.deals .tag")).to_have_text(["naked"])

    # A wrong deal, undone.
    record_deal(page, {"Anna & Vera": "100"})
    expect(totals(page)).to_have_text(["6", "4"])
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#undone")).to_contain_text(
        "Deal 3 undone: Anna & Vera 100, Boris & Gleb 20."
    )
    expect(totals(page)).to_have_text(["6", "0"])
    expect(page.get_by_role("heading", name="Deal 3: card points")).to_be_visible()

    # Deal 3 again, then corrected on the edit page.
    record_deal(page, {"Anna & Vera": "40"})
    expect(totals(page)).to_have_text(["8", "0"])
    page.get_by_role("link", name="Edit deal 3").click()
    expect(page.get_by_role("heading", name="Edit deal 3")).to_be_visible()
    expect(points(page, "Anna & Vera")).to_have_value("40")
    points(page, "Anna & Vera").fill("20")
    points(page, "Boris & Gleb").fill("100")
    page.get_by_role("button", name="Save deal").click()
    expect(page.get_by_role("status").filter(has_text="Deal 3 changed: ")).to_be_visible()
    expect(totals(page)).to_have_text(["10", "0"])

    # Deal 4 takes Anna & Vera to 12: the goat screen, with eggs.
    record_deal(page, {"Anna & Vera": "50"})
    expect(page.locator(".goat-title")).to_have_text("Anna & Vera: goat with eggs!")
    expect(page.locator(".the-end")).to_contain_text("Boris & Gleb won the series.")
    expect(totals(page)).to_have_text(["12", "0"])
    expect(page.locator("form.deal-form")).to_have_count(0)
    series = Series.objects.get()
    assert (series.finished, series.deal_count, series.goat_sides) == (True, 4, [0])
    assert stored_points(series) == [(60, 60), (0, 120), (20, 100), (50, 70)]

    # Rematch: same seats, a fresh scoreboard.
    page.get_by_role("button", name="Rematch: same seats, next dealer").click()
    expect(totals(page)).to_have_text(["0", "0"])
    expect(page.get_by_role("heading", name="Deal 1: card points")).to_be_visible()
    assert Series.objects.count() == 2


def test_a_three_player_series_plays_on_after_an_elimination_to_the_last_one_standing(tab):
    page = tab.page
    tab.goto("/")
    start_game(page, "Three players", {"Player 1": "Anna", "Player 2": "Boris", "Player 3": "Vera"})
    expect(page.locator(".sides .side-name")).to_have_text(["Anna", "Boris", "Vera"])

    # Two players typed, the third gets the rest of 120.
    points(page, "Anna").fill("10")
    points(page, "Boris").fill("10")
    expect(points(page, "Vera")).to_have_value("100")
    page.get_by_role("button", name="Record deal").click()
    expect(totals(page)).to_have_text(["4", "4", "0"])
    record_deal(page, {"Anna": "10", "Boris": "10"})
    expect(totals(page)).to_have_text(["8", "8", "0"])
    record_deal(page, {"Anna": "10", "Boris": "30"})
    expect(totals(page)).to_have_text(["12", "10", "0"])
    expect(page.locator(".last-result")).to_contain_text(re.compile(r"Anna\b.*\bout"))
    expect(page.locator(".side.goat .side-left")).to_have_text("goat")

    # Two players left: the form asks only for them.
    expect(points(page, "Anna")).to_have_count(0)
    record_deal(page, {"Boris": "40"})
    expect(totals(page)).to_have_text(["12", "12", "0"])
    expect(page.locator(".goat-title")).to_have_text("Anna: the goat!")
    expect(page.locator(".the-end")).to_contain_text("Vera won the series.")
    series = Series.objects.get()
    assert (series.finished, series.goat_sides, series.winner_side) == (True, [0], 2)


def test_bad_input_in_the_deal_form_shows_its_message_and_records_nothing(tab):
    series = start_series()
    version = series.version
    page = tab.page
    tab.open_link(series.table.score_token)
    form = page.locator("form.deal-form")

    with tab.expecting(422):
        points(page, "Anna & Vera").fill("130")
        page.get_by_role("button", name="Record deal").click()
        expect(form.locator(".error")).to_have_text("Card points are between 0 and 120.")
        expect(points(page, "Anna & Vera")).to_have_attribute("aria-invalid", "true")
        expect(points(page, "Anna & Vera")).to_have_accessible_description(
            "Card points are between 0 and 120."
        )

        # No set of cards is worth 1 point: the engine's reason, beside the field.
        points(page, "Anna & Vera").fill("1")
        expect(points(page, "Boris & Gleb")).to_have_value("119")
        page.get_by_role("button", name="Record deal").click()
        expect(form.locator(".error, .errors")).to_contain_text("1")
        expect(form.locator(".error, .errors")).not_to_contain_text("between 0 and 120")

    expect(totals(page)).to_have_text(["0", "0"])
    expect(page.locator("table.deals")).to_have_count(0)
    assert Deal.objects.count() == 0
    series.refresh_from_db()
    assert (series.deal_count, series.version) == (0, version)

    # The form still works after the refusals.
    record_deal(page, {"Anna & Vera": "70", "Boris & Gleb": "50"})
    expect(totals(page)).to_have_text(["0", "2"])
    assert Deal.objects.count() == 1


def test_a_spectator_sees_a_deal_appear_after_another_phone_records_it(open_tab):
    series = start_series()
    record(series, (70, 50))
    scorer, spectator = open_tab(), open_tab()
    spectator.open_link(series.table.watch_token)
    expect(totals(spectator.page)).to_have_text(["0", "2"])
    expect(spectator.page.locator("form.deal-form")).to_have_count(0)
    expect(spectator.page.get_by_role("link", name="Edit deal 1")).to_have_count(0)

    scorer.open_link(series.table.score_token)
    record_deal(scorer.page, {"Anna & Vera": "20"})
    expect(totals(scorer.page)).to_have_text(["4", "2"])

    # The watching phone polls: no reload, the deal shows up by itself.
    expect(spectator.page.locator(".last-result")).to_contain_text("Deal 2:")
    expect(totals(spectator.page)).to_have_text(["4", "2"])
    expect(spectator.page.locator("table.deals tbody th[scope=row]")).to_have_text(["2", "1"])


def test_an_old_undo_button_on_one_phone_keeps_the_deal_another_phone_recorded(open_tab):
    series = start_series()
    record(series, (70, 50))
    phone_a, phone_b = open_tab(), open_tab()
    phone_a.open_link(series.table.score_token)
    phone_b.open_link(series.table.score_token)
    # Phone A hears nothing new (a poor connection), so its page still shows deal 1 last.
    phone_a.context.route("**/live/**", lambda route: route.fulfill(status=204))
    record_deal(phone_b.page, {"Anna & Vera": "20"})
    expect(totals(phone_b.page)).to_have_text(["4", "2"])

    with phone_a.expecting(409):
        phone_a.page.get_by_role("button", name="Undo").click()
        expect(phone_a.page.locator(".notice")).to_contain_text("nothing was undone")
        expect(totals(phone_a.page)).to_have_text(["4", "2"])  # the fresh score, with deal 2
    assert stored_points(series) == [(70, 50), (20, 100)]


def test_deal_entry_works_with_the_keyboard_alone(tab):
    series = start_series()
    page = tab.page
    tab.open_link(series.table.score_token)
    first = points(page, "Anna & Vera")

    # From the top of the page, Tab reaches the points field.
    page.locator("body").focus()
    page.evaluate("document.activeElement.blur()")
    for _press in range(40):
        page.keyboard.press("Tab")
        if first.evaluate("el => el === document.activeElement"):
            break
    expect(first).to_be_focused()
    page.keyboard.type("70")
    page.keyboard.press("Enter")
    expect(totals(page)).to_have_text(["0", "2"])
    # The fresh form puts the keyboard back into the points field.
    expect(page.get_by_role("heading", name="Deal 2: card points")).to_be_visible()
    expect(first).to_be_focused()

    # A naked deal without a mouse: 0, then Tab to the trick question and answer "No".
    page.keyboard.type("0")
    page.keyboard.press("Tab")
    expect(points(page, "Boris & Gleb")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_role("radio", name="Yes")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("radio", name="No")).to_be_checked()
    page.keyboard.press("Enter")
    expect(totals(page)).to_have_text(["6", "2"])
    expect(first).to_be_focused()
    assert stored_points(series) == [(70, 50), (0, 120)]


def test_the_card_counter_fills_in_the_points_of_both_sides(tab):
    series = start_series()
    page = tab.page
    tab.open_link(series.table.score_token)
    page.get_by_text("Count cards for Anna & Vera").click()
    # Two aces, a ten, a king and a jack: 11 + 11 + 10 + 4 + 2 = 38, so the others have 82.
    page.get_by_label("A", exact=True).fill("2")
    page.get_by_label("10", exact=True).fill("1")
    page.get_by_label("K", exact=True).fill("1")
    page.get_by_label("J", exact=True).fill("1")
    expect(points(page, "Anna & Vera")).to_have_value("38")
    expect(points(page, "Boris & Gleb")).to_have_value("82")
    page.get_by_role("button", name="Record deal").click()
    expect(totals(page)).to_have_text(["2", "0"])
    assert stored_points(series) == [(38, 82)]


def test_every_phone_of_the_table_goes_on_to_the_rematch_without_a_tap(open_tab):
    """Watchers follow a rematch by themselves (issue #38): the table's link shows the game the
    table plays now; the address becomes the table's page, so a reload keeps the rematch."""
    from tests.helpers import play_out

    series = start_series()
    scorer, watcher = open_tab(), open_tab()
    scorer.open_link(series.table.score_token)
    watcher.open_link(series.table.watch_token)
    play_out(series, loser=0)
    expect(watcher.page.locator("#the-end")).to_be_visible()  # the goat reaches the watcher
    expect(
        scorer.page.get_by_role("button", name="Rematch: same seats, next dealer")
    ).to_be_visible()
    scorer.page.get_by_role("button", name="Rematch: same seats, next dealer").click()
    rematch = Series.objects.get(rematch_of=series)
    board = watcher.page.locator(f'#scoreboard[data-series="{rematch.pk}"]')
    expect(board).to_be_visible()  # no tap: its next poll brought it
    expect(totals(watcher.page)).to_have_text(["0", "0"])
    expect(watcher.page.locator("form.deal-form")).to_have_count(0)  # still only watching
    assert watcher.page.url.endswith(f"/tables/{series.table.watch_token}/")
    watcher.page.reload()
    expect(watcher.page.locator(f'#scoreboard[data-series="{rematch.pk}"]')).to_be_visible()


def test_undoing_the_goat_reaches_a_watching_phone_within_two_seconds(open_tab):
    """A finished game's phones ask as often as a game in play: an undo of the deal that made
    the goat reaches the watcher at its next poll (issue #38: it took 4-9 s)."""
    from scoring.table import deals as table_deals
    from tests.helpers import play_out

    series = play_out(start_series(), loser=0)
    watcher = open_tab()
    watcher.open_link(series.table.watch_token)
    expect(watcher.page.locator("#the-end")).to_be_visible()
    assert watcher.page.locator("#scoreboard").get_attribute("data-every") == "2"
    series.refresh_from_db()
    table_deals.deal_undo(series_id=series.pk, number=series.deal_count, version=series.version)
    expect(watcher.page.locator("#the-end")).to_have_count(0, timeout=3_000)
