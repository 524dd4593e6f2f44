"""Backup and restore: a league export comes back exactly, and so does a dumpdata/loaddata copy."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from scoring.backup.json_export import export_json
from scoring.backup.json_import import history_import_text
from scoring.management.demo import demo_generate
from scoring.models import (
    Deal,
    DealEvent,
    League,
    Membership,
    Player,
    RunningTotal,
    Seat,
    Series,
    Table,
)
from scoring.standings.selectors import StandingsFilter, league_standings
from tests.helpers import export_downloaded, streamed

LEAGUE_MODELS = [League, Membership, Player, Series, Seat, Deal, DealEvent]


@pytest.fixture
def demo(db) -> League:
    """The demo league, small: a dozen players and forty series played through the engine."""
    summary = demo_generate(players=12, series=40, password=None)
    assert summary.deals > 200
    return summary.league


def everything(models=LEAGUE_MODELS) -> dict[str, list[tuple]]:
    """Every row of ``models``, every column, in id order."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values_list())
        for model in [*models, get_user_model()]
    }


def content() -> dict[str, list[tuple]]:
    """Every row, every column; without the ids an import gives anew (all but leagues, players
    and series keep theirs), and so in the order of their content."""
    rows = everything()
    # A restore seats each game at a table made anew (the same links, new ids).
    fields = [f.attname for f in Series._meta.concrete_fields if f.attname != "table_id"]
    rows[Series._meta.label] = list(Series.objects.order_by("pk").values_list(*fields))
    for model in (Membership, Seat, Deal, DealEvent):
        fields = [f.attname for f in model._meta.concrete_fields if not f.primary_key]
        rows[model._meta.label] = sorted(
            model.objects.values_list(*fields), key=lambda row: [repr(v) for v in row]
        )
    return rows


def remove(league: League) -> None:
    """The league gone with its tables, series and the rest, as deleting it on the site does."""
    Table.objects.filter(games__league=league).delete()
    Series.objects.filter(league=league).delete()
    League.objects.filter(pk=league.pk).delete()


def check_integrity() -> str:
    out = io.StringIO()
    call_command("check_integrity", stdout=out)
    return out.getvalue()


def test_a_league_exported_removed_and_imported_is_exactly_as_it_was(demo, tmp_path):
    before = content()
    backup = tmp_path / "league.json"
    call_command(
        "export_history", "--league", str(demo.pk), "--output", str(backup), stderr=io.StringIO()
    )

    remove(demo)
    assert not Series.objects.exists() and not Player.objects.exists()

    out = io.StringIO()
    call_command("import_history", str(backup), stdout=out)

    assert "Imported 1 leagues" in out.getvalue()
    assert content() == before
    assert "0 disagreed" in check_integrity()


def running_totals() -> list[tuple]:
    """The standings' running totals, every column but the row's own id."""
    fields = [f.attname for f in RunningTotal._meta.concrete_fields if not f.primary_key]
    return list(RunningTotal.objects.order_by("series_id", "player_id").values_list(*fields))


def test_an_imported_league_has_its_standings_without_a_fold_command(demo, tmp_path):
    before = running_totals()
    assert before  # the demo league was folded as it was written
    backup = tmp_path / "league.json"
    call_command(
        "export_history", "--league", str(demo.pk), "-o", str(backup), stderr=io.StringIO()
    )
    remove(demo)
    assert not RunningTotal.objects.exists()
    call_command("import_history", str(backup), stdout=io.StringIO())
    assert running_totals() == before
    shown = league_standings(League.objects.get(pk=demo.pk), StandingsFilter())
    assert shown.series == Series.objects.filter(league_id=demo.pk, finished=True).count()


def test_exporting_the_restored_league_gives_the_same_bytes(demo, tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    call_command("export_history", "--league", str(demo.pk), "-o", str(first), stderr=io.StringIO())
    remove(demo)
    call_command("import_history", str(first), stdout=io.StringIO())
    call_command(
        "export_history", "--league", str(demo.pk), "-o", str(second), stderr=io.StringIO()
    )
    assert first.read_bytes() == second.read_bytes()


def test_the_restored_league_keeps_its_links(demo, tmp_path, client):
    series = Series.objects.filter(league=demo).select_related("table").order_by("pk").first()
    backup = tmp_path / "league.json"
    call_command(
        "export_history", "--league", str(demo.pk), "-o", str(backup), stderr=io.StringIO()
    )
    remove(demo)
    call_command("import_history", str(backup), stdout=io.StringIO())
    restored = Series.objects.get(pk=series.pk)
    assert restored.table.score_token == series.table.score_token
    assert League.objects.get(pk=demo.pk).share_token == demo.share_token


@pytest.mark.slow  # seconds: run by make test, not make test-fast
@pytest.mark.django_db(transaction=True)
def test_dumpdata_and_loaddata_restore_the_demo_database(tmp_path):
    demo_generate(players=12, series=25, password=None)
    get_user_model().objects.update(date_joined=timezone.now())  # with its microseconds
    before = everything()
    # XML, not JSON: Django's JSON writes times to the millisecond, XML keeps the microseconds.
    dump = tmp_path / "dump.xml"
    call_command("dumpdata", "auth.user", "scoring", "--format", "xml", "--output", str(dump))

    call_command("flush", "--noinput")
    assert not Deal.objects.exists() and not get_user_model().objects.exists()

    call_command("loaddata", str(dump), stdout=io.StringIO())

    assert everything() == before
    assert "0 disagreed" in check_integrity()
    # New rows do not reuse a restored id.
    league = League.objects.create(name="After the restore")
    assert league.pk > max(pk for pk, *_ in before["scoring.League"])


@pytest.mark.django_db(transaction=True)
def test_a_json_dump_loses_the_microseconds_of_times(tmp_path):
    """Why the backup above is XML: the same round trip through JSON is not exact."""
    demo_generate(players=4, series=2, password=None)
    get_user_model().objects.update(date_joined=timezone.now().replace(microsecond=123456))
    dump = tmp_path / "dump.json"
    call_command("dumpdata", "auth.user", "scoring", "--output", str(dump))
    call_command("flush", "--noinput")
    call_command("loaddata", str(dump), stdout=io.StringIO())
    assert {user.date_joined.microsecond for user in get_user_model().objects.all()} == {123000}


@pytest.mark.django_db(transaction=True)
def test_the_demo_league_exported_over_http_parses_and_imports_back_identical(
    demo, exports_storage
):
    """Both downloads are made by the task worker and served whole (read here as a browser
    would), end with their closing mark, and the JSON restores the league: the same document
    again, the same standings."""
    owner = Membership.objects.filter(league=demo, role="owner").select_related("user").get().user
    client = Client()
    client.force_login(owner)
    query = f"?league={demo.pk}"
    response = export_downloaded(client, f"/history/export.json{query}")
    assert response.streaming
    document = b"".join(response.streaming_content).decode()
    data = json.loads(document)
    assert (data["complete"], data["series_count"]) == (True, Series.objects.count())
    series = Series.objects.filter(league=demo)
    assert document == "".join(export_json(series, secrets=False))
    table = league_standings(demo, StandingsFilter(), everyone=True)
    assert table.series > 0

    csv_download = export_downloaded(client, f"/history/export.csv{query}")
    rows = list(csv.reader(io.StringIO(streamed(csv_download))))
    assert [int(row[0]) for row in rows[1:-1]] == list(
        series.order_by("-created_at", "-pk").values_list("pk", flat=True)
    )
    assert rows[-1] == [f"# end of export: {series.count()} series"]

    remove(demo)
    history_import_text(document)
    restored = League.objects.get(pk=demo.pk)
    assert "".join(export_json(Series.objects.filter(league=restored), secrets=False)) == document
    assert league_standings(restored, StandingsFilter(), everyone=True) == table
    assert "0 disagreed" in check_integrity()
