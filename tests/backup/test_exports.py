"""Exports and imports: CSV for spreadsheets, JSON that an import restores exactly."""

from __future__ import annotations

import copy
import csv
import io
import json
import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.backup.csv_export import csv_lines, history_csv, series_csv
from scoring.backup.json_import import ImportRefused, history_import, history_import_text
from scoring.models import DealEvent, League, Membership, Player, Seat, Series
from tests.backup.conftest import as_version
from tests.helpers import counts, export_downloaded, exported, play_deals, start_series, wipe

pytestmark = pytest.mark.django_db


def test_a_backup_imported_into_an_empty_database_exports_byte_for_byte_the_same(history):
    before = exported()
    kept = counts()
    wipe()
    assert counts() == (0, 0, 0, 0, 0, 0, 0)
    summary = history_import(json.loads(before))
    assert (summary.leagues, summary.series, summary.new_users) == (1, 3, 0)
    assert exported() == before
    assert counts() == kept


def test_an_import_restores_every_seats_deal_figures_from_the_deals(history):
    figures = ("series_id", "position", "deals_played", "deals_won", "deals_lost", "deals_naked",
               "deals_eggs", "narrow_saves")  # fmt: skip
    before = sorted(Seat.objects.values_list(*figures))
    assert any(row[5] for row in before) and any(row[7] for row in before)  # naked, narrow saves
    document = json.loads(exported())
    assert "deals_played" not in document["series"][0]["seats"][0]  # derived from the deals
    wipe()
    history_import(document)
    assert sorted(Seat.objects.values_list(*figures)) == before


def test_restored_links_still_open_their_series(history):
    series, _rematch, _three = history
    token = series.table.score_token
    document = exported()
    wipe()
    history_import_text(document)
    assert Series.objects.get(pk=series.pk).table.score_token == token


def test_the_document_holds_the_audit_trail_with_who_and_when(history):
    _series, rematch, _three = history
    data = json.loads(exported())
    events = next(item for item in data["series"] if item["id"] == rematch.pk)["events"]
    assert [event["action"] for event in events] == [
        "recorded", "recorded", "edited", "recorded", "removed",
    ]  # fmt: skip
    edit = events[2]
    assert edit["actor"] == "sergei" and edit["via"] == "account"
    assert edit["before"]["points"][:2] == [40, 80] and edit["after"]["points"][:2] == [45, 75]
    assert events[4]["actor"] is None and events[4]["via"] == "score link"
    assert "sergei" in data["users"]


def test_missing_accounts_come_back_without_a_usable_password(history, scorer):
    document = exported()
    wipe()
    Membership.objects.all().delete()
    scorer.delete()
    summary = history_import_text(document)
    assert summary.new_users == 1
    restored = get_user_model().objects.get(username="sergei")
    assert not restored.has_usable_password()
    assert DealEvent.objects.filter(actor=restored, action="edited").count() == 1
    assert exported() == document


def test_an_import_over_existing_series_is_refused_and_changes_nothing(history):
    document = exported()
    before = counts()
    with pytest.raises(ImportRefused, match="already holds"):
        history_import_text(document)
    assert counts() == before


def test_stored_totals_that_disagree_with_the_deals_are_refused(history):
    data = json.loads(exported())
    data["series"][0]["derived"]["totals"] = [0, 0]
    wipe()
    with pytest.raises(ImportRefused, match="do not match its deals"):
        history_import(data)
    assert counts() == (0, 0, 0, 0, 0, 0, 0)


def test_a_league_player_seated_in_a_quick_game_is_refused(history):
    data = json.loads(exported())
    quick = next(series for series in data["series"] if series["league"] is None)
    league = next(player for player in data["players"] if player["league"] is not None)
    quick["seats"][0]["player"] = league["id"]
    wipe()
    with pytest.raises(ImportRefused, match="belongs to another league"):
        history_import(data)
    assert counts() == (0, 0, 0, 0, 0, 0, 0)


def test_a_deal_the_rules_refuse_is_refused_naming_the_series_and_deal(history):
    data = json.loads(exported())
    first = data["series"][0]
    first["deals"][1]["points"] = [1, 119, None]
    wipe()
    with pytest.raises(ImportRefused) as refused:
        history_import(data)
    assert f"series {first['id']}, deal 2" in str(refused.value)
    assert "impossible" in str(refused.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not valid JSON"),
        ('{"format": "something-else"}', "not a Kozel scores export"),
        ('{"format": "kozel-scores", "version": 99}', "version 99"),
        ('{"format": "kozel-scores", "version": 1, "secrets": false, "users": [], '
         '"leagues": [], "players": [], "series": [{"id": "x"}]}', "whole number"),
        ('{"format": "kozel-scores", "version": 1, "secrets": false, "users": [], '
         '"leagues": [], "players": [], "series": [{"id": 3, "mode": "poker"}]}', "mode"),
        ("[1, 2]", "not a Kozel scores export"),
    ],
)  # fmt: skip
def test_a_malformed_document_is_refused_with_a_reason(db, text, message):
    with pytest.raises(ImportRefused, match=message):
        history_import_text(text)


def test_an_export_without_secrets_has_no_links_and_restores_with_new_ones(history):
    series, _rematch, _three = history
    document = exported(secrets=False)
    for token in (series.table.score_token, series.table.watch_token):
        assert token not in document
    assert '"members"' not in document
    wipe()
    history_import_text(document)
    restored = Series.objects.get(pk=series.pk)
    assert restored.table.score_token and restored.table.score_token != series.table.score_token
    assert exported(secrets=False) == document


def parse_csv(pieces) -> list[list[str]]:
    return list(csv.reader(io.StringIO("".join(pieces))))


def test_a_series_csv_has_a_row_per_deal_with_running_totals(history):
    series, _rematch, _three = history
    rows = parse_csv(series_csv(series, list(series.deals.order_by("number"))))
    header, *deals = rows
    assert header[:5] == ["Deal", "Recorded at", "Lena & Nina: card points",
                          "Lena & Nina: defeat points", "Lena & Nina: total"]  # fmt: skip
    assert len(deals) == series.deal_count == 7
    assert deals[0][-3] == "yes"  # the eggs deal
    assert [int(deals[-1][4]), int(deals[-1][7])] == series.totals


def test_spreadsheet_formulas_in_names_are_defused(db):
    series = start_series(mode="duel", names=("=HYPERLINK(1)", "@Boris"))
    rows = parse_csv(history_csv(Series.objects.filter(pk=series.pk)))
    assert rows[1][6] == "'=HYPERLINK(1)"
    assert rows[1][7] == "'@Boris"


#: Names that a spreadsheet splitting on ",", ";" or tab would read (in part) as a formula.
FORMULA_NAMES = (
    "y;+1+1",
    'a,=HYPERLINK("http://evil.example","x")',
    "x\t@SUM(1)",
    "-1+2",
    "=1",
    'q; "=2',
    "z\n=3",
    "w\r+4",
)
SEPARATORS = (",", ";", "\t")
NUMBER = re.compile(r"-?[0-9]+")


def formula_fields(text: str) -> list[str]:
    """Fields of ``text`` that some spreadsheet could run as a formula: read as CSV with each
    separator, and split at every separator and line break ignoring quotes altogether. A field
    that is a whole number (from a numeric column) is a number, not a formula."""
    fields = []
    for delimiter in SEPARATORS:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            fields += row
    fields += re.split(r"[,;\t\r\n]", text)
    return [
        field
        for field in fields
        if field.lstrip().lstrip('"').lstrip()[:1] in ("=", "+", "-", "@")
        and not NUMBER.fullmatch(field)
    ]


@pytest.mark.django_db(transaction=True)
def test_no_name_becomes_a_formula_whatever_separator_the_spreadsheet_uses(league, exports_storage):
    """Russian Excel splits CSV lines on ";": "y;+1+1" in a comma file is a formula there."""
    series = start_series(league=league, names=("Anna", "Boris", "Vera", "Gleb"))
    play_deals(series, [(70, 50), (30, 90)])
    for player, name in zip(Player.objects.order_by("pk"), FORMULA_NAMES, strict=False):
        Player.objects.filter(pk=player.pk).update(name=name)  # past the form's tidying
    League.objects.filter(pk=league.pk).update(name="@league;-5")
    series = Series.objects.get(pk=series.pk)
    owner = Client()
    owner.force_login(league.memberships.get(role="owner").user)
    for download in (
        owner.get(f"/series/{series.pk}/export.csv"),
        export_downloaded(owner, "/history/export.csv"),
    ):
        text = b"".join(download.streaming_content).decode("utf-8-sig")
        assert "y;'+1+1" in text  # the name is still there, defused
        assert formula_fields(text) == [], download["Content-Disposition"]


def test_numbers_stay_numbers_and_plain_names_stay_as_they_are():
    text = "".join(csv_lines([[-3, 12, "Lena-Marie", "Anna & Boris", "Boris, Vera"]]))
    assert next(csv.reader(io.StringIO(text))) == ["-3", "12", "Lena-Marie", "Anna & Boris",
                                                   "Boris, Vera"]  # fmt: skip


#: Separators, line breaks, blanks, quotes, formula characters, and a few ordinary characters.
CSV_ALPHABET = ",;\t\r\n\x0b\x0c\x1c\x85\xa0\u3000=+-@\"' a1Ж＝"


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.text(CSV_ALPHABET, max_size=12), min_size=1, max_size=4))
def test_no_text_cell_reads_as_a_formula_in_any_spreadsheet(texts):
    text = "".join(csv_lines([[*texts, -7, 3]]))
    assert formula_fields(text) == []
    assert next(csv.reader(io.StringIO(text, newline="")))[-2:] == ["-7", "3"]


def test_a_json_backup_keeps_formula_like_names_exactly(league):
    series = start_series(league=league, names=FORMULA_NAMES[:4])
    Player.objects.filter(name="x @SUM(1)").update(name="x\t@SUM(1)")
    names = sorted(Player.objects.values_list("name", flat=True))
    document = exported(Series.objects.filter(pk=series.pk))
    wipe()
    history_import_text(document)
    assert sorted(Player.objects.values_list("name", flat=True)) == names
    assert "x\t@SUM(1)" in names


def test_the_history_csv_has_a_row_per_series_newest_first(history):
    rows = parse_csv(history_csv(Series.objects.all()))
    assert len(rows) == 5
    assert rows[-1] == ["# end of export: 3 series"]
    rows = rows[:-1]
    newest_first = sorted(Series.objects.all(), key=lambda s: (s.created_at, s.pk), reverse=True)
    assert [int(row[0]) for row in rows[1:]] == [s.pk for s in newest_first]
    goat_line = next(row for row in rows[1:] if int(row[0]) == history[0].pk)
    goat_row = dict(zip(rows[0], goat_line, strict=True))
    assert goat_row["Goat"] == "Lena & Nina"
    assert goat_row["Winner"] == "Misha & Pavel"
    assert goat_row["Eggs"] == "1"
    assert goat_row["How it ended"] == "played to the goat"


def test_the_commands_export_and_import_a_backup(history, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_history", output=str(path))
    document = path.read_text(encoding="utf-8")
    wipe()
    call_command("import_history", str(path), stdout=io.StringIO())
    again = tmp_path / "again.json"
    call_command("export_history", output=str(again))
    assert again.read_text(encoding="utf-8") == document


def test_the_import_command_explains_a_refusal(history, tmp_path):
    path = tmp_path / "backup.json"
    call_command("export_history", output=str(path))
    with pytest.raises(CommandError, match="already holds"):
        call_command("import_history", str(path))
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("import_history", str(tmp_path / "missing.json"))


JUNK = (None, True, -1, 0, 10**30, 1.5, "", "x", [], {}, [None], {"a": 1}, "2025-01-01",
        "2025-01-01T00:00:00+00:00")  # fmt: skip


def leaf_paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaf_paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from leaf_paths(inner, (*prefix, index))


def test_any_corrupted_value_is_imported_or_refused_never_a_crash(history):
    document = json.loads(exported())
    wipe()
    paths = [path for path in leaf_paths(document) if path]
    rng = random.Random(2024)
    outcomes = {"refused": 0, "imported": 0}
    for _ in range(150):
        corrupt = copy.deepcopy(document)
        path = rng.choice(paths)
        parent = corrupt
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(JUNK)
        try:
            with transaction.atomic():
                history_import(corrupt)
                outcomes["imported"] += 1
                transaction.set_rollback(True)
        except ImportRefused:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 100  # most corruptions are caught; none raised anything else
    assert counts() == (0, 0, 0, 0, 0, 0, 0)


# Documents cut short: the closing mark, and documents of version 1 ----------------------------


def test_a_document_ends_with_its_series_count_and_the_closing_mark(history):
    document = exported()
    assert document.endswith('"series_count":3,\n"complete":true}\n')
    data = json.loads(document)
    assert (data["version"], data["complete"], data["series_count"]) == (4, True, 3)


def test_a_document_cut_short_at_any_line_is_refused_and_nothing_is_imported(history):
    document = exported()
    wipe()
    lines = document.splitlines(keepends=True)
    for end in range(1, len(lines)):
        with pytest.raises(ImportRefused, match=r"cut short|incomplete"):
            history_import_text("".join(lines[:end]))
    assert counts() == (0, 0, 0, 0, 0, 0, 0)


def test_a_version_2_document_closed_by_hand_without_its_mark_is_refused(history):
    data = as_version(json.loads(exported()), 2)
    del data["complete"]
    wipe()
    with pytest.raises(ImportRefused, match="incomplete"):
        history_import(data)
    data["complete"] = True
    data["series"] = data["series"][:-1]  # a series lost, the rest closed by hand
    with pytest.raises(ImportRefused, match="announces 3 series but holds 2"):
        history_import(data)
    assert counts() == (0, 0, 0, 0, 0, 0, 0)


def test_a_version_1_document_without_a_closing_mark_still_imports(history):
    before = exported()
    kept = counts()
    data = as_version(json.loads(before), 1)
    del data["complete"], data["series_count"]
    wipe()
    assert history_import(data).series == 3
    assert exported() == before
    assert counts() == kept


def test_the_history_csv_ends_with_its_series_count_after_every_page(history, monkeypatch):
    monkeypatch.setattr("scoring.backup.csv_export.BATCH", 2)  # two pages of series
    rows = parse_csv(history_csv(Series.objects.all()))
    assert [int(row[0]) for row in rows[1:-1]] == sorted(
        Series.objects.values_list("pk", flat=True), reverse=True
    )
    assert rows[-1] == ["# end of export: 3 series"]
