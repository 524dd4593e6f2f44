"""The import refuses what the site would never have written, says why, and imports nothing:
shared or guessable link tokens, texts no database keeps, too many deals, impossible moments."""

from __future__ import annotations

import copy
import json
import time

import pytest
from django.core.management import CommandError, call_command

from scoring.backup.json_checks import ImportRefused
from scoring.backup.json_import import history_import, history_import_text
from scoring.events import services as event_services
from scoring.models import MAX_DEALS, Series, Table
from tests.helpers import counts, exported, make_event, start_series, wipe

pytestmark = pytest.mark.django_db

NOTHING = (0, 0, 0, 0, 0, 0, 0)


@pytest.fixture
def document(history) -> dict:
    """The evening's backup with its links, the database emptied to take it back."""
    data = json.loads(exported())
    wipe()
    return data


def refused(document: dict, match: str) -> str:
    with pytest.raises(ImportRefused, match=match) as refusal:
        history_import(document)
    assert counts() == NOTHING
    return str(refusal.value)


def linked(document: dict) -> list[dict]:
    """The series whose line holds their table's links (the game each table plays now)."""
    return [item for item in document["series"] if "score_token" in item]


def league_series(document: dict) -> dict:
    return next(item for item in document["series"] if item["league"] is not None)


def test_the_untouched_document_imports(document):
    assert history_import(copy.deepcopy(document)).series == 3


def test_a_watch_link_equal_to_its_score_link_is_refused(document):
    """The watch link would score."""
    series = linked(document)[0]
    series["watch_token"] = series["score_token"]
    message = refused(document, "watch_token is also the token of")
    assert f"series {series['id']}, score_token" in message


def test_a_token_of_one_series_given_to_another_is_refused(document):
    first, second = linked(document)[:2]
    second["watch_token"] = first["score_token"]
    refused(document, "one link would open the other")


def test_a_leagues_public_link_equal_to_its_invite_is_refused(document):
    """Whoever sees the public standings could join the league."""
    league = document["leagues"][0]
    league["invite_token"] = league["share_token"] = "s" * 32
    refused(document, "share_token is also the token of")


def test_a_token_the_database_holds_under_another_link_is_refused(document, league):
    """Another series' score link, in the file as a watch link, would score that series."""
    taken = Table.objects.create(score_token="T" * 32)
    linked(document)[0]["watch_token"] = taken.score_token
    with pytest.raises(ImportRefused, match="already holds a link of this file"):
        history_import(document)
    assert Table.objects.get() == taken and not Series.objects.exists()


@pytest.mark.parametrize(
    "token", ["a", "short-token", "x" * 21, "y" * 65, "has/slash" * 4, "pct%20" * 6, "ü" * 30, 7]
)
def test_a_token_that_could_be_guessed_or_is_no_url_is_refused(document, token):
    linked(document)[0]["score_token"] = token
    refused(document, "score_token is not a link's token")


def test_the_shortest_and_longest_tokens_the_site_could_have_are_taken(document):
    linked(document)[0]["score_token"] = "a" * 22
    linked(document)[0]["watch_token"] = "b" * 64
    assert history_import(document).series == 3


@pytest.mark.parametrize(
    ("where", "text"),
    [("player", "Ni\x00na"), ("league", "\x00"), ("player", "Lena\ud800"), ("league", "\udfff")],
)
def test_a_name_no_database_keeps_is_refused(document, where, text):
    document["players" if where == "player" else "leagues"][0]["name"] = text
    refused(document, "name holds a NUL character or half of a surrogate pair")


def test_a_username_with_nul_is_refused(document):
    document["users"].append("ma\x00lory")
    refused(document, "users must be a list of usernames")


def test_a_lone_surrogate_in_the_file_is_refused_by_the_command_not_a_traceback(document, tmp_path):
    document["players"][0]["name"] = "\ud800"
    path = tmp_path / "spoiled.json"
    path.write_text(json.dumps(document), encoding="utf-8")  # as \ud800: JSON may spell it
    with pytest.raises(CommandError, match="half of a surrogate pair"):
        call_command("import_history", str(path))
    with pytest.raises(ImportRefused, match="half of a surrogate pair"):
        history_import_text(path.read_text(encoding="utf-8"))
    assert counts() == NOTHING


def test_a_refusal_quoting_a_surrogate_from_the_file_can_be_printed(document, tmp_path):
    document["version"] = "\ud800"
    path = tmp_path / "spoiled.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(CommandError, match="This export has version") as refusal:
        call_command("import_history", str(path))
    str(refusal.value).encode("utf-8")  # no half of a pair left in it


def test_a_series_of_more_deals_than_the_table_allows_is_refused(document):
    series = league_series(document)
    deal = series["deals"][0]
    series["deals"] = [{**deal, "number": n} for n in range(1, MAX_DEALS + 2)]
    refused(document, f"it holds {MAX_DEALS + 1} deals; a series holds at most {MAX_DEALS}")


def test_a_series_of_100000_deals_is_refused_at_once(document):
    """It was imported: its score sheet then took 24.5 s to draw."""
    series = league_series(document)
    deal = series["deals"][0]
    series["deals"] = [{**deal, "number": n} for n in range(1, 100_001)]
    started = time.perf_counter()
    refused(document, "it holds 100000 deals")
    assert time.perf_counter() - started < 2


@pytest.mark.parametrize(
    "moment",
    [
        "0001-01-01T00:00:00+05:00",  # before year 1 in UTC
        "0001-01-01T00:00:00+00:00",
        "1899-12-31T23:59:59+00:00",
        "9999-12-31T23:00:00-05:00",  # after year 9999 in UTC
        "9999-06-01T00:00:00+00:00",
    ],
)
def test_a_moment_no_date_can_be_is_refused(document, moment):
    document["series"][0]["created_at"] = moment
    refused(document, "created_at must be a moment in the years 1900 to 9998")


def test_a_deals_moment_near_year_9999_is_refused_by_the_command(document, tmp_path):
    league_series(document)["deals"][0]["updated_at"] = "9999-12-31T23:59:59-12:00"
    path = tmp_path / "future.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(CommandError, match="updated_at must be a moment in the years"):
        call_command("import_history", str(path))
    assert counts() == NOTHING


def test_a_club_nights_share_token_is_checked_as_every_token(league):
    event_services.share_renew(event=make_event(league, 4, rounds=1))
    start_series(league=league)  # a kitchen table's game: its links are in the file
    data = json.loads(exported())
    wipe()
    data["events"][0]["share_token"] = linked(data)[0]["score_token"]
    refused(data, "share_token is also the token of")
