"""Exports made off the request (scoring/backup/jobs.py): asked for, made by the task worker,
downloaded whole by whoever asked, one at a time, and gone after a while."""

from __future__ import annotations

import gzip
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from scoring.backup import jobs
from scoring.backup.json_export import COMPLETE, export_json
from scoring.models import Export, League, Series
from tests.helpers import (
    export_downloaded,
    finished_series,
    html,
    logged_in,
    make_event,
    run_tasks,
    streamed,
)

NAMES = ("Lena", "Misha", "Nina", "Pavel")


def league_backup(league: League) -> str:
    return f"/history/export.json?league={league.pk}"


@pytest.mark.django_db(transaction=True)
def test_a_league_backup_is_made_by_the_worker_and_downloaded_whole(league, owner, exports_storage):
    for _ in range(3):
        finished_series(league=league, names=NAMES)
    make_event(league, 8, rounds=1)
    client = logged_in(owner)
    assert "Make the file" in html(client.get(league_backup(league)))  # a GET only asks
    assert not Export.objects.exists()

    asked = client.post(league_backup(league))
    assert asked.status_code == 302
    waiting = client.get(asked["Location"], headers={"HX-Request": "true"})
    assert "Waiting for its turn" in html(waiting) and 'hx-trigger="every 2s"' in html(waiting)
    assert client.get(asked["Location"] + "download")["Location"] == asked["Location"]

    run_tasks()
    (kept,) = exports_storage.iterdir()
    assert kept.stat().st_mode & 0o777 == 0o600  # nobody else on the machine reads a backup
    assert exports_storage.stat().st_mode & 0o777 == 0o700
    done = html(client.get(asked["Location"], headers={"HX-Request": "true"}))
    assert "hx-trigger" not in done and f'href="{asked["Location"]}download"' in done
    download = client.get(asked["Location"] + "download")
    assert download["Content-Disposition"] == 'attachment; filename="kozel-history.json"'
    assert "no-store" in download["Cache-Control"]
    document = streamed(download)
    series = Series.objects.filter(league=league)
    assert document == "".join(export_json(series, secrets=False))
    assert document.rstrip().endswith(f'"{COMPLETE}":true}}')
    data = json.loads(document)
    assert len(data["series"]) == 3 + 2 and len(data["events"]) == 1  # and the night's two tables
    assert int(download["Content-Length"]) == len(document.encode())
    packed = client.get(asked["Location"] + "download", headers={"Accept-Encoding": "gzip"})
    body = b"".join(packed.streaming_content)
    assert packed["Content-Encoding"] == "gzip" and int(packed["Content-Length"]) == len(body)
    assert gzip.decompress(body).decode() == document  # sent as it is kept
    assert packed["Content-Disposition"] == download["Content-Disposition"]


@pytest.mark.django_db(transaction=True)
def test_a_league_is_written_whole_for_its_owners_only(league, scorer, exports_storage):
    finished_series(league=league, names=NAMES)
    make_event(league, 8, rounds=1)
    data = json.loads(streamed(export_downloaded(logged_in(scorer), league_backup(league))))
    assert len(data["series"]) == 1 + 2  # the series a member sees, as on the pages
    assert data["events"] == [] and data["changes"] == []


def test_a_second_export_while_one_is_being_made_is_refused_with_a_message(league, scorer):
    client = logged_in(scorer)
    first = client.post(league_backup(league))
    assert first.status_code == 302
    for url in (league_backup(league), "/history/export.csv", "/accounts/data/"):
        refused = client.post(url)
        assert refused.status_code == 429
        assert "still being made" in html(refused)
        assert f'href="{first["Location"]}"' in html(refused)
    assert Export.objects.count() == 1
    assert (
        logged_in(league.memberships.get(role="owner").user).post("/history/export.csv").status_code
        == 302
    )


def test_an_export_whose_worker_died_no_longer_holds_up_its_owner(league, scorer):
    client = logged_in(scorer)
    first = client.post(league_backup(league))
    Export.objects.update(created_at=timezone.now() - jobs.LOST - timedelta(seconds=1))
    assert "could not be made" in html(client.get(first["Location"]))
    assert client.post(league_backup(league)).status_code == 302


def test_visitors_from_one_address_have_only_a_few_exports_made_at_once(db):
    for _ in range(jobs.PER_ADDRESS):
        assert Client().post("/history/export.json").status_code == 302
    refused = Client().post("/history/export.json")
    assert refused.status_code == 429 and "from your network" in html(refused)
    assert Export.objects.count() == jobs.PER_ADDRESS


def test_only_whoever_asked_may_see_or_download_an_export(league, owner, scorer, viewer, outsider):
    asked = logged_in(scorer).post(league_backup(league))["Location"]
    for other in (owner, viewer, outsider, None):
        client = logged_in(other)
        assert client.get(asked).status_code == 404
        assert client.get(asked + "download").status_code == 404
    visitor = Client()
    mine = visitor.post("/history/export.json")["Location"]
    assert visitor.get(mine).status_code == 200
    assert Client().get(mine).status_code == 404
    assert logged_in(scorer).get(mine).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_visitors_export_holds_the_quick_games_of_its_links(
    quick_series, league, exports_storage
):
    finished_series(league=league, names=NAMES)
    visitor = Client()
    visitor.post(f"/tables/{quick_series.table.watch_token}/")
    data = json.loads(streamed(export_downloaded(visitor, "/history/export.json")))
    assert [item["id"] for item in data["series"]] == [quick_series.pk]


@pytest.mark.django_db(transaction=True)
def test_the_csv_is_made_in_the_language_it_was_asked_in(league, viewer, exports_storage):
    series = finished_series(league=league, names=NAMES)
    client = logged_in(viewer)
    client.cookies["django_language"] = "de"
    rows = streamed(export_downloaded(client, "/history/export.csv")).splitlines()
    assert rows[-1] == "# end of export: 1 series"
    assert rows[1].startswith(f"{series.pk},")
    english = streamed(export_downloaded(logged_in(viewer), "/history/export.csv"))
    assert rows[0] != english.splitlines()[0]  # the heads in German


@pytest.mark.django_db(transaction=True)
def test_a_finished_export_goes_with_its_file_after_a_while(league, owner, exports_storage):
    client = logged_in(owner)
    download = export_downloaded(client, league_backup(league))
    streamed(download)
    export = Export.objects.get()
    path = exports_storage / export.file
    assert path.exists()
    assert jobs.exports_prune.call() == 0  # kept for a while
    Export.objects.update(finished_at=timezone.now() - jobs.KEEP)
    assert jobs.exports_prune.call() == 1
    assert not path.exists() and not Export.objects.exists()
    assert client.get(f"/exports/{export.pk}/download").status_code == 404
