"""A league's backup in a real browser, at phone and desktop size: asked for on the league's
settings, its page shows it waiting and refreshes itself until the task worker has made it
(with JavaScript through htmx, without through its meta refresh), then the file downloads whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.backup.json_export import export_json
from scoring.models import Series
from tests.helpers import finished_series, run_tasks

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("javascript", [True, False], ids=["htmx", "without-javascript"])
def test_a_backup_shows_itself_being_made_then_downloads_whole(
    open_tab, league, owner, exports_storage, javascript
):
    finished_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))
    tab = open_tab(java_script_enabled=javascript, accept_downloads=True)
    tab.login(owner)
    tab.goto(f"/leagues/{league.pk}/settings/")
    with tab.page.expect_navigation():
        tab.page.get_by_role("button", name="Make a backup").click()
    expect(tab.page.get_by_text("Waiting for its turn.")).to_be_visible()
    page = tab.page.url

    run_tasks()  # the worker beside the server makes it; the page finds out by itself
    link = tab.page.get_by_role("link", name=re.compile(r"^Download \("))
    expect(link).to_be_visible()
    assert tab.page.url == page
    with tab.page.expect_download() as download:
        link.click()
    assert download.value.suggested_filename == "kozel-history.json"
    text = Path(download.value.path()).read_text()
    assert text == "".join(export_json(Series.objects.filter(league=league), secrets=False))
    tab.assert_clean()
