"""History journeys in a real browser, at phone and desktop size: past series, sheet, player."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from scoring.table import services
from tests.browser.data import finished, played
from tests.helpers import start_series

pytestmark = pytest.mark.browser


def test_history_leads_to_a_score_sheet_with_its_chart_and_to_a_players_record(tab):
    page = tab.page
    old = finished(played(start_series()))
    live = played(services.series_rematch(series=old))  # the same players, a new series
    for series in (old, live):
        tab.open_link(series.table.score_token)

    tab.goto("/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History", level=1)).to_be_visible()
    rows = page.locator(".hist-rows > li")
    expect(rows).to_have_count(2)

    # The finished series: its score sheet with the chart, every deal and the audit trail.
    rows.filter(has=page.locator(".hist-result.is-goat")).get_by_role("link").click()
    expect(page.get_by_role("heading", name="Score sheet", level=1)).to_be_visible()
    chart = page.locator("figure svg[role=img]")
    expect(chart).to_be_visible()
    expect(chart).to_have_accessible_name(re.compile(r"\S"))
    box = chart.bounding_box()
    assert box is not None and box["width"] <= tab.width, "the chart fits the screen"
    expect(page.locator("table.sheet-deals tbody tr")).to_have_count(old.deal_count)
    expect(page.locator("table.sheet-deals tfoot")).to_contain_text("12")
    expect(page.locator(".audit-list > li")).to_have_count(old.deal_count)

    # A player's record, from the sheet.
    page.get_by_role("link", name="Anna", exact=True).click()
    expect(page.get_by_role("heading", name="Anna", level=1)).to_be_visible()
    played_stat = page.locator("#series-stats + .stats > div").filter(has_text="Played")
    expect(played_stat.locator("dd").first).to_have_text("2")
    expect(played_stat.locator(".stat-note")).to_have_text("1 still in progress")
    expect(page.locator(".hist-rows > li")).to_have_count(2)

    # The game still going opens straight at its scoreboard.
    page.locator(".hist-row.is-live").click()
    expect(page.locator("form.deal-form")).to_be_visible()
    assert page.url.endswith(f"/series/{live.pk}/")
