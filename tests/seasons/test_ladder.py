"""A season's standings under its ladder rules, its awards, and a club night against expected:
a season across three club nights with a late joiner."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from django.utils import timezone

from scoring.models import Season, Series
from scoring.seasons import awards, expected, ladder
from scoring.seasons.expected import GameSeat
from scoring.seasons.ladder import Night, counted_nights
from scoring.standings.ratings import Rating
from tests.helpers import finished
from tests.seasons.conftest import DAYS
from tests.seasons.nights import refold, table_sides


def night_of(day: int, won: int = 0, goats: int = 0, defeat: int = 0) -> Night:
    return Night(date(2025, 5, day), 1, won, goats, defeat, 0, 0)


def table_of(season: Season) -> ladder.SeasonTable:
    season.league.refresh_from_db()
    return ladder.season_table(season, results_version=season.league.results_version)


def test_the_best_nights_are_the_most_won_then_the_fewest_goats_then_defeat_points():
    nights = [
        night_of(1, won=1),
        night_of(2, won=2, goats=1),
        night_of(3, won=2),
        night_of(4, won=1, defeat=4),
        night_of(5, won=1, defeat=2),
    ]
    assert [n.day.day for n in counted_nights(nights, 3)] == [1, 2, 3]  # in their days' order
    assert [n.day.day for n in counted_nights(nights, 4)] == [1, 2, 3, 5]
    assert counted_nights(nights, None) == nights
    assert counted_nights(nights[:2], 3) == nights[:2]


def test_every_player_of_the_three_nights_is_ranked_or_listed_apart(season, nights):
    table = table_of(season)
    ranked = {line.row.name for _place, line, _rating in table.ranked_lines}
    apart = {line.row.name: line for line in table.apart}
    assert ranked == {"Anna", "Boris", "Vera", "Gleb", "Dina", "Egor", "Zhenya"}
    assert set(apart) == {"Zoya", "Ilya"}
    assert (apart["Zoya"].needs_nights, apart["Ilya"].needs_nights) == (1, 2)
    assert apart["Zoya"].words == "2 nights count: May 26, June 9. 1 more night to be ranked."
    assert table.series == 6 and table.nights == 3


def test_only_the_best_two_nights_count_and_the_line_says_which(season, nights):
    table = table_of(season)
    lines = {line.row.name: line for line in table.lines.values()}
    winners_first = table_sides(nights[0])[0][1]  # table 1's side 1 won the first two nights
    for name in winners_first:
        line = lines[name]
        assert (line.row.played, line.row.won, line.row.goats) == (2, 2, 0)
        assert line.games == 3  # the third night, lost, is played but does not count
        assert line.words == "2 of 3 nights count: May 12, May 26."
    assert table.ranked.rows[0].row.won == 2


def test_a_season_without_best_nights_counts_them_all(season, nights):
    season.best_nights = None
    season.version += 1
    lines = {line.row.name: line for line in table_of(season).lines.values()}
    anna = lines["Anna"]
    assert (anna.row.played, len(anna.counted_days)) == (3, 3)
    assert anna.words == "3 nights count: May 12, May 26, June 9."


def test_a_minimum_of_games_lists_a_player_apart_with_what_they_need(season, nights):
    season.min_nights, season.min_games, season.version = 0, 3, 1
    apart = {line.row.name: line for line in table_of(season).apart}
    assert apart["Zoya"].needs_games == 1
    assert apart["Zoya"].words.endswith("1 more game to be ranked.")


def test_club_nights_only_leaves_out_a_league_game_outside_them(season, nights, league):
    game = finished(league, names=("Anna", "Boris", "Vera", "Gleb"), loser=0)
    Series.objects.filter(pk=game.pk).update(
        finished_at=timezone.make_aware(datetime(2025, 6, 1, 15, 0))
    )
    refold(league)
    every = table_of(season)
    season.counts, season.version = Season.Counts.NIGHTS, 1
    nights_only = table_of(season)
    assert (every.series, nights_only.series) == (7, 6)
    assert every.lines[game.seats.first().player_id].night_count == 4


def test_a_new_result_shows_at_once_though_the_numbers_are_kept(season, nights, league):
    before = table_of(season).series
    game = finished(league, names=("Anna", "Boris", "Vera", "Gleb"), loser=0)
    moment = timezone.make_aware(datetime(2025, 6, 20, 20, 0))
    Series.objects.filter(pk=game.pk).update(finished_at=moment)
    refold(league)  # a write that changes a result bumps the league's results_version
    assert table_of(season).series == before + 1


def test_a_season_outside_the_nights_is_empty(league, nights):
    season = Season.objects.create(
        league=league,
        name="Later",
        starts_on=DAYS[2] + timedelta(days=1),
        ends_on=date(2025, 12, 31),
    )
    table = table_of(season)
    assert (table.series, table.lines, table.apart) == (0, {}, [])


def test_the_awards_name_ties_as_ties_with_the_game_that_made_them(season, nights):
    table = table_of(season)
    found = {a.key: a for a in awards.season_awards(season, table, results_version=0)}
    assert set(found) >= {"won", "sixes", "run", "pair", "goats"}
    won = found["won"]
    assert won.tie and won.figure == "2 series"
    assert all(Series.objects.filter(pk=h.series_id, finished=True).exists() for h in won.holders)
    run = found["run"]
    assert run.figure == "2 in a row"
    sixes = found["sixes"]
    assert "sixes given (naked)" in sixes.figure  # every game here was lost naked
    pair = found["pair"]
    assert pair.figure == "won: 2 of 3 games together"
    names = [h.names[0] for h in pair.holders]
    assert names == sorted(names) and len(names) == len(set(names))


def test_the_most_improved_rating_is_among_the_ranked_players(season, nights):
    table = table_of(season)
    found = {a.key: a for a in awards.season_awards(season, table, results_version=0)}
    improved = found["improved"]
    ranked = {line.row.name for _p, line, _r in table.ranked_lines}
    assert {h.names[0] for h in improved.holders} <= ranked
    assert improved.figure.startswith("+")


def test_expected_wins_come_from_openskills_prediction_of_each_game():
    even = [GameSeat(1, 1, 0, True), GameSeat(1, 2, 0, True), GameSeat(1, 3, 1, False),
            GameSeat(1, 4, 1, False)]  # fmt: skip
    figures = expected.expected_wins([even], {})
    assert figures[1] == (1, pytest.approx(0.5), 1) and figures[3] == (1, pytest.approx(0.5), 0)
    strong = {1: Rating(35, 2, 20), 2: Rating(35, 2, 20)}
    figures = expected.expected_wins([even], strong)
    assert figures[1][1] > 0.9 and figures[1][1] + figures[3][1] == pytest.approx(1)


def test_the_evening_names_who_beat_expectation_most(nights):
    evening = expected.evening_expected(nights[-1])
    assert len(evening.lines) == 8 and all(line.games == 1 for line in evening.lines)
    best = evening.beat_most
    assert best and all(line.actual == 1 for line in best)
    assert best[0].beat_by > expected.BEAT_FROM
    winners = {name for table in table_sides(nights[-1]) for name in table[0]}
    assert {line.name for line in best} <= winners


def test_a_big_season_names_its_best_players_and_offers_everyone(season, nights, monkeypatch):
    monkeypatch.setattr(ladder, "TOP_PLAYERS", 3)
    season.min_nights, season.version = 0, 1
    table = table_of(season)
    assert len(table.ranked_lines) == 3 and table.hidden == 9 - 3
    assert all(line.row.name for _p, line, _r in table.ranked_lines)
    every = ladder.season_table(
        season, results_version=season.league.results_version, everyone=True
    )
    assert len(every.ranked_lines) == 9 and every.hidden == 0
