"""Standings: per player, partnerships, head to head, filters, and the stored snapshot."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import rules
from scoring.leagues import ledger, standings
from scoring.leagues.services import league_create, series_move_to_league
from scoring.leagues.standings import StandingsFilter, league_standings
from scoring.models import League, Player, Series, StandingsSnapshot
from scoring.table import services
from tests.helpers import finished, play_out, record, start_series

ALL = StandingsFilter()


@pytest.fixture
def played(league):
    """Three finished series and one still in play.

    A: Anna & Vera against Boris & Gleb, one 60:60, then Anna & Vera naked twice: their goat.
    B: Anna & Boris against Vera & Gleb, Vera & Gleb naked twice: their goat.
    C: a duel, Anna naked twice: her goat. D: in progress, not counted.
    """
    a = finished(league, loser=0, eggs=1)
    b = finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    c = finished(league, names=("Anna", "Boris"), mode="duel", loser=0)
    d = start_series(league=league)
    record(d, [0, 120], [False, True])
    return {"a": a, "b": b, "c": c, "d": d}


def rows_by_name(table) -> dict:
    return {row.name: row for row in table.players}


def test_each_player_has_series_played_won_goat_defeat_eggs_and_naked(league, played):
    table = league_standings(league, ALL)
    rows = rows_by_name(table)
    assert table.series == 3
    anna, boris = rows["Anna"], rows["Boris"]
    assert (anna.played, anna.won, anna.goats, anna.defeat, anna.eggs, anna.naked) == (
        3, 1, 2, 24, 1, 4,
    )  # fmt: skip
    assert (boris.played, boris.won, boris.goats, boris.defeat, boris.eggs, boris.naked) == (
        3, 3, 0, 0, 1, 0,
    )  # fmt: skip
    assert anna.win_rate == pytest.approx(1 / 3)
    assert anna.win_percent == 33
    assert anna.average_defeat == pytest.approx(8.0)
    assert (rows["Vera"].played, rows["Vera"].naked, rows["Gleb"].goats) == (2, 4, 1)


def test_every_player_has_a_rating_and_the_most_series_won_comes_first(league, played):
    table = league_standings(league, ALL)
    assert all(row.rating is not None and row.rating.sigma > 0 for row in table.players)
    ranks = [(-row.won, row.goats, -row.rating.ordinal) for row in table.players]
    assert ranks == sorted(ranks)
    assert table.players[0].name == "Boris"


def test_partnerships_count_the_series_two_players_shared_a_side(league, played):
    pairs = {(p.first, p.second): p for p in league_standings(league, ALL).pairs}
    assert set(pairs) == {("Anna", "Vera"), ("Boris", "Gleb"), ("Anna", "Boris"), ("Vera", "Gleb")}
    anna_vera = pairs[("Anna", "Vera")]
    assert (anna_vera.played, anna_vera.won, anna_vera.goats, anna_vera.defeat) == (1, 0, 1, 12)
    assert pairs[("Anna", "Boris")].win_percent == 100


def test_head_to_head_counts_against_and_together(league, played):
    anna = Player.objects.get(league=league, name="Anna")
    boris = Player.objects.get(league=league, name="Boris")
    result = standings.head_to_head(league, ALL, anna, boris)
    assert (result.against, result.first_won, result.second_won) == (2, 0, 2)
    assert (result.first_goat, result.second_goat) == (2, 0)
    assert (result.together, result.together_won, result.together_goat) == (1, 1, 0)


def test_a_season_counts_the_series_that_finished_within_it(league, played):
    Series.objects.filter(pk=played["c"].pk).update(finished_at=datetime(2024, 3, 1, tzinfo=UTC))
    Series.objects.exclude(pk=played["c"].pk).update(finished_at=datetime(2025, 5, 1, tzinfo=UTC))
    spring_2024 = StandingsFilter(date_from=date(2024, 3, 1), date_to=date(2024, 3, 1))
    assert rows_by_name(league_standings(league, spring_2024)).keys() == {"Anna", "Boris"}
    since_2025 = StandingsFilter(date_from=date(2025, 1, 1))
    assert league_standings(league, since_2025).series == 2
    until_2024 = StandingsFilter(date_to=date(2024, 12, 31))
    assert league_standings(league, until_2024).series == 1


def test_a_ruleset_filter_counts_only_series_played_with_it(league, played):
    eggs = start_series(league=league, ruleset=rules.PRESETS["eggs-double"])
    play_out(eggs, loser=1)
    only_eggs = league_standings(league, StandingsFilter(ruleset="eggs-double"))
    assert only_eggs.series == 1
    assert league_standings(league, StandingsFilter(ruleset="classic")).series == 3
    assert league_standings(league, StandingsFilter(ruleset="custom-nonsense")).series == 0
    keys = [key for key, _ruleset in standings.ruleset_choices(league)]
    assert keys == ["classic", "eggs-double"]


def test_other_leagues_do_not_count(league, played, outsider):
    other = league_create(name="Other", user=outsider)
    finished(other)
    assert league_standings(league, ALL).series == 3
    assert league_standings(other, ALL).series == 1


def test_the_snapshot_is_reused_while_nothing_changed(league, played, monkeypatch):
    first = league_standings(league, ALL)

    def must_not_run(*args):
        raise AssertionError("recomputed although nothing changed")

    monkeypatch.setattr(standings, "compute", must_not_run)
    assert league_standings(league, ALL) == first
    assert StandingsSnapshot.objects.filter(league=league).count() == 1


def test_an_edited_deal_in_a_finished_series_refreshes_the_standings(league, played):
    before = rows_by_name(league_standings(league, ALL))["Anna"]
    assert (before.played, before.naked) == (3, 4)
    # Deal 2 of series A: Anna & Vera took a trick after all (4, not 6): A is no longer over.
    a = Series.objects.get(pk=played["a"].pk)
    services.deal_edit(
        series_id=a.pk, number=2, version=a.version, points=[0, 120], tricks=[True, True]
    )
    after = rows_by_name(league_standings(league, ALL))["Anna"]
    assert (after.played, after.naked) == (2, 2)


def test_a_newly_finished_series_is_counted_at_once(league, played):
    assert league_standings(league, ALL).series == 3
    play_out(played["d"], loser=0)
    assert league_standings(league, ALL).series == 4


def test_a_renamed_player_shows_the_new_name(league, played):
    league_standings(league, ALL)
    Player.objects.filter(league=league, name="Gleb").update(name="Glebushka")
    assert "Glebushka" in rows_by_name(league_standings(league, ALL))


def test_few_snapshots_are_kept_per_league(league, played):
    for day in range(1, standings.SNAPSHOTS_KEPT + 5):
        league_standings(league, StandingsFilter(date_from=date(2024, 1, day)))
    assert StandingsSnapshot.objects.filter(league=league).count() == standings.SNAPSHOTS_KEPT


def test_an_empty_league_has_empty_standings(league):
    table = league_standings(league, ALL)
    assert (table.series, table.players, table.pairs) == (0, [], [])


def test_naked_counts_what_the_house_rules_charge_as_naked(league):
    # Under naked="points", 0 card points scores 6 even with a trick: that deal is naked.
    by_points = rules.Ruleset(naked="points")
    series = start_series(league=league, names=("Anna", "Boris"), mode="duel", ruleset=by_points)
    record(series, [0, 120], [True, True])
    record(series, [0, 120], [True, True])
    assert series.finished
    rows = rows_by_name(league_standings(league, StandingsFilter()))
    assert (rows["Anna"].naked, rows["Boris"].naked) == (2, 0)


# The stored tally: a series that ends is taken in alone, and gives what a full count gives --


def full_count(league, flt=ALL) -> dict:
    """The standings counted from nothing, as the snapshot stores them."""
    StandingsSnapshot.objects.filter(league=league).delete()
    league_standings(league, flt)
    return StandingsSnapshot.objects.get(league=league, key=flt.key).data


def stored(league, flt=ALL) -> dict:
    league_standings(league, flt)
    return StandingsSnapshot.objects.get(league=league, key=flt.key).data


def folded_series(monkeypatch) -> list[int]:
    """The ids of the series the tally counts from now on."""
    seen: list[int] = []
    count = ledger.Ledger._count

    def spy(self, seats, mode, eggs):
        seen.append(seats[0][0])
        return count(self, seats, mode, eggs)

    monkeypatch.setattr(ledger.Ledger, "_count", spy)
    return seen


@pytest.mark.parametrize(
    "flt", [ALL, StandingsFilter(ruleset="classic"), StandingsFilter(date_from=date(2000, 1, 1))]
)
def test_a_series_that_ends_is_taken_in_alone_and_counts_as_a_full_count_would(
    league, played, monkeypatch, flt
):
    stored(league, flt)
    seen = folded_series(monkeypatch)
    play_out(played["d"], loser=1)
    three = start_series(league=league, names=("Anna", "Boris", "Vera"), mode="three")
    record(three, [60, 60, 0], [True, True, False])  # Vera naked twice: she is out,
    record(three, [60, 60, 0], [True, True, False])
    while not three.finished:  # then Anna until she is out too
        record(three, [0, 120], [False, True])
    after = stored(league, flt)
    assert seen == [played["d"].pk, three.pk]
    assert after["series"] == 5
    assert after == full_count(league, flt)  # ratings to the last digit, pairs, rulesets


def test_nothing_is_folded_while_no_finished_series_changed(league, played, monkeypatch):
    before = stored(league)
    seen = folded_series(monkeypatch)
    record(start_series(league=league), [60, 60], [True, True])  # a new series, not over
    assert stored(league) == before
    assert seen == []


def test_the_tally_is_rebuilt_when_a_series_it_counted_changed(league, played, monkeypatch):
    stored(league)
    seen = folded_series(monkeypatch)
    # Deal 2 of series A: Anna & Vera took a trick after all: A is no longer over.
    a = Series.objects.get(pk=played["a"].pk)
    services.deal_edit(
        series_id=a.pk, number=2, version=a.version, points=[0, 120], tricks=[True, True]
    )
    after = stored(league)
    assert sorted(seen) == sorted([played["b"].pk, played["c"].pk])  # everything again
    assert after["series"] == 2
    assert after == full_count(league)


def test_a_finished_game_moved_in_counts_though_it_finished_before_the_others(
    league, played, owner
):
    quick = finished(None, names=("Anna", "Boris"), mode="duel", loser=1)
    Series.objects.filter(pk=quick.pk).update(finished_at=datetime(2020, 1, 1, tzinfo=UTC))
    stored(league)
    quick.refresh_from_db()
    series_move_to_league(series=quick, league=league, user=owner)
    after = stored(league)
    assert after["series"] == 4
    assert after == full_count(league)


def test_only_rulesets_of_finished_series_are_offered(league, played):
    start_series(league=league, ruleset=rules.PRESETS["eggs-double"])  # not over yet
    assert [key for key, _ruleset in standings.ruleset_choices(league)] == ["classic"]


def test_a_stored_tally_in_another_layout_is_counted_again(league, played):
    stored(league)
    StandingsSnapshot.objects.filter(league=league).update(ledger={"players": "garbled"})
    play_out(played["d"], loser=0)
    assert stored(league) == full_count(league)


@given(
    adds=st.lists(
        st.tuples(
            st.sampled_from(["1-2", "1-3", "2-3", "3-40", "12-40"]),
            st.booleans(),
            st.integers(min_value=0, max_value=14),
        ),
        max_size=40,
    ),
    split=st.integers(min_value=0, max_value=40),
)
def test_pairs_kept_in_a_string_count_as_pairs_kept_in_a_dict(adds, split):
    def add(pairs, key, won, total):
        pairs.add(key, (1, int(won), int(not won), total))

    whole = ledger.Pairs()
    for item in adds:
        add(whole, *item)
    stored = ledger.Pairs()
    for item in adds[:split]:
        add(stored, *item)
    again = ledger.Pairs.from_json(json.loads(json.dumps(stored.to_json())))
    for item in adds[split:]:
        add(again, *item)  # found and edited in the string
    assert again.regular == whole.regular
    assert again.occasional() == whole.occasional()
    assert all(counts[0] >= ledger.PAIR_MIN_SERIES for counts in again.regular.values())


def test_a_series_that_finished_earlier_but_came_in_later_has_everything_counted_again(
    league, played, monkeypatch
):
    stored(league)
    last = Series.objects.get(pk=played["c"].pk).finished_at
    seen = folded_series(monkeypatch)
    play_out(played["d"], loser=0)  # committed now, but dated before C: as from a slow clock
    Series.objects.filter(pk=played["d"].pk).update(finished_at=last - timedelta(seconds=5))
    after = stored(league)
    assert played["a"].pk in seen  # counted again from the first series
    assert after["series"] == 4
    assert after == full_count(league)


def test_every_write_to_a_finished_series_says_whether_it_only_added_one(league, played):
    def counters():
        return League.objects.values_list("results_version", "results_rewritten").get(pk=league.pk)

    version, rewritten = counters()
    play_out(played["d"], loser=0)  # one more series ended: added
    assert counters() == (version + 1, rewritten)
    d = Series.objects.get(pk=played["d"].pk)  # its last deal undone: no longer over, rewritten
    services.deal_undo(series_id=d.pk, number=d.deal_count, version=d.version)
    assert counters() == (version + 2, version + 2)
    record(start_series(league=league), [60, 60], [True, True])  # not finished: nothing
    assert counters() == (version + 2, version + 2)


@pytest.mark.parametrize(
    "garbled",
    [
        {"occasional": ";1-2:x,y"},
        {"occasional": ";1-2"},
        {"regular": {"1-2": "many"}},
        {"regular": {"x": [9, 9, 9, 9]}},
    ],
)
def test_a_stored_tally_that_does_not_parse_is_counted_again(league, played, garbled):
    stored(league)
    snapshot = StandingsSnapshot.objects.get(league=league)
    snapshot.ledger["pairs"] = {**snapshot.ledger["pairs"], **garbled}
    snapshot.save()
    finished(league, loser=1)  # Anna & Vera against Boris & Gleb again: pair "1-2" style keys
    assert stored(league) == full_count(league)
