"""Ratings: openskill Plackett-Luce over finished series, partners as teams, in finishing order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scoring.models import Player, Series
from scoring.standings.ratings import MODEL_MU, MODEL_SIGMA, Rating, SeatResult, rate, side_ranks
from scoring.standings.selectors import StandingsFilter, league_standings
from tests.helpers import finished, start_series, totals_refold


def seat(player, side, total=0, winner=False, goat=False) -> SeatResult:
    return SeatResult(player_id=player, side=side, total=total, is_winner=winner, is_goat=goat)


def teams_match(first=(1, 3), second=(2, 4), loser=0) -> list[SeatResult]:
    """Two teams of two; ``loser`` (0 for ``first``) is the goat with 12, the other won."""
    sides = [first, second]
    return [
        seat(player, side, 12 if side == loser else 4, side != loser, side == loser)
        for side, players in enumerate(sides)
        for player in players
    ]


def test_the_winner_ranks_first_and_the_goat_last():
    ranks = side_ranks([seat(1, 0, 12, goat=True), seat(2, 1, 4, winner=True)])
    assert ranks == {0: 2, 1: 1}


def test_a_third_side_ranks_between_by_its_defeat_points():
    ranks = side_ranks(
        [seat(1, 0, 14, goat=True), seat(2, 1, 8, winner=True), seat(3, 2, 12, goat=False)]
    )
    assert ranks == {1: 1, 2: 2, 0: 3}


def test_sides_between_with_equal_totals_tie_and_fewer_points_rank_higher():
    level = side_ranks([seat(1, 0, 12, goat=True), seat(2, 1, 6), seat(3, 2, 6)])
    assert level == {1: 1, 2: 1, 0: 2}
    apart = side_ranks([seat(1, 0, 12, goat=True), seat(2, 1, 2), seat(3, 2, 8)])
    assert apart == {1: 1, 2: 2, 0: 3}


def test_two_goats_share_the_last_rank():
    ranks = side_ranks(
        [seat(1, 0, 12, goat=True), seat(2, 1, 12, goat=True), seat(3, 2, 4, winner=True)]
    )
    assert ranks == {2: 1, 0: 2, 1: 2}


def test_winning_raises_a_rating_losing_lowers_it_and_both_grow_surer():
    ratings = rate([teams_match(loser=1)])
    assert ratings[1].mu > MODEL_MU > ratings[2].mu
    assert all(r.sigma < MODEL_SIGMA for r in ratings.values())
    assert all(r.series == 1 for r in ratings.values())


def test_partners_of_equal_standing_move_together():
    ratings = rate([teams_match(loser=0)])
    assert ratings[1].mu == pytest.approx(ratings[3].mu)
    assert ratings[2].mu == pytest.approx(ratings[4].mu)


def test_the_partner_counts_a_win_beside_a_strong_player_earns_less():
    # Player 1 has beaten everyone twice; then 1 & 5 beat 2 & 4, and 6 & 7 beat 8 & 9.
    history = [teams_match((1, 3), (2, 4), loser=1), teams_match((1, 4), (2, 3), loser=1)]
    ratings = rate([*history, teams_match((1, 5), (2, 4), loser=1), teams_match((6, 7), (8, 9), 1)])
    assert ratings[5].mu < ratings[6].mu


def test_free_for_all_three_players_are_rated_by_rank():
    ratings = rate([[seat(1, 0, 4, winner=True), seat(2, 1, 8), seat(3, 2, 12, goat=True)]] * 3)
    assert ratings[1].mu > ratings[2].mu > ratings[3].mu


def test_the_ordinal_is_the_cautious_estimate():
    rating = rate([teams_match()])[1]
    assert rating.ordinal == pytest.approx(rating.mu - 3 * rating.sigma)


def test_the_same_series_in_the_same_order_give_the_same_ratings():
    matches = [teams_match(loser=i % 2) for i in range(10)] + [teams_match((1, 2), (3, 4), 0)]
    assert rate(matches) == rate(list(matches))


def test_the_order_of_the_series_matters():
    first, second = teams_match((1, 2), (3, 4), 0), teams_match((1, 3), (2, 4), 1)
    assert rate([first, second])[1] != rate([second, first])[1]


def test_stored_series_are_rated_in_the_order_they_finished(league):
    early = finished(league, loser=0)
    late = finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    base = datetime(2025, 1, 1, tzinfo=UTC)
    names = {p.pk: p.name for p in Player.objects.filter(league=league)}

    def by_name(ratings):
        return {names[pid]: (round(r.mu, 9), round(r.sigma, 9)) for pid, r in ratings.items()}

    Series.objects.filter(pk=early.pk).update(finished_at=base)
    Series.objects.filter(pk=late.pk).update(finished_at=base + timedelta(hours=1))
    in_order = by_name(series_ratings(league))
    Series.objects.filter(pk=early.pk).update(finished_at=base + timedelta(hours=2))
    swapped = by_name(series_ratings(league))
    assert in_order != swapped
    # The same result as rating the seats by hand in that order.
    assert in_order == by_name(rate([results(early), results(late)]))


def series_ratings(league) -> dict[int, Rating]:
    """The league's ratings counted from nothing (the test moves ``finished_at`` by hand)."""
    totals_refold(league)
    table = league_standings(league, StandingsFilter())
    return {row.player_id: row.rating for row in table.players if row.rating}


def results(series: Series) -> list[SeatResult]:
    return [
        SeatResult(s.player_id, s.side, s.total, s.is_winner, s.is_goat)
        for s in series.seats.order_by("position")
    ]


def test_unfinished_series_are_not_rated(league):
    start_series(league=league)
    assert series_ratings(league) == {}
