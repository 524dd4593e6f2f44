"""Lists and standings read at a glance, in a real browser: at phone and desktop size, light and
dark, English and Russian. Nothing sticks out of the page, every column of the standings can be
read whole, the sort and the rating's explanation work, and axe-core finds nothing serious."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import translation
from playwright.sync_api import Page, expect

from scoring.leagues import services as league_services
from scoring.lib.collation import sorted_by_name
from tests.browser.browsing import DESKTOP, PHONE, axe_violations
from tests.browser.data import a_league, finished, played
from tests.helpers import make_user, start_series

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/lists-shots")
LONG_NAMES = ("Маргарита Васильевна", "Konstantin Konstantinopolsky", "Anna", "Boris")

WORDS = {
    "en": {"players": "Players", "goats": "Goats", "rating": "What is the rating?"},
    "ru": {"players": "Игроки", "goats": "Козлы", "rating": "Что такое рейтинг?"},
}

#: Elements outside a scrolling box whose right edge passes the window's: they stick out.
STICKING_OUT = """() => {
  const problems = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".table-scroll, .visually-hidden, .skip")) continue;
    const box = el.getBoundingClientRect();
    if (box.width && box.right > window.innerWidth + 0.5)
      problems.push(`${el.tagName.toLowerCase()}.${el.className}: right edge at ${box.right}`);
  }
  return problems;
}"""

#: Each column heading brought into view in turn: is it whole, beside the sticky name column?
COLUMNS_CUT = """(region) => {
  const cut = [];
  const name = region.querySelector("thead th.name");
  for (const th of region.querySelectorAll("thead th:not(.name)")) {
    const room = region.getBoundingClientRect();
    region.scrollLeft += th.getBoundingClientRect().right - (room.right - 16);
    const box = th.getBoundingClientRect();
    const left = name.getBoundingClientRect().right;
    if (box.left < left - 0.5 || box.right > room.right + 0.5)
      cut.push(`${th.textContent.trim() || th.innerHTML.slice(0, 40)}: ${box.left}-${box.right}`);
  }
  region.scrollLeft = 0;
  return cut;
}"""


def page_fits(page: Page) -> list[str]:
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
        " document.body.scrollWidth, document.body.clientWidth]"
    )
    problems = []
    if widths[0] > widths[1] or widths[2] > widths[3]:
        problems.append(f"the page scrolls sideways: {widths}")
    return problems + page.evaluate(STICKING_OUT)


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True, animations="disabled")


def league_with_long_names(owner):
    league = a_league(owner)
    finished(played(start_series(names=LONG_NAMES, league=league)))
    return league_services.share_renew(league=league)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_standings_fit_the_screen_sort_and_explain_the_rating(open_tab, width, language):
    owner = make_user("olga")
    league = league_with_long_names(owner)
    words = WORDS[language]
    tab = open_tab(color_scheme="light", locale=language)
    tab.login(owner)
    page = tab.page
    tab.goto(f"/leagues/{league.pk}/standings/")
    players = page.get_by_role("table", name=words["players"])
    expect(players).to_be_visible()
    expect(players.locator("tbody tr")).to_have_count(8)
    region = page.locator(".table-scroll").first

    problems = page_fits(page) + [f"column cut: {c}" for c in region.evaluate(COLUMNS_CUT)]
    if width == DESKTOP:  # room for every column: nothing to scroll
        assert region.evaluate("el => el.scrollWidth <= el.clientWidth"), "desktop table scrolls"
    # A long name wraps inside the sticky name column, whole, never cut with an ellipsis.
    long_name = players.locator("tbody th.name", has_text="Konstantin")
    expect(long_name).to_contain_text("Konstantin Konstantinopolsky")
    assert long_name.evaluate("el => el.scrollWidth <= el.clientWidth")
    if width == PHONE:  # scrolled to the end, the names are still there
        region.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        box, room = long_name.bounding_box(), region.bounding_box()
        assert box and room and box["x"] >= room["x"] - 0.5 and box["x"] + box["width"] <= PHONE
        region.evaluate("el => { el.scrollLeft = 0; }")
    problems += [f"axe-core: {line}" for line in axe_violations(page)]
    shot(page, f"standings-{language}-light-{width}")
    page.emulate_media(color_scheme="dark")
    problems += [f"axe-core, dark: {line}" for line in axe_violations(page, ["color-contrast"])]
    shot(page, f"standings-{language}-dark-{width}")
    assert not problems, "\n".join(problems)

    # The rating, explained in words on a tap (on a fresh page: axe-core leaves empty style
    # attributes behind, which htmx would copy onto the new table and the CSP refuse).
    tab.goto(f"/leagues/{league.pk}/standings/")
    page.get_by_text(words["rating"]).click()
    expect(page.locator(".rating-help p").first).to_be_visible()
    expect(page.locator(".rating-help")).to_contain_text("1000")

    # Sort by goats from its column heading (htmx), and the page says so.
    page.get_by_role("link", name=words["goats"]).click()
    expect(page.locator("th[aria-sort=ascending] #sort-goats")).to_be_visible()
    expect(page).to_have_url(re.compile(r"\?sort=goats$"))
    goats = players.locator("tbody tr td:nth-child(3)").all_inner_texts()
    assert [int(n) for n in goats] == sorted(int(n) for n in goats)
    assert page_fits(page) == []

    # The public link sorts the same way, without an account.
    stranger = open_tab(color_scheme="dark", locale=language)
    stranger.goto(f"/public/{league.share_token}/?sort=name")
    names = stranger.page.locator("table.players tbody th.name").all_inner_texts()
    names = [re.sub(r"^\d+\s*", "", name) for name in names]
    with translation.override(language):  # in the reader's language: Cyrillic first in Russian
        assert names == sorted_by_name(names, str)
    assert len({name[0] for name in names} & set("АМ")) and "Anna" in names  # both scripts
    assert page_fits(stranger.page) == []
    assert axe_violations(stranger.page) == []
    shot(stranger.page, f"public-standings-{language}-dark-{width}")


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_series_lists_show_the_score_and_the_goat_and_fit_the_screen(open_tab, width, language):
    owner = make_user("olga")
    league = league_with_long_names(owner)
    tab = open_tab(color_scheme="light", locale=language)
    tab.login(owner)
    page = tab.page
    goat = "goat" if language == "en" else "козёл"
    for name, path in [
        ("home", "/"),
        ("history", "/history/"),
        ("league", league.get_absolute_url()),
    ]:
        tab.goto(path)
        lines = page.locator(".score-line")
        expect(lines.first).to_be_visible()
        expect(lines.filter(has_text=re.compile(r"\d+\s:\s\d+")).first).to_be_visible()
        marked = page.locator(".score-side.is-goat img.goat-icon")
        expect(marked.first).to_have_attribute("alt", goat)
        problems = page_fits(page) + [f"axe-core: {line}" for line in axe_violations(page)]
        shot(page, f"{name}-{language}-light-{width}")
        page.emulate_media(color_scheme="dark")
        problems += [f"axe-core, dark: {p}" for p in axe_violations(page, ["color-contrast"])]
        shot(page, f"{name}-{language}-dark-{width}")
        page.emulate_media(color_scheme="light")
        assert not problems, f"{name}:\n" + "\n".join(problems)
    # A game still on opens its scoreboard from the history.
    tab.goto("/history/")
    page.locator(".hist-row.is-live").first.click()
    expect(page.locator("#scoreboard")).to_be_visible()
    assert re.search(r"/series/\d+/$", page.url)
