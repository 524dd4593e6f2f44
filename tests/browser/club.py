"""What the club night's browser tests share: the sizes of a 360×740 phone, a desktop and a
1920×1080 TV (``screen``, in conftest.py, opens a tab of one), a club with its players, an
evening under way, and what a person would see wrong: a page wider than the phone, a word
broken over two lines, the big screen cutting something off."""

from __future__ import annotations

from scoring.models import EventTable, League, Membership, Player, Role
from tests.browser.browsing import Tab
from tests.helpers import make_event, make_user

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}


def club(players: int) -> tuple[League, object]:
    owner = make_user("olga")
    league = League.objects.create(name="Village club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    for n in range(1, players + 1):
        Player.objects.create(name=f"Player {n:02}", league=league)
    return league, owner


def side_name(series, side: int) -> str:
    seats = series.seats.select_related("player").order_by("position")
    return " & ".join(s.player.name for s in seats if s.side == side)


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


def evening_under_way(league, players: int):
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


def no_sideways_scroll(page) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] == width[1], f"the page is {width[0]} px wide on a {width[1]} px phone"


def fresh_count(event) -> dict[str, tuple[int, int, int]]:
    """Each player's (played, won, goats), counted afresh from the tables' series: a series with
    a deal is played; a series over is won by its winner, one cut short by its fewest defeat
    points (level: nobody); a goat only at the end of a series."""
    counts = {name: [0, 0, 0] for name in Player.objects.values_list("name", flat=True)}
    for table in EventTable.objects.filter(round__event=event).select_related("series"):
        series = table.series
        if not series.deal_count:
            continue
        # Counted afresh, not read from the stored result: the fewest defeat points once
        # the game ended (level: nobody), a goat only for a game over with its goat.
        least = min(series.totals)
        leaders = [side for side, total in enumerate(series.totals) if total == least]
        winner = leaders[0] if series.finished and len(leaders) == 1 else None
        for seat in series.seats.select_related("player"):
            line = counts[seat.player.name]
            line[0] += 1
            line[1] += seat.side == winner
            line[2] += series.ending == "goat" and seat.is_goat
    return {name: tuple(line) for name, line in counts.items()}


def big_screen_count(tv: Tab) -> dict[str, tuple[int, int, int]]:
    """Each name's (played, won, goats) as the big screen shows them ("won/played", goats)."""
    shown = {}
    for row in tv.page.locator("#board table.leaderboard tbody tr").all():
        cells = row.locator("td").all_inner_texts()
        won, played = (int(part) for part in cells[1].split("/"))
        shown[row.locator("th.name").inner_text()] = (played, won, int(cells[2]))
    return shown


def until(check, what: str, seconds: float = 15) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never came true: {what}")
        time.sleep(0.25)


def big_screen_problems(page) -> list[str]:
    """What a person across the room would see wrong on the big screen: a scroll bar, something
    outside the window or clipped, a word broken inside."""
    problems = []
    out = page.evaluate(
        "() => [document.documentElement.scrollWidth - innerWidth,"
        " document.documentElement.scrollHeight - innerHeight]"
    )
    if out != [0, 0]:
        problems.append(f"the page scrolls by {out}")
    problems += page.evaluate(OUTSIDE)
    problems += [f"broken: {w}" for w in page.evaluate(BROKEN_WORDS, ".leaderboard th.name")]
    return problems


def name_sizes(page) -> list[float]:
    return page.eval_on_selector_all(
        ".leaderboard th.name", "cells => cells.map(c => parseFloat(getComputedStyle(c).fontSize))"
    )
