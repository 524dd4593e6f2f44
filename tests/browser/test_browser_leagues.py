"""League journeys in a real browser, at phone and desktop size: log in, standings, public link."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from scoring.leagues import services as league_services
from tests.browser.browsing import PHONE
from tests.browser.data import a_league
from tests.helpers import PASSWORD, make_user

pytestmark = pytest.mark.browser


def test_a_member_logs_in_reads_the_standings_and_shares_them_with_a_logged_out_phone(open_tab):
    owner = make_user("olga")
    league = a_league(owner)
    member = open_tab()
    page = member.page

    # Log in through the form, from the link in the header.
    member.goto("/")
    page.get_by_role("link", name="Log in").click()
    page.get_by_label("Username").fill("olga")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    # Leagues → the league → its standings.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Leagues").click()
    page.get_by_role("link", name=re.compile("Thursday club")).click()
    expect(page.get_by_role("heading", name="Thursday club", level=1)).to_be_visible()
    expect(page.locator(".series-list li")).to_have_count(league.series.count())
    page.get_by_role("navigation", name="League").get_by_role("link", name="Standings").click()
    players = page.get_by_role("table", name="Players")
    expect(players).to_be_visible()
    expect(page.locator(".standings .summary")).to_contain_text("4 finished series")
    names = players.locator("tbody th[scope=row]")
    expect(names).to_have_count(6)
    expect(
        page.get_by_role("table", name=re.compile("partnerships", re.IGNORECASE))
    ).to_be_visible()

    # Settings → share the standings → the public link.
    page.get_by_role("navigation", name="League").get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Share the standings").click()
    link = page.get_by_label("Public link")
    expect(link).to_have_value(re.compile(r"/public/[\w-]+/$"))
    public_url = link.input_value()
    league.refresh_from_db()
    assert public_url.endswith(f"/public/{league.share_token}/")

    # A phone that has never logged in opens the link: standings, no account needed.
    stranger = open_tab()
    stranger.page.goto(public_url)
    expect(stranger.page.get_by_role("heading", name="Thursday club", level=1)).to_be_visible()
    expect(stranger.page.get_by_role("table", name="Players").locator("tbody tr")).to_have_count(6)
    expect(stranger.page.get_by_role("button", name="Log out")).to_have_count(0)
    expect(stranger.page.get_by_role("link", name="Settings")).to_have_count(0)
    stranger.page.get_by_role("link", name="Series", exact=True).click()
    expect(stranger.page.locator(".series-list li")).to_have_count(league.series.count())
    # The public list shows series without links into the scoreboards.
    expect(stranger.page.locator(".series-list a")).to_have_count(0)

    # The member pages stay closed to that phone: it is sent to log in.
    stranger.goto(f"/leagues/{league.pk}/standings/")
    expect(stranger.page).to_have_url(re.compile(r"/accounts/login/\?next="))


def test_the_buttons_on_pages_opened_through_a_secret_link_work(open_tab):
    """An invite or a public link: its page's forms post (a no-referrer page posts Origin: null,
    which the CSRF check refuses)."""
    league = a_league(make_user("olga"), series=1)
    league = league_services.share_renew(league=league_services.invite_renew(league=league))
    newcomer = open_tab()
    newcomer.login(make_user("nina"))
    newcomer.goto(f"/invite/{league.invite_token}/")
    newcomer.page.get_by_role("button", name="Join").click()
    expect(newcomer.page.get_by_role("heading", name="Thursday club", level=1)).to_be_visible()
    assert league.memberships.filter(user__username="nina").exists()

    stranger = open_tab()
    stranger.goto(f"/public/{league.share_token}/")
    stranger.page.get_by_label("Language").select_option("ru")
    expect(stranger.page.get_by_label("Язык")).to_have_value("ru")


# The standings on a phone -------------------------------------------------------------------

#: What a player looks for first: each must be on the first screen, without scrolling.
FIRST_SCREEN = ("place", "name", "won", "goats", "rating")


def first_screen_problems(page: Page) -> list[str]:
    """The parts of the standings' head and first row that lie outside the window as opened."""
    return page.evaluate(
        """(wanted) => {
      const table = document.querySelector("table.players");
      const heads = [...table.querySelectorAll("thead th")];
      const cells = [...table.querySelector("tbody tr").children];
      const parts = {
        place: [cells[0].querySelector(".place")],
        name: [heads[0], cells[0]],
        won: [heads[1], cells[1]],
        goats: [heads[2], cells[2]],
        rating: [heads[3], cells[3]],
      };
      const problems = [];
      for (const name of wanted) {
        for (const el of parts[name]) {
          const box = el.getBoundingClientRect();
          if (box.left < 0 || box.right > innerWidth || box.top < 0 || box.bottom > innerHeight) {
            problems.push(`${name}: ${Math.round(box.left)}–${Math.round(box.right)} px across, `
              + `${Math.round(box.top)}–${Math.round(box.bottom)} px down`);
          }
        }
      }
      return problems;
    }""",
        list(FIRST_SCREEN),
    )


def legend_problems(page: Page) -> list[str]:
    """Column heads of the standings' tables that the legend under them does not spell out in
    visible text, and explanations left to a hover (title, abbr) or a picture."""
    return page.evaluate(
        """() => {
      const legend = new Map();
      for (const item of document.querySelectorAll(".standings .legend div")) {
        const term = item.querySelector("dt"), meaning = item.querySelector("dd");
        if (term.checkVisibility() && meaning.checkVisibility() && meaning.innerText.trim()) {
          legend.set(term.innerText.trim(), meaning.innerText.trim());
        }
      }
      const problems = [];
      for (const head of document.querySelectorAll(".standings-table thead th:not(.name)")) {
        const label = head.innerText.replace(/[▲▼]/g, "").trim();
        if (!legend.has(label)) problems.push(`"${label}" is not in the legend`);
      }
      const hover = ".standings-table [title], .standings-table abbr, .standings-table img";
      for (const hidden of document.querySelectorAll(hover)) {
        problems.push(`explained only on hover or by a picture: ${hidden.outerHTML}`);
      }
      return problems;
    }"""
    )


def test_the_standings_show_place_name_won_goats_and_rating_first_and_explain_every_head(
    open_tab, width
):
    owner = make_user("olga")
    league = a_league(owner)
    tab = open_tab()
    tab.login(owner)
    tab.goto(f"/leagues/{league.pk}/standings/")
    expect(tab.page.get_by_role("table", name="Players")).to_be_visible()
    assert first_screen_problems(tab.page) == []
    assert legend_problems(tab.page) == []
    legend = tab.page.locator(".legend")
    expect(legend).to_be_visible()
    expect(legend.locator("div", has_text="Avg")).to_contain_text("Average defeat points")
    expect(legend.locator("div", has_text="Goats")).to_contain_text("Times the goat")
    # Sorted by another column, the same columns stay where they are.
    tab.page.get_by_role("link", name="Played").click()
    expect(tab.page.locator("th[aria-sort] #sort-played")).to_be_visible()
    assert first_screen_problems(tab.page) == []
    tab.assert_clean()


@pytest.mark.parametrize("width", [PHONE])  # the narrow one
@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_in_every_language_a_phone_shows_the_first_columns_and_their_legend(
    open_tab, width, language
):
    league = a_league(make_user("olga"))
    tab = open_tab(locale=language)
    tab.goto(f"/public/{league_services.share_renew(league=league).share_token}/")
    expect(tab.page.locator("html")).to_have_attribute("lang", language)
    assert first_screen_problems(tab.page) == []
    assert legend_problems(tab.page) == []
    tab.assert_clean()
