"""Deal-level figures per side (``side_tallies``) and what "naked" means under each house rule."""

from __future__ import annotations

from hypothesis import given, settings

from scoring.rules import Deal, Ruleset, SideTally, replay, side_tallies
from tests.rules.test_properties import series

LONG = Ruleset(target=999)  # a series that never ends within a test
BY_POINTS = Ruleset(target=999, naked="points")

ZERO_WITH_A_TRICK = Deal((0, 120), (True, True))
ZERO_WITHOUT_A_TRICK = Deal((0, 120), (False, True))


def tallies(sides: int, deals: list, rules: Ruleset = LONG) -> tuple[SideTally, ...]:
    return side_tallies(replay(sides, deals, rules=rules))


# --- naked: the sides charged the naked defeat ---------------------------------------------------


def test_naked_by_tricks_is_a_side_without_a_trick():
    state = replay(2, [ZERO_WITHOUT_A_TRICK, ZERO_WITH_A_TRICK], rules=LONG)
    assert [outcome.naked for outcome in state.deals] == [(0,), ()]


def test_naked_by_points_is_a_side_with_0_card_points_even_with_a_trick():
    state = replay(2, [ZERO_WITHOUT_A_TRICK, ZERO_WITH_A_TRICK], rules=BY_POINTS)
    assert [outcome.naked for outcome in state.deals] == [(0,), (0,)]
    assert [outcome.defeat for outcome in state.deals] == [(6, 0), (6, 0)]


def test_naked_by_points_in_a_three_side_deal():
    deal = Deal((0, 60, 60), (True, True, True))
    assert replay(3, [deal], rules=BY_POINTS).deals[0].naked == (0,)
    assert replay(3, [deal], rules=LONG).deals[0].naked == ()


def test_a_doubled_naked_loss_after_eggs_is_still_naked():
    rules = Ruleset(target=999, eggs="stacking")
    state = replay(2, [(60, 60), (60, 60), ZERO_WITHOUT_A_TRICK], rules=rules)
    assert state.deals[2].defeat == (18, 0)
    assert state.deals[2].naked == (0,)


def test_a_loss_of_6_made_of_a_doubled_2_or_a_tripled_4_is_not_naked():
    doubled = replay(2, [(60, 60), (30, 90)], rules=Ruleset(target=999, eggs="double-next"))
    assert doubled.deals[1].defeat == (8, 0) and doubled.deals[1].naked == ()
    tripled = replay(2, [(60, 60), (60, 60), (50, 70)], rules=Ruleset(target=999, eggs="stacking"))
    assert tripled.deals[2].defeat == (6, 0) and tripled.deals[2].naked == ()


def test_naked_names_the_series_side_after_a_player_is_out():
    out_first = Deal((100, 20, 0), (True, True, False))  # 0, 4, 6
    state = replay(3, [out_first, out_first, Deal((120, 0), (True, False))])
    assert state.deals[2].in_play == (0, 1)
    assert state.deals[2].naked == (1,)


# --- the tallies ---------------------------------------------------------------------------------


def test_a_series_without_deals_counts_nothing():
    assert tallies(3, []) == (SideTally(),) * 3


def test_two_sides_count_won_lost_naked_eggs_and_narrow_saves():
    first, second = tallies(
        2,
        [
            (31, 89),  # side 0 loses at the save line: a narrow save
            (30, 90),  # loses by 4
            ZERO_WITHOUT_A_TRICK,  # naked
            (60, 60),  # eggs: neither won nor lost
            (89, 31),  # won (side 1 saved narrowly)
            ZERO_WITH_A_TRICK,  # 0 points with a trick: 4, not naked by tricks
        ],
    )
    assert first == SideTally(played=6, won=1, lost=4, naked=1, eggs=1, narrow_saves=1)
    assert second == SideTally(played=6, won=4, lost=1, naked=0, eggs=1, narrow_saves=1)


def test_naked_by_points_counts_0_points_with_a_trick():
    deals = [ZERO_WITH_A_TRICK, ZERO_WITHOUT_A_TRICK]
    assert tallies(2, deals, LONG)[0].naked == 1
    assert tallies(2, deals, BY_POINTS)[0].naked == 2


def test_a_narrow_save_is_exactly_the_save_line_in_force():
    custom = Ruleset(target=999, save_line=21)
    assert tallies(2, [(21, 99), (31, 89)], custom)[0].narrow_saves == 1
    assert tallies(2, [(21, 99), (31, 89)])[0].narrow_saves == 1  # the classic 31
    assert tallies(2, [(32, 88), (60, 60)])[0].narrow_saves == 0


def test_a_narrow_save_survives_the_eggs_multiplier():
    rules = Ruleset(target=999, eggs="double-next")
    first, _ = tallies(2, [(60, 60), (31, 89)], rules)
    assert (first.lost, first.narrow_saves, first.eggs) == (1, 1, 1)


def test_three_sides_save_at_the_three_side_line():
    first, second, third = tallies(3, [(21, 50, 49), (31, 60, 29)])
    assert (first.played, first.lost, first.narrow_saves) == (2, 2, 1)
    assert (second.won, second.lost) == (2, 0)
    assert (third.lost, third.narrow_saves) == (2, 0)


def test_after_a_player_is_out_the_two_left_save_at_the_two_side_line():
    out_first = Deal((100, 20, 0), (True, True, False))  # side 2 reaches 12 in two deals
    first, second, third = tallies(3, [out_first, out_first, (31, 89), (21, 99)], Ruleset())
    assert third == SideTally(played=2, won=0, lost=2, naked=2, eggs=0, narrow_saves=0)
    assert (first.played, first.won, first.lost, first.narrow_saves) == (4, 2, 2, 1)
    assert (second.played, second.won, second.lost) == (4, 2, 2)


def test_a_side_level_with_the_top_is_not_saved_by_the_line():
    rules = Ruleset(target=999, save_line=60, save_line_three=40, eggs="both-two")
    assert tallies(3, [(40, 40, 40)], rules) == (SideTally(1, 0, 1, 0, 0, 0),) * 3
    assert tallies(2, [(60, 60)], rules) == (SideTally(1, 0, 1, 0, 1, 0),) * 2


def test_eggs_that_score_both_sides_two_are_lost_by_both():
    rules = Ruleset(target=999, eggs="both-two")
    assert tallies(2, [(60, 60)], rules) == (SideTally(played=1, lost=1, eggs=1),) * 2
    assert tallies(2, [(60, 60)]) == (SideTally(played=1, eggs=1),) * 2


@settings(max_examples=150, deadline=None)
@given(series(max_deals=None))
def test_the_tallies_agree_with_every_deal_outcome(played):
    sides, _rules, _deals, states = played
    state = states[-1]
    found = side_tallies(state)
    assert len(found) == sides
    for side, tally in enumerate(found):
        mine = [outcome for outcome in state.deals if side in outcome.in_play]
        assert tally.played == len(mine)
        assert tally.lost == sum(1 for outcome in mine if outcome.defeat[side])
        assert (
            tally.won
            + tally.lost
            + sum(1 for outcome in mine if outcome.eggs and not outcome.defeat[side])
            == tally.played
        )
        assert tally.naked == sum(1 for outcome in mine if side in outcome.naked)
        assert tally.eggs == sum(1 for outcome in mine if outcome.eggs)
        assert tally.narrow_saves + tally.naked <= tally.lost


@settings(max_examples=150, deadline=None)
@given(series(max_deals=None))
def test_naked_is_no_trick_or_no_card_points_as_the_house_rule_says(played):
    _sides, rules, _deals, states = played
    for outcome in states[-1].deals:
        took = outcome.deal.took_trick
        expected = tuple(
            side
            for index, side in enumerate(outcome.in_play)
            if outcome.deal.points[index] == 0 and (rules.naked == "points" or not took[index])
        )
        assert outcome.naked == expected
