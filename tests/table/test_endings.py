"""Every way a game ends, read by every reader: the board's words, the evening's leaderboard, the
league's standings and ratings, the history list, the exports and the phone's offline data all
tell the same result (``scoring.table.life``; RULES.md, "A game that ends before the goat")."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from scoring.backup.csv_export import history_csv
from scoring.backup.json_export import export_json
from scoring.events import leaderboard
from scoring.events import services as event_services
from scoring.history.records import player_record
from scoring.history.rows import ROW_FIELDS, series_rows
from scoring.models import EventTable, Player, RunningTotal, Series
from scoring.standings.selectors import StandingsFilter, league_standings
from scoring.table import board, life
from scoring.table.offline import board_data
from tests.helpers import html, logged_in, make_event, play_out, record

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Ending:
    """A way to end table 1's game of a fresh club night, and what every reader must say."""

    name: str
    length: str
    length_value: int | None
    ending: str  # Series.ending
    winner: int | None  # the side that won; None: a tie
    words: str  # what the board says of it
    stop: str  # what the phone's offline data says stops a next deal
    played: bool = True  # a deal was played: its result counts (``models.counted``)


ENDINGS = [
    Ending("goat", "goat", None, "goat", 1, "the goat!", "over"),
    Ending("its deals", "deals", 2, "deals", 1, "Its 2 deals were played.", "limit"),
    Ending("its time", "minutes", 30, "time", 1, "Its time was up.", "closed"),
    Ending("cut short", "goat", None, "cut", 1, "Cut short: the organiser finished", "closed"),
    Ending("cut short level", "goat", None, "cut", None, "Level: nobody wins it.", "closed"),
    # A table the organiser's finish found without a deal: over, never played, counted nowhere.
    Ending("cut short empty", "goat", None, "cut", None, "Level: nobody wins it.", "closed", False),
]


def _end(way: Ending, series: Series, event) -> Series:
    """Play table 1's game to ``way``: side 0 takes the defeat points (but on a tie)."""
    if way.name == "goat":
        return play_out(series, loser=0)
    if way.name == "its deals":
        record(series, (30, 90))
        return record(series, (50, 70))
    if way.name == "its time":
        record(series, (30, 90))
        Series.objects.filter(pk=series.pk).update(closes_at=timezone.now() - timedelta(minutes=1))
        return record(series, (50, 70))  # the deal in play when the time ran out: the last
    if way.name == "cut short":
        record(series, (30, 90))
    elif way.name == "cut short empty":
        pass
    else:
        record(series, (30, 90))
        record(series, (90, 30))  # 2 : 2
    event_services.round_finish(event=event)
    series.refresh_from_db()
    return series


@pytest.fixture(params=ENDINGS, ids=[way.name for way in ENDINGS])
def ended(request, league):
    way: Ending = request.param
    event = make_event(league, 8, length=way.length, length_value=way.length_value)
    table = EventTable.objects.select_related("series").get(round__event=event, number=1)
    series = _end(way, table.series, event)
    return way, event, series


def _side_players(series: Series, side: int) -> set[str]:
    return {seat.player.name for seat in series.seats.filter(side=side).select_related("player")}


def test_the_series_stores_how_it_ended_and_its_result(ended):
    way, _event, series = ended
    assert (series.finished, series.ending, series.winner_side) == (True, way.ending, way.winner)
    assert series.finished_at is not None
    winners = set(series.seats.filter(is_winner=True).values_list("side", flat=True))
    assert winners == ({way.winner} if way.winner is not None else set())
    # Nobody is the goat of a closed game where no side reached the target.
    assert bool(series.goat_sides) is (way.ending == "goat")


def test_the_board_says_how_it_ended(ended, owner):
    way, _event, series = ended
    page = html(logged_in(owner).get(series.get_absolute_url()))
    assert way.words in page
    if way.ending != "cut":
        assert "Cut short" not in page  # only a game the organiser cut short says so
    if way.ending not in ("goat",) and way.winner is not None:
        name = " &amp; ".join(sorted(_side_players(series, way.winner)))
        assert "Won by" in page and "the fewest defeat points" in page
        assert any(part in page for part in name.split(" &amp; "))


# What the big screen and the organiser's screen say of table 1 (``_table_state.html``).
TABLE_WORDS = {
    "goat": "Over: a side is the goat",
    "its deals": "Played to its limit: won on standing defeat points",
    "its time": "Played to its limit: won on standing defeat points",
    "cut short": "Cut short: won on standing defeat points",
    "cut short level": "Cut short: level, nobody wins it",
    "cut short empty": "Cut short: level, nobody wins it",
}


def test_the_big_screen_says_how_each_table_ended(ended, client):
    way, event, _series = ended
    page = html(client.get(f"/public/events/{event.share_token}/?present=1"))
    assert TABLE_WORDS[way.name] in page
    if way.winner is None:  # the other tables, cut short with no deal, are level too
        assert "won on standing" not in page


def test_the_leaderboard_counts_its_winners(ended):
    way, event, series = ended
    lines = {line.name: line for line in leaderboard.build(event).lines}
    winners = _side_players(series, way.winner) if way.winner is not None else set()
    for name in _side_players(series, 0) | _side_players(series, 1):
        assert lines[name].won == (1 if name in winners else 0), name
        assert lines[name].played == (1 if way.played else 0), name


def test_the_leagues_standings_and_ratings_count_it_as_the_leaderboard_does(ended, league):
    """Every player of the evening, at table 1 and at the tables the round's end found as they
    were (in the ways cut short, tables without a deal: counted by neither)."""
    way, event, series = ended
    standings = league_standings(league, StandingsFilter(), everyone=True)
    rows = {row.name: row for row in standings.players}
    board = leaderboard.build(event)
    board_lines = {line.name: line for line in board.lines}
    counted = sum(1 for table in board.rounds[0].tables if table.finished and table.deal_count)
    assert standings.series == counted
    for name, line in board_lines.items():
        row = rows.get(name)
        assert (row.played if row else 0) == line.played, name
        assert (row.won if row else 0) == line.won, name
        assert (row.goats if row else 0) == line.goats, name
    assert all(name in rows for name in _side_players(series, 0)) is way.played
    rated = RunningTotal.objects.filter(series=series)
    assert rated.count() == (4 if way.played else 0)
    assert all(total.mu is not None for total in rated)
    # The history's player record says the same.
    for name in _side_players(series, 0):
        player = Player.objects.get(league=league, name=name)
        record = player_record(player, None)
        assert (record.series_played, record.series_finished) == ((1, 1) if way.played else (0, 0))
        assert record.series_won == board_lines[name].won


def test_the_history_list_says_its_result(ended):
    way, _event, series = ended
    (row,) = series_rows(Series.objects.filter(pk=series.pk).values_list(*ROW_FIELDS))
    result = row.result
    if way.ending == "goat":
        assert "the goat" in result
    elif not way.played:
        assert result == "Closed before its first deal: not played"
    elif way.winner is None:
        assert result == "Level: nobody won"
    else:
        assert result.endswith("won: fewer defeat points")


def test_the_exports_keep_how_it_ended(ended):
    way, _event, series = ended
    rows = list(csv.reader(io.StringIO("".join(history_csv(Series.objects.filter(pk=series.pk))))))
    header, row = rows[0], rows[1]
    data = dict(zip(header, row, strict=False))
    assert data["Finished"] == "yes"
    assert data["How it ended"] == str(life.Ending(way.ending).label)
    assert bool(data["Winner"]) is (way.winner is not None)
    document = json.loads("".join(export_json(Series.objects.filter(pk=series.pk), secrets=False)))
    (stored,) = document["series"]
    assert stored["derived"]["ending"] == way.ending
    assert stored["derived"]["winner_side"] == way.winner
    assert (stored["closed_at"] is None) is (way.ending == "goat")


def test_the_phones_offline_data_says_why_it_takes_no_deal(ended):
    way, _event, series = ended
    data = board_data(board.load(series), proposals=[], club_night=True)
    assert data["stop"] == way.stop


def test_no_rematch_of_it_through_any_url_by_anyone(ended, owner):
    """A club night's game has no rematch (issue #36: a table link minted league games through
    the rematch URL): neither the table's phone nor the organiser starts one, however it ended."""
    way, event, series = ended
    link = event.tables.get(number=1)
    phone = Client()
    phone.post(link.get_absolute_url())
    before = Series.objects.count()
    for who in (phone, logged_in(owner)):
        answer = who.post(f"/series/{series.pk}/rematch/", headers={"HX-Request": "true"})
        assert answer.status_code == 409, way.name
        assert "A club night&#x27;s game has no rematch" in answer.content.decode()
    assert Series.objects.count() == before
    assert not series.rematches.exists()
