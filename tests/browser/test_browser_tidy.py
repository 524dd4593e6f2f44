"""Keeping a league tidy in a real browser: a player renamed, a typo merged (previewed, then
undone), the league archived and restored, then deleted, and an account's data downloaded, then
the account deleted (others looking on in browsers of their own)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.models import League, Membership, Player, Role, Series
from tests.browser.data import a_league
from tests.helpers import PASSWORD, make_user, play_out, run_tasks, start_series

pytestmark = pytest.mark.browser

ANYA = re.compile(r"\bAnya$")  # her row of the standings: its rank, then her name


def test_an_owner_merges_a_typo_previewed_then_undoes_it(open_tab):
    """Refused for two players of one table, with the reason; a member's standings, in another
    browser, count the typo's series as Anna's after the merge and apart again after the undo."""
    owner, viewer = make_user("olga"), make_user("vika")
    league = a_league(owner, series=1)
    Membership.objects.create(league=league, user=viewer, role=Role.VIEWER)
    anna = Player.objects.filter(league=league).order_by("pk").first()
    play_out(start_series(names=("Anya", "Zhenya"), league=league, mode="duel"))
    tab, member = open_tab(), open_tab()
    tab.login(owner)
    member.login(viewer)
    page = tab.page
    member.goto(f"/leagues/{league.pk}/standings/")
    expect(member.page.get_by_role("rowheader", name=ANYA).first).to_be_visible()

    tab.goto(f"/leagues/{league.pk}/players/")
    page.locator(".player summary", has_text="Anya").click()  # the row opens its changes
    page.get_by_role("link", name=re.compile("Rename or merge Anya")).click()
    page.get_by_label("Merge into", exact=True).select_option(label="Zhenya")
    with tab.expecting(422):
        page.get_by_role("button", name="See what changes").click()
        expect(page.get_by_text("sat at the same table in 1 series")).to_be_visible()
    expect(page.get_by_role("button", name="Merge Anya into Zhenya")).to_have_count(0)
    tab.goto(f"/leagues/{league.pk}/players/")
    page.locator(".player summary", has_text="Anya").click()
    page.get_by_role("link", name=re.compile("Rename or merge Anya")).click()
    page.get_by_label("Merge into", exact=True).select_option(label=anna.name)
    page.get_by_role("button", name="See what changes").click()
    expect(page.locator(".merge-preview")).to_have_text(f"Anya's 1 series becomes {anna.name}'s.")
    page.get_by_role("button", name=f"Merge Anya into {anna.name}").click()
    expect(page.get_by_text(f"Anya is now {anna.name}.")).to_be_visible()
    expect(page.locator(".player-name", has_text="Anya")).to_have_count(0)
    member.page.reload()
    expect(member.page.get_by_role("rowheader", name=ANYA)).to_have_count(0)

    page.get_by_role("navigation", name="League").get_by_role("link", name="Changes").click()
    expect(page.locator(".change").first).to_contain_text(f"Anya merged into {anna.name}")
    page.get_by_role("button", name="Undo this merge").click()
    expect(page.get_by_text("Anya is back as a player of their own.")).to_be_visible()
    assert Player.objects.filter(league=league, name="Anya").exists()
    member.page.reload()
    expect(member.page.get_by_role("rowheader", name=ANYA).first).to_be_visible()
    tab.assert_clean()
    member.assert_clean()


def test_an_owner_archives_the_league_and_takes_it_back(open_tab):
    owner = make_user("olga")
    league = a_league(owner, series=1)
    tab = open_tab()
    tab.login(owner)
    page = tab.page
    tab.goto(f"/leagues/{league.pk}/settings/")
    page.get_by_role("button", name="Archive the league").click()
    expect(page.locator(".archived-notice")).to_be_visible()
    expect(page.get_by_role("link", name="New series")).to_have_count(0)
    tab.goto("/leagues/")
    expect(page.get_by_text("1 archived league")).to_be_visible()
    tab.goto(f"/leagues/{league.pk}/settings/")
    expect(page.get_by_role("button", name="Save")).to_have_count(0)
    page.get_by_role("button", name="Take it out of the archive").click()
    expect(page.get_by_role("link", name="New series")).to_be_visible()


def test_an_account_downloads_its_data(open_tab, exports_storage):
    owner = make_user("olga")
    a_league(owner, series=1)
    tab = open_tab(accept_downloads=True)
    tab.login(owner)
    tab.goto("/accounts/")
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Download my data (JSON)").click()
    run_tasks()  # the worker beside the server makes the file; its page finds out by itself
    link = tab.page.get_by_role("link", name=re.compile(r"^Download \("))
    with tab.page.expect_download() as download:
        link.click()
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["account"]["username"] == "olga"
    assert [league["name"] for league in data["leagues_owned"]] == ["Thursday club"]


def test_the_admin_runs_under_the_sites_content_security_policy(open_tab):
    """Django's admin needs no exemption from the strict policy: no violation on its pages."""
    from django.contrib.auth import get_user_model

    from scoring.models import Deal

    operator = get_user_model().objects.create_superuser("root", "root@example.org", "x" * 20)
    league = a_league(make_user("olga"), series=1)
    deal = Deal.objects.filter(series__league=league).first()
    tab = open_tab()
    tab.login(operator)
    for path in (
        "/admin/",
        "/admin/scoring/series/",
        f"/admin/scoring/deal/{deal.pk}/change/",
        "/admin/auth/user/",
        f"/admin/scoring/league/{league.pk}/transfer/",
    ):
        tab.goto(path)
        expect(tab.page.locator("#content")).to_be_visible()
    tab.goto("/admin/auth/user/")
    expect(tab.page.get_by_text("Deactivate the chosen accounts")).to_have_count(1)


def test_a_rename_shows_at_once_to_a_member_in_another_browser(open_tab):
    owner, viewer = make_user("olga"), make_user("vika")
    league = a_league(owner, series=1)
    Membership.objects.create(league=league, user=viewer, role=Role.VIEWER)
    boris = Player.objects.get(league=league, name="Boris")
    tab, member = open_tab(), open_tab()
    tab.login(owner)
    member.login(viewer)
    tab.goto(f"/leagues/{league.pk}/players/{boris.pk}/")
    tab.page.get_by_label("New name").fill("Borya")
    tab.page.get_by_role("button", name="Rename", exact=True).click()
    expect(tab.page.locator(".player-name", has_text="Borya")).to_have_count(1)
    member.goto(f"/leagues/{league.pk}/standings/")
    expect(member.page.get_by_text("Borya").first).to_be_visible()
    expect(member.page.get_by_text("Boris")).to_have_count(0)
    member.goto(f"/leagues/{league.pk}/changes/")
    expect(member.page.locator(".change").first).to_contain_text("Borya")
    tab.assert_clean()
    member.assert_clean()


def test_an_owner_deletes_the_league_keeping_its_series_as_quick_games(open_tab):
    """The typed name is checked; the series stay with whoever started them (the owner here),
    and the scorer, in another browser, no longer reaches them through the league."""
    owner, scorer = make_user("olga"), make_user("sergei")
    league = a_league(owner, series=2)
    Membership.objects.create(league=league, user=scorer, role=Role.SCORER)
    mine = Series.objects.filter(league=league, finished=True).order_by("pk").first()
    Series.objects.filter(pk=mine.pk).update(created_by=owner)
    tab, other = open_tab(), open_tab()
    tab.login(owner)
    other.login(scorer)
    other.goto(f"/series/{mine.pk}/sheet/")

    tab.goto(f"/leagues/{league.pk}/settings/")
    tab.page.get_by_role("link", name="Delete the league…").click()
    tab.page.get_by_label("Keep them as quick games").check()
    tab.page.get_by_label("Type the league's name to confirm").fill("Thursday")
    with tab.expecting(422):
        tab.page.get_by_role("button", name="Delete the league for good").click()
        expect(tab.page.get_by_role("alert")).to_contain_text("exactly")
    assert League.objects.filter(pk=league.pk).exists()
    tab.page.get_by_label("Keep them as quick games").check()
    tab.page.get_by_label("Type the league's name to confirm").fill("Thursday club")
    tab.page.get_by_role("button", name="Delete the league for good").click()
    expect(tab.page.get_by_text("Thursday club is deleted; 3 of its series are quick games now."))
    expect(tab.page.get_by_text("Thursday club", exact=True)).to_have_count(0)
    assert not League.objects.filter(pk=league.pk).exists()

    tab.goto(f"/series/{mine.pk}/sheet/")
    expect(tab.page.get_by_text("Anna").first).to_be_visible()
    with other.expecting(404):
        response = other.page.goto(other.url(f"/series/{mine.pk}/sheet/"))
    assert response is not None and response.status == 404
    tab.assert_clean()
    other.assert_clean()


def test_an_account_is_deleted_and_its_player_stays_on_the_sheets_by_name(open_tab):
    """The sole owner is told to hand the league over first; a scorer deletes their account, and
    the owner, in another browser, still sees their games under the typed name, unlinked."""
    owner, scorer = make_user("olga"), make_user("sergei")
    league = a_league(owner, series=1)
    Membership.objects.create(league=league, user=scorer, role=Role.SCORER)
    played = play_out(start_series(names=("Serezha", "Vera"), league=league, mode="duel"))
    serezha = Player.objects.get(league=league, name="Serezha")
    Player.objects.filter(pk=serezha.pk).update(user=scorer)
    tab, other = open_tab(), open_tab()
    tab.login(owner)
    other.login(scorer)

    tab.goto("/accounts/")
    tab.page.get_by_role("link", name="Delete my account…").click()
    expect(tab.page.get_by_text("You are the only owner of these leagues.")).to_be_visible()
    expect(tab.page.get_by_role("link", name="Thursday club")).to_be_visible()
    expect(tab.page.get_by_role("button", name="Delete my account for good")).to_have_count(0)

    tab.goto(f"/leagues/{league.pk}/players/")
    expect(tab.page.get_by_label("Account of Serezha")).to_have_value(str(scorer.pk))

    other.goto("/accounts/")
    other.page.get_by_role("link", name="Delete my account…").click()
    other.page.get_by_label("Password").fill("wrong")
    with other.expecting(422):
        other.page.get_by_role("button", name="Delete my account for good").click()
        expect(other.page.locator("#id_password-error")).to_be_visible()
    other.page.get_by_label("Password").fill(PASSWORD)
    other.page.get_by_role("button", name="Delete my account for good").click()
    expect(other.page.get_by_text("Your account is deleted. Goodbye!")).to_be_visible()

    tab.goto(f"/leagues/{league.pk}/players/")
    expect(tab.page.get_by_label("Account of Serezha")).to_have_value("")
    expect(tab.page.locator("option", has_text="sergei")).to_have_count(0)
    tab.goto(f"/series/{played.pk}/sheet/")
    expect(tab.page.get_by_text("Serezha").first).to_be_visible()
    expect(tab.page.get_by_text("sergei")).to_have_count(0)
    tab.goto(f"/leagues/{league.pk}/members/")
    expect(tab.page.get_by_text("sergei")).to_have_count(0)
    tab.assert_clean()
    other.assert_clean()


def test_the_players_page_is_a_row_per_player_whose_tap_opens_its_changes(open_tab):
    """Fourteen players fit a phone's screen or two: a row each, one control; a tap on a row
    opens linking an account, renaming and merging, and nothing of the other rows."""
    owner, scorer = make_user("olga"), make_user("sergei")
    league = a_league(owner, series=1)
    Membership.objects.create(league=league, user=scorer, role=Role.SCORER)
    for name in (
        "Zhenya",
        "Ilya",
        "Kira",
        "Lev",
        "Mila",
        "Nikita",
        "Oksana",
        "Pasha",
        "Raya",
        "Sava",
    ):
        Player.objects.create(league=league, name=name)
    assert Player.objects.filter(league=league).count() == 14
    tab = open_tab()
    tab.login(owner)
    page = tab.page
    tab.goto(f"/leagues/{league.pk}/players/")
    rows = page.locator(".player")
    expect(rows).to_have_count(14)
    heights = rows.evaluate_all("rows => rows.map(row => row.getBoundingClientRect().height)")
    assert max(heights) <= 60, heights  # one line, a thumb's height
    assert page.evaluate("document.documentElement.scrollWidth") <= tab.width
    expect(page.locator(".player-actions").first).to_be_hidden()

    page.locator(".player summary", has_text="Vera").click()
    expect(page.get_by_label("Account of Vera")).to_be_visible()
    expect(page.get_by_label("Account of Anna")).to_be_hidden()  # the other rows stay shut
    page.get_by_label("Account of Vera").select_option(label="sergei")
    page.locator(".player", has_text="Vera").get_by_role("button", name="Link").click()
    expect(page.get_by_text("Player updated.")).to_be_visible()
    expect(page.locator(".player", has_text="Vera").locator(".linked")).to_have_text("sergei")
    assert Player.objects.get(league=league, name="Vera").user == scorer

    page.locator(".player summary", has_text="Kira").click()
    page.get_by_role("link", name="Rename or merge Kira").click()
    expect(page.get_by_role("heading", name="Kira", level=2)).to_be_visible()
    tab.assert_clean()
