"""Standings: per player, partnerships, head to head, filters, and the running totals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import rules
from scoring.leagues.services import league_create, series_move_to_league
from scoring.models import Deal, League, Player, RunningTotal, Series
from scoring.standings import selectors as standings
from scoring.standings.ratings import SeatResult, rate_match
from scoring.standings.running_totals import totals_fold
from scoring.standings.selectors import StandingsFilter, league_standings
from scoring.table import deals, services
from tests.helpers import finished, play_out, record, start_series, totals_refold

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
    totals_refold(league)
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


def test_an_edited_deal_in_a_finished_series_refreshes_the_standings(league, played):
    before = rows_by_name(league_standings(league, ALL))["Anna"]
    assert (before.played, before.naked) == (3, 4)
    # Deal 2 of series A: Anna & Vera took a trick after all (4, not 6): A is no longer over.
    a = Series.objects.get(pk=played["a"].pk)
    deals.deal_edit(
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


# The running totals: any range equals a count by hand; a change refolds only what follows ------


def by_hand(league, flt=ALL) -> tuple[int, dict, list]:
    """The standings counted from the seats, without the running totals: the series counted,
    each player's counts and rating (the league's, after their last series counted), and the
    partnerships the table shows."""
    counted = set(Series.objects.filter(flt.series_q(league)).values_list("pk", flat=True))
    ratings: dict = {}
    players: dict[int, list] = {}
    pairs: dict[tuple[int, int], list[int]] = {}
    order = Series.objects.filter(league=league, finished=True).order_by("finished_at", "pk")
    for series in order.prefetch_related("seats"):
        seats = sorted(series.seats.all(), key=lambda seat: seat.position)
        rate_match(
            ratings,
            [SeatResult(s.player_id, s.side, s.total, s.is_winner, s.is_goat) for s in seats],
        )
        if series.pk not in counted:
            continue
        for seat in seats:
            row = players.setdefault(seat.player_id, [0, 0, 0, 0, 0, 0, None])
            add = (1, seat.is_winner, seat.is_goat, seat.total, series.eggs, seat.deals_naked)
            row[:6] = [a + b for a, b in zip(row[:6], add, strict=True)]
            row[6] = ratings.get(seat.player_id)
        if series.mode == "teams":
            for side in (0, 1):
                partners = sorted((s for s in seats if s.side == side), key=lambda s: s.player_id)
                pair = tuple(sorted(s.player_id for s in partners))
                one = partners[0]
                counts = pairs.setdefault(pair, [0, 0, 0, 0])
                add = (1, one.is_winner, one.is_goat, one.total)
                pairs[pair] = [a + b for a, b in zip(counts, add, strict=True)]
    rows = [[*pair, *counts] for pair, counts in pairs.items()]
    regular = [row for row in rows if row[2] >= standings.PAIR_MIN_SERIES] or rows
    regular.sort(key=lambda row: (-row[3] / row[2], -row[2], row[0], row[1]))
    return len(counted), players, regular[: standings.PAIRS_SHOWN]


def from_totals(league, flt=ALL) -> tuple[int, dict, list]:
    """What the standings show, in ``by_hand``'s shape."""
    table = league_standings(league, flt, everyone=True)
    players = {
        row.player_id: [
            row.played,
            row.won,
            row.goats,
            row.defeat,
            row.eggs,
            row.naked,
            row.rating and (row.rating.mu, row.rating.sigma, row.rating.series),
        ]
        for row in table.players
    }
    pairs = [[p.first_id, p.second_id, p.played, p.won, p.goats, p.defeat] for p in table.pairs]
    return table.series, players, pairs


NAMES = ("Anna", "Boris", "Vera", "Gleb", "Dima", "Zoya")
RULESETS = ("classic", "eggs-double", "tie-penalty")
FIRST_DAY = date(2024, 1, 1)


@pytest.fixture
def season(league):
    """Fourteen finished series over six weeks: teams, duels, three rulesets, six players,
    two series on some days; then one still in play."""
    for n in range(14):
        names = [NAMES[(n + k) % len(NAMES)] for k in (0, 2, 3, 5)]
        mode = "teams" if n % 3 else "duel"
        series = start_series(
            league=league,
            names=names if mode == "teams" else names[:2],
            mode=mode,
            ruleset=rules.PRESETS[RULESETS[n % 3]],
        )
        play_out(series, loser=n % 2, eggs=n % 4 == 0)
        when = datetime(2024, 1, 1, 20, tzinfo=UTC) + timedelta(days=3 * (n // 2), minutes=n)
        Series.objects.filter(pk=series.pk).update(finished_at=when)
    totals_refold(league)
    record(start_series(league=league), [60, 60], [True, True])
    return league


def test_the_totals_of_any_range_and_ruleset_are_a_count_by_hand(season):
    days = st.one_of(st.none(), st.integers(0, 45).map(lambda n: FIRST_DAY + timedelta(days=n)))

    @settings(max_examples=40, deadline=None)
    @given(start=days, end=days, ruleset=st.sampled_from(["", *RULESETS, "eggs-stacking"]))
    def check(start, end, ruleset):
        flt = StandingsFilter(date_from=start, date_to=end, ruleset=ruleset)
        assert from_totals(season, flt) == by_hand(season, flt)

    check()


def test_every_filter_of_the_form_counts_as_by_hand(season):
    season_filters = [
        ALL,
        StandingsFilter(date_from=date(2024, 1, 10)),
        StandingsFilter(date_to=date(2024, 1, 10)),
        StandingsFilter(date_from=date(2024, 1, 4), date_to=date(2024, 1, 4)),  # one evening
        StandingsFilter(date_from=date(2025, 1, 1)),  # nothing yet
        StandingsFilter(ruleset="classic"),
        StandingsFilter(date_from=date(2024, 1, 7), ruleset="tie-penalty"),
        StandingsFilter(ruleset="custom-nonsense"),
    ]
    for flt in season_filters:
        assert from_totals(season, flt) == by_hand(season, flt), flt


def left_to_fold(league) -> int:
    """How many series a fold now would find past the league's mark: none once a write ended."""
    return totals_fold(league_id=league.pk)


def rows_of_series(league) -> dict[int, list[int]]:
    """The running totals' row ids, by series: a series refolded gets new rows."""
    found: dict[int, list[int]] = {}
    for pk, series_id in RunningTotal.objects.filter(league=league).values_list("pk", "series"):
        found.setdefault(series_id, []).append(pk)
    return found


def finishing_order(league) -> list[int]:
    finished_series = Series.objects.filter(league=league, finished=True)
    return list(finished_series.order_by("finished_at", "pk").values_list("pk", flat=True))


def test_finish_undo_and_finish_again_folds_that_one_series_each_time(season):
    before = rows_of_series(season)
    assert len(before) == 14
    playing = Series.objects.get(league=season, finished=False)
    play_out(playing, loser=1)
    assert left_to_fold(season) == 0
    assert rows_of_series(season) == {**before, playing.pk: rows_of_series(season)[playing.pk]}
    playing.refresh_from_db()
    deals.deal_undo(series_id=playing.pk, number=playing.deal_count, version=playing.version)
    assert rows_of_series(season) == before  # its rows went with the undo; nothing else moved
    playing.refresh_from_db()
    play_out(playing, loser=1)
    assert left_to_fold(season) == 0
    after = rows_of_series(season)
    assert after.keys() == {*before, playing.pk}
    assert {pk: rows for pk, rows in after.items() if pk in before} == before
    assert from_totals(season) == by_hand(season)


def test_an_edit_of_an_old_series_refolds_it_and_the_series_after_it_only(season):
    order = finishing_order(season)
    before = rows_of_series(season)
    edited = Series.objects.get(pk=order[9])
    last = Deal.objects.filter(series=edited).order_by("-number").first()
    deals.deal_edit(
        series_id=edited.pk,
        number=last.number,
        version=edited.version,
        points=[last.points[1], last.points[0]],
        tricks=[last.tricks[1], last.tricks[0]],
    )
    assert left_to_fold(season) == 0
    after = rows_of_series(season)
    assert {pk: after[pk] for pk in order[:9]} == {pk: before[pk] for pk in order[:9]}
    refolded = [pk for pk in order[9:] if pk in after]
    assert refolded == [pk for pk in finishing_order(season) if pk not in order[:9]]
    assert all(not set(after[pk]) & set(before[pk]) for pk in refolded)
    assert from_totals(season) == by_hand(season)
    for flt in (StandingsFilter(date_from=date(2024, 1, 13)), StandingsFilter(ruleset="classic")):
        assert from_totals(season, flt) == by_hand(season, flt)


def test_a_finished_game_moved_in_refolds_from_where_it_finished(season, owner):
    quick = finished(None, names=("Anna", "Zoya"), mode="duel", loser=1)
    Series.objects.filter(pk=quick.pk).update(finished_at=datetime(2024, 1, 20, tzinfo=UTC))
    quick.refresh_from_db()
    earlier = set(
        Series.objects.filter(league=season, finished_at__lt=quick.finished_at).values_list(
            "pk", flat=True
        )
    )
    before = rows_of_series(season)
    series_move_to_league(series=quick, league=season, user=owner)
    assert left_to_fold(season) == 0
    after = rows_of_series(season)
    assert {pk: after[pk] for pk in earlier} == {pk: before[pk] for pk in earlier}
    assert all(not set(after[pk]) & set(before[pk]) for pk in set(before) - earlier)
    assert from_totals(season) == by_hand(season)
    assert from_totals(season, StandingsFilter(date_to=date(2024, 1, 20))) == by_hand(
        season, StandingsFilter(date_to=date(2024, 1, 20))
    )


def test_a_series_ending_before_the_last_one_folded_is_put_in_its_place(season, monkeypatch):
    """Two app servers whose clocks disagree: a series ends "before" one already folded."""
    playing = Series.objects.get(league=season, finished=False)
    early = datetime(2024, 1, 5, tzinfo=UTC)
    monkeypatch.setattr(services.timezone, "now", lambda: early)
    play_out(playing, loser=0)
    assert left_to_fold(season) == 0
    assert finishing_order(season).index(playing.pk) < 13
    assert from_totals(season) == by_hand(season)


def test_a_series_that_ends_is_folded_alone(league, played):
    before = rows_of_series(league)
    play_out(played["d"], loser=1)
    assert left_to_fold(league) == 0
    assert rows_of_series(league) == {
        **before,
        played["d"].pk: rows_of_series(league)[played["d"].pk],
    }
    assert from_totals(league) == by_hand(league)


def test_nothing_is_folded_while_no_finished_series_changed(league, played):
    before = rows_of_series(league)
    record(start_series(league=league), [60, 60], [True, True])  # a new series, not over
    assert rows_of_series(league) == before


def test_only_rulesets_of_finished_series_are_offered(league, played):
    start_series(league=league, ruleset=rules.PRESETS["eggs-double"])  # not over yet
    assert [key for key, _ruleset in standings.ruleset_choices(league)] == ["classic"]


def test_a_ruleset_whose_only_series_was_undone_is_no_longer_offered(league, played):
    eggs = play_out(start_series(league=league, ruleset=rules.PRESETS["eggs-double"]), loser=1)
    assert [key for key, _r in standings.ruleset_choices(league)] == ["classic", "eggs-double"]
    deals.deal_undo(series_id=eggs.pk, number=eggs.deal_count, version=eggs.version)
    assert [key for key, _r in standings.ruleset_choices(league)] == ["classic"]


def test_every_write_to_a_finished_series_bumps_the_results_version(league, played):
    def version():
        return League.objects.values_list("results_version", flat=True).get(pk=league.pk)

    before = version()
    play_out(played["d"], loser=0)
    assert version() == before + 1
    d = Series.objects.get(pk=played["d"].pk)
    deals.deal_undo(series_id=d.pk, number=d.deal_count, version=d.version)
    assert version() == before + 2
    record(start_series(league=league), [60, 60], [True, True])  # not finished: nothing
    assert version() == before + 2
