"""Every main page in a real browser, at 360 and 1280 px: accessible, readable and screenshotted.

For each page: axe-core finds no serious or critical violation (and in dark mode no colour
contrast failure: its other rules do not depend on colours); every input has a <label>; every
control is a touch target of at least 44×44 px; keyboard focus is visible on every control;
nothing scrolls sideways; text is big enough to read. Screenshots of every page at both sizes
(and in dark mode) go to screenshots/ for people to look at.

Touch targets: links inside running text (an inline <a> in a sentence) are exempt, as WCAG 2.5.8
exempts "inline" targets whose size is set by the line of text around them. A radio button or
checkbox inside its <label> counts with its label, which is what a finger actually taps.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import Player, Series
from scoring.table import services as table
from tests.browser.browsing import Tab, axe_violations, screenshot
from tests.browser.data import a_league, finished, played
from tests.helpers import make_user, play_out, record, start_series

pytestmark = pytest.mark.browser

MIN_TARGET = 44
MIN_FONT_PX = 12
MIN_BODY_FONT_PX = 16

PAGES: dict[str, Callable[[Tab], None]] = {}


def main_page(name: str):
    """Register a page: the function opens it in a tab, with realistic data behind it."""

    def register(open_page: Callable[[Tab], None]) -> Callable[[Tab], None]:
        PAGES[name] = open_page
        return open_page

    return register


def join(tab: Tab, series: Series, *, watch: bool = False) -> None:
    tab.open_link(series.table.watch_token if watch else series.table.score_token)


@main_page("home")
def _home(tab: Tab) -> None:
    join(tab, finished(start_series(names=("Olga", "Pavel", "Rita", "Stas"))))
    join(tab, played(start_series()))
    join(tab, start_series(mode="three", names=("Anna", "Boris", "Vera")))
    tab.goto("/")


@main_page("home-empty")
def _home_empty(tab: Tab) -> None:
    tab.goto("/")


@main_page("new-game")
def _new_game(tab: Tab) -> None:
    tab.goto("/new/")


@main_page("new-game-errors")
def _new_game_errors(tab: Tab) -> None:
    tab.goto("/new/")
    tab.page.get_by_label("North", exact=True).fill("Anna")
    with tab.expecting(422):
        tab.page.get_by_role("button", name="Start").click()
        expect(tab.page.locator(".error").first).to_be_visible()


@main_page("scoreboard")
def _scoreboard(tab: Tab) -> None:
    join(tab, played(start_series()))


@main_page("scoreboard-three")
def _scoreboard_three(tab: Tab) -> None:
    series = start_series(mode="three", names=("Anna", "Boris", "Vera"))
    # Anna goes out naked in deal 3; Boris and Vera play on as two sides (eggs in deal 4).
    for points in [(10, 10, 100), (10, 30, 80), (0, 40, 80), (60, 60)]:
        record(series, points, (False, True, True) if 0 in points else None)
    join(tab, series)


@main_page("scoreboard-bad-input")
def _scoreboard_bad_input(tab: Tab) -> None:
    join(tab, played(start_series()))
    tab.page.get_by_role("spinbutton", name="Anna & Vera", exact=True).fill("130")
    with tab.expecting(422):
        tab.page.get_by_role("button", name="Record deal").click()
        expect(tab.page.locator("form.deal-form .error")).to_be_visible()


@main_page("goat")
def _goat(tab: Tab) -> None:
    join(tab, finished(played(start_series())))


@main_page("watching")
def _watching(tab: Tab) -> None:
    join(tab, played(start_series()), watch=True)


@main_page("join")
def _join(tab: Tab) -> None:
    tab.goto(f"/tables/{played(start_series()).table.score_token}/")  # the page that asks first


@main_page("deal-edit")
def _deal_edit(tab: Tab) -> None:
    series = played(start_series())
    join(tab, series)
    tab.goto(f"/series/{series.pk}/deals/2/edit/")


@main_page("history")
def _history(tab: Tab) -> None:
    join(tab, finished(played(start_series())))
    join(tab, played(start_series(names=("Anna", "Dasha", "Vera", "Egor"))))
    join(tab, start_series(mode="three", names=("Anna", "Boris", "Vera")))
    tab.goto(reverse("history"))


@main_page("series-sheet")
def _series_sheet(tab: Tab) -> None:
    series = finished(played(start_series()))
    join(tab, series)
    tab.goto(reverse("series_sheet", args=[series.pk]))


@main_page("player")
def _player(tab: Tab) -> None:
    for names in [("Anna", "Boris", "Vera", "Gleb"), ("Anna", "Dasha", "Vera", "Egor")]:
        join(tab, finished(played(start_series(names=names))))
    series = played(start_series())
    join(tab, series)
    anna = series.seats.get(position=0).player
    tab.goto(reverse("player_detail", args=[anna.pk]))


@main_page("login")
def _login(tab: Tab) -> None:
    tab.goto(reverse("login"))


@main_page("signup")
def _signup(tab: Tab) -> None:
    tab.goto(reverse("signup"))


@main_page("account")
def _account(tab: Tab) -> None:
    tab.login(make_user("olga"))
    tab.goto(reverse("account"))


@main_page("leagues")
def _leagues(tab: Tab) -> None:
    owner = make_user("olga")
    a_league(owner, series=1)
    a_league(owner, name="Dacha summer", series=0)
    tab.login(owner)
    tab.goto(reverse("league_list"))


def _league_page(tab: Tab, name: str) -> None:
    league = a_league()
    tab.login(league.memberships.get().user)
    tab.goto(reverse(name, args=[league.pk]))


@main_page("league")
def _league(tab: Tab) -> None:
    _league_page(tab, "league_detail")


@main_page("standings")
def _standings(tab: Tab) -> None:
    _league_page(tab, "league_standings")


@main_page("head-to-head")
def _head_to_head(tab: Tab) -> None:
    _league_page(tab, "league_head_to_head")


@main_page("members")
def _members(tab: Tab) -> None:
    _league_page(tab, "league_members")


@main_page("players")
def _players(tab: Tab) -> None:
    _league_page(tab, "league_players")


@main_page("league-settings")
def _league_settings(tab: Tab) -> None:
    league = league_services.share_renew(league=a_league(series=0))
    tab.login(league.memberships.get().user)
    tab.goto(reverse("league_settings", args=[league.pk]))


def _owned_league_with_a_typo(tab: Tab):
    """A league whose owner is logged in, with "Anya" beside the players of its series."""
    league = a_league(series=1)
    tab.login(league.memberships.get().user)
    play_out(start_series(names=("Anya", "Zhenya"), league=league, mode="duel"))
    players = {p.name: p for p in Player.objects.filter(league=league)}
    return league, players


@main_page("player-edit")
def _player_edit(tab: Tab) -> None:
    league, players = _owned_league_with_a_typo(tab)
    tab.goto(reverse("player_edit", args=[league.pk, players["Anya"].pk]))


@main_page("merge-preview")
def _merge_preview(tab: Tab) -> None:
    league, players = _owned_league_with_a_typo(tab)
    target = next(p for name, p in players.items() if name not in ("Anya", "Zhenya"))
    url = reverse("player_merge", args=[league.pk, players["Anya"].pk])
    tab.goto(f"{url}?into={target.pk}")


@main_page("league-changes")
def _league_changes(tab: Tab) -> None:
    league, players = _owned_league_with_a_typo(tab)
    target = next(p for name, p in players.items() if name not in ("Anya", "Zhenya"))
    owner = league.memberships.get().user
    league_players.player_rename(
        league=league, player_id=players["Zhenya"].pk, name="Zhenechka", user=owner
    )
    league_players.players_merge(
        league=league, source_id=players["Anya"].pk, target_id=target.pk, user=owner
    )
    tab.goto(reverse("league_changes", args=[league.pk]))


@main_page("league-delete")
def _league_delete(tab: Tab) -> None:
    league = a_league(series=1)
    tab.login(league.memberships.get().user)
    tab.goto(reverse("league_delete", args=[league.pk]))


@main_page("leagues-archived")
def _leagues_archived(tab: Tab) -> None:
    owner = make_user("olga")
    a_league(owner, series=0)
    archived = a_league(owner, name="Dacha summer", series=1)
    league_services.league_archive(league=archived, user=owner)
    tab.login(owner)
    tab.goto(reverse("league_detail", args=[archived.pk]))


@main_page("account-delete")
def _account_delete(tab: Tab) -> None:
    tab.login(make_user("nina"))
    tab.goto(reverse("account_delete"))


@main_page("public-standings")
def _public_standings(tab: Tab) -> None:
    league = league_services.share_renew(league=a_league())
    tab.goto(reverse("public_standings", args=[league.share_token]))


@main_page("public-history")
def _public_history(tab: Tab) -> None:
    league = league_services.share_renew(league=a_league())
    tab.goto(reverse("public_history", args=[league.share_token]))


@main_page("not-found")
def _not_found(tab: Tab) -> None:
    with tab.expecting(404):
        response = tab.page.goto(tab.url("/public/no-such-link/"))
        assert response is not None and response.status == 404
        expect(tab.page.get_by_role("heading", name="Page not found")).to_be_visible()


@main_page("link-renewed")
def _link_renewed(tab: Tab) -> None:
    """A phone holding a game's old scoring link: what happened and how to get the new one."""
    series = played(start_series())
    join(tab, series)
    table.table_link_renew(table=series.table, link="score")
    with tab.expecting(410):
        response = tab.page.goto(tab.url(series.get_absolute_url()))
        assert response is not None and response.status == 410
        expect(tab.page.get_by_role("heading", name="This link no longer works")).to_be_visible()


@main_page("form-refused")
def _form_refused(tab: Tab) -> None:
    """A form sent without its CSRF cookie (cleared, or blocked): the site's own 403 page."""
    tab.goto("/")
    # The service worker installs first: a page it fetches would set the CSRF cookie again.
    tab.page.evaluate("() => navigator.serviceWorker ? navigator.serviceWorker.ready : null")
    tab.page.wait_for_load_state("networkidle")
    tab.context.clear_cookies()
    with tab.expecting(403):
        tab.page.get_by_label("Language").select_option("ru")  # the picker sends itself
        expect(tab.page.get_by_role("heading", name="The form was not accepted")).to_be_visible()


# What the page checks run in the browser. Each returns a list of readable problems.
TOUCH_TARGETS = """() => {
  const problems = [];
  const controls = document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, textarea, summary");
  for (const el of controls) {
    const style = getComputedStyle(el);
    let box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || style.visibility === "hidden") continue;
    if (box.right <= 0 || box.bottom <= 0) continue;  // off-screen until focused (skip link)
    if (el.closest(".visually-hidden")) continue;
    const parentText = (el.parentElement && el.parentElement.textContent.trim()) || "";
    if (el.tagName === "A" && style.display === "inline"
        && parentText.length > el.textContent.trim().length) continue;  // a link in a sentence
    const label = (el.type === "radio" || el.type === "checkbox") && el.closest("label");
    if (label) box = label.getBoundingClientRect();
    if (box.width < 44 - 0.5 || box.height < 44 - 0.5) {
      const size = `${Math.round(box.width)}×${Math.round(box.height)}`;
      problems.push(`${el.outerHTML.slice(0, 120)} is ${size}`);
    }
  }
  return problems;
}"""

UNLABELLED = """() => Array.from(document.querySelectorAll(
    "input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea"))
  .filter(el => el.labels.length === 0 || !Array.from(el.labels).some(l => l.textContent.trim()))
  .map(el => el.outerHTML.slice(0, 120))"""

SMALL_TEXT = """(min) => {
  const problems = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    if (!el.checkVisibility() || el.closest(".visually-hidden, title, desc")) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    // SVG text is drawn at the scale of its picture: a chart shrunk to a phone shrinks it too.
    const ctm = el.closest("svg") && el.getScreenCTM();
    if (ctm) size *= Math.hypot(ctm.a, ctm.b);
    const text = el.textContent.trim().slice(0, 30);
    const what = `${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""}`;
    if (size < min - 0.05) problems.push(`${what} "${text}" is ${size.toFixed(1)}px`);
  }
  return problems;
}"""

FOCUS_STYLE = """() => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    what: el.outerHTML.slice(0, 100),
    outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    shadow: style.boxShadow !== "none",
    width: box.width, height: box.height, body: el === document.body,
  };
}"""


def layout_problems(page: Page, width: int) -> list[str]:
    problems = []
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > width:
        problems.append(f"scrolls sideways: {scroll} px wide in a {width} px window")
    problems += [f"input without a label: {html}" for html in page.evaluate(UNLABELLED)]
    problems += [f"touch target under 44×44: {p}" for p in page.evaluate(TOUCH_TARGETS)]
    problems += [f"text too small: {p}" for p in page.evaluate(SMALL_TEXT, MIN_FONT_PX)]
    body = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    if body < MIN_BODY_FONT_PX:
        problems.append(f"body text is {body}px")
    return problems


def focus_problems(page: Page) -> list[str]:
    """Tab through the whole page: every stop shows a visible focus ring."""
    problems = []
    page.evaluate("document.activeElement && document.activeElement.blur()")
    first = None
    for _stop in range(120):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_STYLE)
        if focused["body"] or focused["what"] == first:
            break
        first = first or focused["what"]
        if not (focused["outline"] or focused["shadow"]):
            problems.append(f"no visible focus on {focused['what']}")
        # The skip link is hidden until focused; once shown it is a target like any other.
        small = focused["width"] < MIN_TARGET - 0.5 or focused["height"] < MIN_TARGET - 0.5
        if focused["what"].startswith('<a class="skip"') and small:
            problems.append(f"skip link is {focused['width']}×{focused['height']} when shown")
    return problems


@pytest.mark.parametrize("name", list(PAGES))
def test_the_page_is_accessible_in_light_and_dark_fits_the_screen_and_is_easy_to_use(
    tab, width, name
):
    page = tab.page
    PAGES[name](tab)
    problems = [f"axe-core: {line}" for line in axe_violations(page)]
    problems += layout_problems(page, width)
    problems += focus_problems(page)
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    screenshot(page, name, width)

    page.emulate_media(color_scheme="dark")
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    problems += [f"axe-core, dark: {line}" for line in axe_violations(page, ["color-contrast"])]
    screenshot(page, f"{name}-dark", width)
    assert not problems, f"{name} at {width} px:\n" + "\n".join(problems)
    tab.assert_clean()


def test_dark_mode_turns_the_page_dark(open_tab):
    light, dark = open_tab(color_scheme="light"), open_tab(color_scheme="dark")
    luminance = (
        "() => { const [r, g, b] = getComputedStyle(document.body).backgroundColor"
        ".match(/\\d+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; }"
    )
    for tab in (light, dark):
        tab.goto("/")
    assert light.page.evaluate(luminance) > 0.8
    assert dark.page.evaluate(luminance) < 0.2
