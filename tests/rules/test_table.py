"""Who deals and who leads (RULES.md, "At the table")."""

from __future__ import annotations

import pytest

from scoring.rules import Deal, dealer_seat, first_leader_seat, replay
from scoring.rules.table import SEAT_SIDES

TEAMS, DUEL, THREE = SEAT_SIDES[4], SEAT_SIDES[2], SEAT_SIDES[3]
NO_ONE_OUT = [Deal((70, 50)), Deal((50, 70))] * 2  # two sides trade 2s: 4 deals, 4 each
SIDE_2_NAKED = Deal((100, 20, 0), (True, True, False))  # three sides: 0, 4, 6


def dealers(first_dealer, seat_sides, sides, deals):
    """The dealer of each deal 1..len(deals)+1 of a series with these deals."""
    return [
        dealer_seat(first_dealer, seat_sides, replay(sides, deals[:played]))
        for played in range(len(deals) + 1)
    ]


def test_four_players_are_two_teams_with_partners_opposite():
    assert TEAMS == (0, 1, 0, 1)  # N and S against E and W


def test_two_or_three_players_each_play_for_themselves():
    assert DUEL == (0, 1)
    assert THREE == (0, 1, 2)


@pytest.mark.parametrize("first_dealer", range(4))
def test_the_first_dealer_deals_the_first_deal(first_dealer):
    assert dealer_seat(first_dealer, TEAMS, replay(2, [])) == first_dealer


@pytest.mark.parametrize("first_dealer", range(4))
def test_four_players_the_deal_passes_clockwise_each_deal(first_dealer):
    assert dealers(first_dealer, TEAMS, 2, NO_ONE_OUT) == [
        (first_dealer + played) % 4 for played in range(5)
    ]


def test_two_players_deal_in_turn():
    assert dealers(1, DUEL, 2, NO_ONE_OUT) == [1, 0, 1, 0, 1]


def test_three_players_the_deal_passes_clockwise_around_all_three():
    assert dealers(0, THREE, 3, [Deal((40, 40, 40))] * 4) == [0, 1, 2, 0, 1]


def test_three_players_the_seat_of_a_player_who_is_out_is_skipped():
    deals = [SIDE_2_NAKED, SIDE_2_NAKED, Deal((70, 50)), Deal((50, 70))]
    state = replay(3, deals[:2])
    assert state.out == (2,)
    assert dealers(0, THREE, 3, deals) == [0, 1, 0, 1, 0]


def test_three_players_a_dealer_who_goes_out_passes_the_deal_on():
    deals = [SIDE_2_NAKED, SIDE_2_NAKED, Deal((70, 50)), Deal((50, 70))]
    assert dealers(1, THREE, 3, deals) == [1, 2, 0, 1, 0]


def test_three_players_skip_whichever_player_is_out():
    side_1_naked = Deal((100, 0, 20), (True, False, True))
    deals = [side_1_naked, side_1_naked, Deal((70, 50)), Deal((50, 70))]
    assert replay(3, deals).out == (1,)
    assert dealers(2, THREE, 3, deals) == [2, 0, 2, 0, 2]


@pytest.mark.parametrize(("dealer", "leader"), [(0, 1), (1, 2), (2, 3), (3, 0)])
def test_the_player_to_the_dealers_left_leads_the_first_trick(dealer, leader):
    assert first_leader_seat(dealer, TEAMS, replay(2, [])) == leader


def test_the_first_leader_plays_against_the_dealer_in_teams():
    for dealer in range(4):
        leader = first_leader_seat(dealer, TEAMS, replay(2, []))
        assert TEAMS[leader] != TEAMS[dealer]


def test_three_players_the_first_leader_is_the_next_player_round():
    assert first_leader_seat(2, THREE, replay(3, [])) == 0


def test_after_the_first_deal_the_taker_of_the_last_trick_leads_so_none_is_named():
    assert first_leader_seat(0, TEAMS, replay(2, [Deal((70, 50))])) is None
