"""The deck and its card points (RULES.md, "The deck and card points")."""

from __future__ import annotations

from collections import Counter

import pytest

from scoring.rules import CARD_POINTS, COUNTED_RANKS, DEAL_TOTAL, POSSIBLE_SIDE_POINTS, count_points
from scoring.rules.cards import DECK, SUITS, is_possible_split


def _piles_the_deck_can_make() -> set[tuple[int, int]]:
    """(a, b): the deck can be dealt so that pile A is worth a and pile B is worth b.

    An independent count over the real 36 cards (pile C takes the rest), so the engine's own
    table is checked against something it did not compute.
    """
    reachable = {(0, 0)}
    for value in CARD_POINTS.values():
        for _ in range(SUITS):
            if value == 0:
                continue
            reachable |= {(a + value, b) for a, b in reachable} | {
                (a, b + value) for a, b in reachable
            }
    return reachable


PILES = _piles_the_deck_can_make()


def test_the_deck_has_thirty_six_cards():
    assert len(DECK) == 36


def test_the_ranks_run_six_to_ace_in_suit_order():
    assert list(CARD_POINTS) == ["6", "7", "8", "9", "J", "Q", "K", "10", "A"]


def test_every_rank_comes_in_four_suits():
    assert SUITS == 4
    assert Counter(DECK) == Counter({0: 16, 2: 4, 3: 4, 4: 4, 10: 4, 11: 4})


@pytest.mark.parametrize(
    ("rank", "points"),
    [("6", 0), ("7", 0), ("8", 0), ("9", 0), ("J", 2), ("Q", 3), ("K", 4), ("10", 10), ("A", 11)],
)
def test_each_rank_is_worth_its_card_points(rank, points):
    assert CARD_POINTS[rank] == points


def test_one_deal_hands_out_120_points_in_all():
    assert DEAL_TOTAL == 120
    assert sum(DECK) == 120


def test_the_counted_ranks_are_the_ones_worth_points_highest_first():
    assert COUNTED_RANKS == ("A", "10", "K", "Q", "J")
    assert {rank for rank, value in CARD_POINTS.items() if value} == set(COUNTED_RANKS)


def test_a_side_can_hold_anything_from_0_to_120_except_1_and_119():
    assert set(range(121)) - POSSIBLE_SIDE_POINTS == {1, 119}
    assert len(POSSIBLE_SIDE_POINTS) == 119


def test_the_possible_side_points_are_what_the_real_cards_can_make():
    assert {a for a, _ in PILES} == POSSIBLE_SIDE_POINTS


@pytest.mark.parametrize("first", range(121))
def test_a_two_way_split_is_possible_unless_a_side_has_1_or_119(first):
    assert is_possible_split((first, 120 - first)) is (first not in (1, 119))


def test_a_three_way_split_is_possible_exactly_when_no_part_is_1_or_119():
    for a in range(121):
        for b in range(121 - a):
            split = (a, b, 120 - a - b)
            expected = not {1, 119} & set(split)
            assert is_possible_split(split) is expected, split
            assert ((a, b) in PILES) is expected, split


def test_a_split_that_does_not_add_up_to_120_is_impossible():
    assert not is_possible_split((60, 59))
    assert not is_possible_split((60, 61))
    assert not is_possible_split((40, 40, 41))
    assert not is_possible_split((0, 0, 0))


def test_the_card_counter_adds_up_the_counted_cards():
    assert count_points({"A": 2, "10": 1, "K": 1, "Q": 1, "J": 1}) == 22 + 10 + 4 + 3 + 2
    assert count_points(Counter({"J": 3})) == 6


def test_cards_worth_nothing_count_for_nothing():
    assert count_points({"6": 4, "7": 4, "8": 4, "9": 4}) == 0
    assert count_points({}) == 0


def test_the_whole_deck_counts_to_120():
    assert count_points(dict.fromkeys(CARD_POINTS, SUITS)) == 120
