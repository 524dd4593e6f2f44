"""The club night's big screen, a TV at 1920×1080 across the room (issue #38, items 2 and 3):
every player's line, the round's tables and the public link's code, nothing outside the window
or clipped, no scrolling, names at least 36 px where they fit, columns or pages where they do
not; names as long as the site allows; the board keeps up by itself; a TV opens it with a short
address and a code typed on its remote, in English and in Russian."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scoring.events import services as event_services
from scoring.models import MAX_NAME, EventTable, Player
from tests.browser.browsing import screenshot
from tests.browser.club import (
    BROKEN_WORDS,
    TV,
    big_screen_problems,
    club,
    evening_under_way,
    name_sizes,
)
from tests.helpers import make_event, play_out, record

pytestmark = pytest.mark.browser

#: The elements of the big screen that overlap: a row under the foot or the page line, the
#: round's tables under the public link's code.
OVERLAPS = """() => {
  const box = element => element.getBoundingClientRect();
  const apart = (a, b) => a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5
    || a.right <= b.left + 0.5 || b.right <= a.left + 0.5;
  const found = [];
  const foot = document.querySelector('.board-foot');
  for (const row of document.querySelectorAll('.leaderboard tbody tr')) {
    if (foot && !apart(box(row), box(foot))) found.push(`row ${row.innerText} under the foot`);
  }
  const code = document.querySelector('.seat-code');
  for (const table of document.querySelectorAll('.live-table')) {
    if (code && !apart(box(table), box(code))) found.push(`${table.innerText} under the code`);
  }
  return found;
}"""


def _tv(screen, owner, event):
    tv = screen(TV)
    tv.login(owner)
    tv.goto(f"{event.get_absolute_url()}board/?present=1")
    expect(tv.page.locator(".board-present.fitted")).to_be_visible()
    return tv


def _shown(page) -> list[str]:
    return page.locator(".leaderboard th.name").all_inner_texts()


def _every_page(page, players: int) -> list[str]:
    """The names shown page after page (the remote's arrow turns the page), each page checked
    as a person sees it: nothing cut off, nothing overlapping, the public link's code there."""
    pages = int(page.locator(".board-present").get_attribute("data-pages"))
    seen: list[str] = []
    for number in range(1, pages + 1):
        if pages > 1:
            expect(page.locator(".board-page")).to_have_text(f"Page {number} of {pages}")
        assert big_screen_problems(page) == [], number
        assert page.evaluate(OVERLAPS) == [], number
        code = page.get_by_role("img", name="QR code of the page where players find their seat")
        expect(code).to_be_in_viewport(ratio=1)
        assert code.bounding_box()["height"] >= 150
        assert min(name_sizes(page)) >= 28
        seen += _shown(page)
        page.keyboard.press("ArrowRight")
    assert len(seen) == players and len(set(seen)) == players, seen
    return seen


@pytest.mark.parametrize("players", [12, 13, 20, 24, 28, 40])
def test_the_big_screen_is_read_across_the_room(screen, players):
    """1920×1080: every player's line, the round's tables with their scores, who sits out and
    the public link's code, nothing cut off and no scrolling, one page; names at least 36 px up
    to 28 players, 28 px and up beyond, never broken inside a word."""
    league, owner = club(0)
    event = evening_under_way(league, players)
    page = _tv(screen, owner, event).page
    expect(page.locator(".leaderboard tbody tr")).to_have_count(players)
    tables = EventTable.objects.filter(round__event=event, round__number=2).count()
    expect(page.locator(".live-table")).to_have_count(tables)
    if players % 4:
        expect(page.locator(".sitting-out")).to_contain_text("Sitting out")
    screenshot(page, f"big-screen-{players}", TV["width"])
    assert page.locator(".board-present").get_attribute("data-pages") == "1"
    _every_page(page, players)
    assert min(name_sizes(page)) >= (36 if players <= 28 else 28), name_sizes(page)
    assert page.evaluate(BROKEN_WORDS, ".live-sides") == []
    out_size = page.eval_on_selector_all(
        ".sitting-out", "ps => ps.map(p => parseFloat(getComputedStyle(p).fontSize))"
    )
    assert all(size >= 30 for size in out_size), out_size


def _names(kind: str, players: int) -> list[str]:
    if kind == "two words":  # the evening: "Игрок01 Фамилия", on two lines before
        return [f"Игрок{n:02} Фамилия" for n in range(1, players + 1)]
    if kind == "longest":  # as long as the site allows, of several words
        stem = "Константин Константинович Преображенский-Петров"
        return [f"{stem[: MAX_NAME - 3]} {n:02}" for n in range(1, players + 1)]
    stem = "Александрапетровнаконстантинопольскаяпреображенская"  # one word, as long as allowed
    return [f"{stem[: MAX_NAME - 2]}{n:02}" for n in range(1, players + 1)]


@pytest.mark.parametrize(
    ("players", "kind"),
    [(28, "two words"), (14, "longest"), (28, "longest"), (40, "longest"), (40, "one word")],
)
def test_names_as_long_as_the_site_allows_are_never_cut_off(screen, players, kind):
    """Names up to ``MAX_NAME`` characters: every name on the screen, whole, page after page
    where one page does not hold them at a readable size; the round's ten tables and the code
    beside them."""
    league, owner = club(0)
    names = _names(kind, players)
    assert max(len(name) for name in names) == MAX_NAME or kind == "two words"
    event = make_event(league, players, rounds=4, names=names)
    first = list(EventTable.objects.filter(round__event=event).order_by("number"))
    play_out(first[0].series, loser=1)
    for table in first[1:]:
        record(table.series, [40, 80])
    page = _tv(screen, owner, event).page
    screenshot(page, f"big-screen-{players}-{kind.replace(' ', '-')}", TV["width"])
    seen = _every_page(page, players)
    assert sorted(seen) == sorted(names)
    if kind == "two words":  # the 28: one page, names on one line at 36 px
        assert page.locator(".board-present").get_attribute("data-pages") == "1"
        assert min(name_sizes(page)) >= 36
        heights = page.eval_on_selector_all(
            ".leaderboard th.name", "cells => cells.map(c => c.getClientRects()[0].height)"
        )
        assert max(heights) < 2 * min(name_sizes(page)), "a name takes two lines"


def test_the_big_screen_keeps_up_by_itself_and_asks_cheaply(screen):
    """Polled every few seconds, it answers 204 while nothing changed, and shows a new deal
    at its table without a reload, sized again."""
    from tests.browser.club import NAMES

    league, owner = club(0)
    event = make_event(league, 8, rounds=2, names=NAMES)
    answers: list[int] = []
    tv = screen(TV)
    tv.login(owner)
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
    expect(tv.page.locator(".board-present.fitted")).to_be_visible()
    assert big_screen_problems(tv.page) == []


# A TV without an account -------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_tv_opens_the_big_screen_with_a_code_typed_on_its_remote(screen, language):
    """The organiser's screen gives the short address and the code; the TV types them with
    its remote (a wrong code first), and shows the public big screen, no login asked."""
    from scoring.events import tables

    league, owner = club(0)
    event = make_event(league, 12, rounds=3, names=[f"Игрок{n:02} Фамилия" for n in range(1, 13)])
    desk = screen(TV)
    desk.login(owner)
    if language == "ru":
        desk.page.context.add_cookies(
            [{"name": "django_language", "value": "ru", "url": desk.url("/")}]
        )
    desk.goto(event.get_absolute_url())
    shown = desk.page.locator("#tv-code").inner_text()
    assert event.tv_code in shown and "/tv/" in shown
    screenshot(desk.page, f"tv-code-organiser-{language}", 1920)

    tv = screen(TV)  # no account: the TV's own browser
    if language == "ru":
        tv.page.context.add_cookies(
            [{"name": "django_language", "value": "ru", "url": tv.url("/")}]
        )
    tv.goto("/tv/")
    field = tv.page.locator("input[name=code]")
    expect(field).to_be_focused()  # the remote types at once
    screenshot(tv.page, f"tv-code-{language}", 1920)
    wrong = "".join(c for c in "ABCDEFGHJK" if c not in event.tv_code)[:6]
    with tv.expecting(422):
        tv.page.keyboard.type(wrong.lower())
        tv.page.keyboard.press("Enter")
        expect(tv.page.locator(".error")).to_be_visible()
    field = tv.page.locator("input[name=code]")
    field.fill("")
    field.focus()
    tv.page.keyboard.type(f"{event.tv_code[:3]} {event.tv_code[3:]}".lower())
    tv.page.keyboard.press("Enter")
    expect(tv.page.locator(".board-present.fitted")).to_be_visible()
    assert tv.page.url.endswith(f"/public/events/{event.share_token}/?present=1")
    assert tables.tv_code_token(event.tv_code) == event.share_token
    expect(tv.page.locator(".leaderboard tbody tr")).to_have_count(12)
    assert big_screen_problems(tv.page) == []
    screenshot(tv.page, f"tv-big-screen-{language}", 1920)
    # The organiser stops sharing: the code opens nothing any more.
    code = event.tv_code
    event_services.share_revoke(event=event)
    tv.goto("/tv/")
    with tv.expecting(422):
        tv.page.locator("input[name=code]").fill(code)
        tv.page.locator("input[name=code]").press("Enter")
        expect(tv.page.locator(".error")).to_be_visible()
    assert Player.objects.count() == 12
