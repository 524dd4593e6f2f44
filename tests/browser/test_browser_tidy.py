"""Keeping a league tidy in a real browser: a typo merged (previewed, then undone), the league
archived and restored, and an account's data downloaded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.models import Player
from tests.browser.data import a_league
from tests.helpers import make_user, play_out, start_series

pytestmark = pytest.mark.browser


def test_an_owner_merges_a_typo_previewed_then_undoes_it(open_tab):
    owner = make_user("olga")
    league = a_league(owner, series=1)
    anna = Player.objects.filter(league=league).order_by("pk").first()
    play_out(start_series(names=("Anya", "Zhenya"), league=league, mode="duel"))
    tab = open_tab()
    tab.login(owner)
    page = tab.page

    tab.goto(f"/leagues/{league.pk}/players/")
    page.get_by_role("link", name=re.compile("Rename or merge Anya")).click()
    page.get_by_label("Merge into", exact=True).select_option(label=anna.name)
    page.get_by_role("button", name="See what changes").click()
    expect(page.locator(".merge-preview")).to_have_text(f"Anya's 1 series becomes {anna.name}'s.")
    page.get_by_role("button", name=f"Merge Anya into {anna.name}").click()
    expect(page.get_by_text(f"Anya is now {anna.name}.")).to_be_visible()
    expect(page.locator(".player-name", has_text="Anya")).to_have_count(0)

    page.get_by_role("navigation", name="League").get_by_role("link", name="Changes").click()
    expect(page.locator(".change").first).to_contain_text(f"Anya merged into {anna.name}")
    page.get_by_role("button", name="Undo this merge").click()
    expect(page.get_by_text("Anya is back as a player of their own.")).to_be_visible()
    assert Player.objects.filter(league=league, name="Anya").exists()


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


def test_an_account_downloads_its_data(open_tab):
    owner = make_user("olga")
    a_league(owner, series=1)
    tab = open_tab()
    tab.login(owner)
    tab.goto("/accounts/")
    with tab.page.expect_download() as download:
        tab.page.get_by_role("link", name="Download my data (JSON)").first.click()
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
