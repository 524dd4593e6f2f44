"""A series deal by deal: who is out, the goat and the winner (RULES.md, "A series")."""

from __future__ import annotations

import dataclasses

import pytest

from scoring.rules import PRESETS, Deal, InvalidDeal, Ruleset, replay
from scoring.rules.series import Series

CLASSIC = PRESETS["classic"]
FIRST_OUT = Ruleset(ending="first-out")
EGGS = (60, 60)


def lose2(side: int) -> Deal:
    """Two sides: ``side`` loses with 50 card points (2)."""
    return Deal((50, 70) if side == 0 else (70, 50))


def lose4(side: int) -> Deal:
    """Two sides: ``side`` loses with 20 card points (4)."""
    return Deal((20, 100) if side == 0 else (100, 20))


def lose6(side: int) -> Deal:
    """Two sides: ``side`` loses without a trick (6)."""
    return Deal((0, 120), (False, True)) if side == 0 else Deal((120, 0), (True, False))


ALL_TWO = Deal((40, 40, 40))  # three sides level: 2 each
TWO_TWO_FOUR = Deal((50, 50, 20))  # two share the top: 2, 2, and 4 for the third
ZERO_FOUR_SIX = Deal((100, 20, 0), (True, True, False))  # 0, 4, 6
ZERO_FOUR_FOUR = Deal((80, 20, 20))  # 0, 4, 4


# --- a series as it goes -------------------------------------------------------------------------


def test_a_new_series_has_no_deals_and_no_defeat_points():
    state = replay(2, [])
    assert state.totals == (0, 0)
    assert state.deals == ()
    assert (state.finished, state.goats, state.winner, state.out) == (False, (), None, ())
    assert (state.eggs, state.multiplier) == (0, 1)
    assert state.in_play == (0, 1)


def test_defeat_points_add_up_deal_by_deal():
    state = replay(2, [lose4(0), lose4(1), lose2(0)])
    assert state.totals == (6, 4)
    assert [outcome.defeat for outcome in state.deals] == [(4, 0), (0, 4), (2, 0)]
    assert [outcome.totals for outcome in state.deals] == [(4, 0), (4, 4), (6, 4)]
    assert [outcome.number for outcome in state.deals] == [1, 2, 3]


def test_with_no_side_at_the_target_play_goes_on():
    state = replay(2, [lose4(0), lose4(1), lose2(0), lose6(1)])
    assert state.totals == (6, 10)
    assert not state.finished
    assert (state.out, state.goats, state.winner) == ((), (), None)


def test_a_side_that_reaches_the_target_is_out_and_is_the_goat():
    state = replay(2, [lose6(1), lose6(1)])
    assert state.totals == (0, 12)
    assert state.out == (1,)
    assert state.goats == (1,)
    assert state.deals[1].out == (1,)


def test_when_one_of_two_sides_is_out_the_other_wins_and_the_series_ends():
    state = replay(2, [lose6(0), lose4(1), lose6(0)])
    assert state.finished
    assert state.winner == 1
    assert state.in_play == (1,)


def test_a_side_just_below_the_target_is_not_out():
    state = replay(2, [lose6(1), lose4(1)], rules=Ruleset(target=11))
    assert state.totals == (0, 10)
    assert not state.finished
    assert state.out == ()


def test_a_side_past_the_target_is_out():
    state = replay(2, [lose6(1), lose6(1)], rules=Ruleset(target=11))
    assert state.out == (1,)


def test_a_custom_target_is_the_line_for_going_out():
    assert replay(2, [lose6(0)], rules=Ruleset(target=6)).goats == (0,)
    assert not replay(2, [lose6(0), lose6(0)], rules=Ruleset(target=13)).finished


def test_how_far_each_side_is_from_the_target():
    assert replay(2, [lose4(0), lose2(1)]).to_target == (8, 10)
    assert replay(2, [lose6(1), lose6(1), lose6(1)], rules=Ruleset(target=14)).to_target[1] == 0


# --- all at the target ---------------------------------------------------------------------------

LEVEL_AT_TEN = [lose4(0), lose4(1), lose4(0), lose4(1), lose2(0), lose2(1)]


def test_two_sides_both_reaching_the_target_level_are_not_out():
    state = replay(2, [*LEVEL_AT_TEN, EGGS], rules=PRESETS["tie-penalty"])
    assert state.totals == (12, 12)
    assert state.out == ()
    assert not state.finished


def test_two_sides_both_at_the_target_the_higher_goes_out():
    state = replay(2, [*LEVEL_AT_TEN, EGGS, lose2(1)], rules=PRESETS["tie-penalty"])
    assert state.totals == (12, 14)
    assert state.out == (1,)
    assert (state.goats, state.winner) == ((1,), 0)


def test_three_sides_all_level_at_the_target_nobody_is_out():
    state = replay(3, [ALL_TWO] * 6)
    assert state.totals == (12, 12, 12)
    assert state.out == ()
    assert not state.finished


def test_three_sides_all_at_the_target_only_the_highest_is_out():
    state = replay(3, [*[ALL_TWO] * 6, TWO_TWO_FOUR])
    assert state.totals == (14, 14, 16)
    assert state.out == (2,)
    assert state.goats == (2,)
    assert state.in_play == (0, 1)


def test_two_left_level_above_the_target_play_on_until_a_deal_separates_them():
    level = replay(3, [*[ALL_TWO] * 6, TWO_TWO_FOUR])
    assert not level.finished
    separated = replay(3, [*[ALL_TWO] * 6, TWO_TWO_FOUR, lose2(1)])
    assert separated.totals == (14, 16, 16)
    assert separated.out == (2, 1)
    assert (separated.goats, separated.winner, separated.finished) == ((2,), 0, True)


def test_three_sides_all_at_the_target_two_sharing_the_highest_total_both_go_out():
    state = replay(3, [*[ALL_TWO] * 6, ZERO_FOUR_FOUR])
    assert state.totals == (12, 16, 16)
    assert state.out == (1, 2)
    assert (state.goats, state.winner, state.finished) == ((1, 2), 0, True)


def test_three_sides_all_at_the_target_one_alone_at_the_top_goes_out_alone():
    state = replay(3, [*[ALL_TWO] * 6, Deal((20, 50, 50))])
    assert state.totals == (16, 14, 14)
    assert state.out == (0,)
    assert not state.finished


# --- some at the target --------------------------------------------------------------------------


def test_three_sides_two_reaching_the_target_in_one_deal_both_go_out_as_goats():
    state = replay(3, [ZERO_FOUR_FOUR] * 3)
    assert state.totals == (0, 12, 12)
    assert state.out == (1, 2)
    assert state.goats == (1, 2)
    assert (state.winner, state.finished) == (0, True)


# --- three players: last-standing and first-out ---------------------------------------------


def test_three_players_the_first_out_is_the_goat_and_the_other_two_play_on():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX])
    assert state.totals == (0, 8, 12)
    assert state.goats == (2,)
    assert not state.finished
    assert state.winner is None
    assert state.in_play == (0, 1)


def test_after_a_player_is_out_a_three_side_deal_is_refused():
    with pytest.raises(InvalidDeal, match=r"^Deal 3: 2 sides are in play") as caught:
        replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, ALL_TWO])
    assert caught.value.number == 3


def test_the_two_left_of_three_play_with_the_two_side_save_line():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, (90, 30)])
    assert state.deals[2].defeat == (0, 4, 0)  # 30 is saved among three (21), not among two (31)


def test_three_players_last_standing_ends_when_one_is_left():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, lose2(1), lose4(1)])
    assert state.totals == (0, 14, 12)
    assert state.out == (2, 1)
    assert state.goats == (2,)  # the second one out is not a goat
    assert (state.winner, state.finished) == (0, True)


def test_the_player_out_scores_nothing_in_later_deals():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, lose2(1)])
    outcome = state.deals[2]
    assert outcome.in_play == (0, 1)
    assert outcome.defeat == (0, 2, 0)
    assert outcome.points_of(2) is None
    assert outcome.points_of(1) == 50
    assert outcome.losers == (1,)


def test_a_deal_outcome_names_the_naked_sides_by_their_series_side():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, Deal((0, 120), (False, True))])
    assert state.deals[0].naked == (2,)
    assert state.deals[2].naked == (0,)


def test_first_out_ends_the_series_when_the_first_player_is_out():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX], rules=FIRST_OUT)
    assert state.finished
    assert state.goats == (2,)
    assert state.winner == 0  # the fewest defeat points of the two left


def test_first_out_the_winner_is_the_one_left_with_fewer_defeat_points():
    state = replay(3, [Deal((20, 0, 100), (True, False, True))] * 2, rules=FIRST_OUT)
    assert state.totals == (8, 12, 0)
    assert (state.goats, state.winner) == ((1,), 2)


def test_first_out_has_no_winner_when_the_two_left_are_level():
    state = replay(3, [TWO_TWO_FOUR] * 3, rules=FIRST_OUT)
    assert state.totals == (6, 6, 12)
    assert state.finished
    assert state.goats == (2,)
    assert state.winner is None


def test_first_out_with_two_out_at_once_the_one_left_wins():
    state = replay(3, [ZERO_FOUR_FOUR] * 3, rules=FIRST_OUT)
    assert (state.goats, state.winner, state.finished) == ((1, 2), 0, True)


def test_first_out_makes_no_difference_to_two_sides():
    deals = [lose6(1), lose4(0), lose6(1)]
    assert replay(2, deals, rules=FIRST_OUT).winner == replay(2, deals).winner == 0


def test_last_standing_is_the_default_ending():
    assert not replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX]).finished


# --- what replay refuses -------------------------------------------------------------------------


def test_a_deal_after_the_series_is_over_is_refused_naming_the_deal():
    with pytest.raises(InvalidDeal) as caught:
        replay(2, [lose6(1), lose6(1), lose2(0)])
    assert str(caught.value) == "Deal 3: The series is over; no deal can be added."
    assert caught.value.number == 3


def test_even_eggs_after_the_series_is_over_are_refused():
    with pytest.raises(InvalidDeal, match=r"^Deal 3: The series is over"):
        replay(2, [lose6(1), lose6(1), EGGS], rules=PRESETS["eggs-stacking"])


def test_a_bad_deal_in_a_series_is_refused_naming_the_deal():
    with pytest.raises(InvalidDeal) as caught:
        replay(2, [lose2(0), (119, 1)])
    assert str(caught.value) == "Deal 2: 119 is impossible: no set of cards is worth that."
    assert (caught.value.number, caught.value.side) == (2, 0)


def test_a_deal_with_0_points_given_as_points_alone_is_refused_for_want_of_tricks():
    with pytest.raises(InvalidDeal, match=r"^Deal 1: Say whether"):
        replay(2, [(120, 0)])


@pytest.mark.parametrize(("sides", "deal"), [(2, (40, 40, 40)), (3, (70, 50))])
def test_a_deal_for_the_wrong_number_of_sides_is_refused_naming_the_deal(sides, deal):
    with pytest.raises(InvalidDeal, match=r"^Deal 2: .* sides are in play") as caught:
        replay(sides, [ALL_TWO if sides == 3 else lose2(0), deal])
    assert caught.value.params["count"] == len(deal)


@pytest.mark.parametrize("sides", [0, 1, 4, -2, True, None, 2.0, ("Anna",), "ABCD"])
def test_a_series_of_other_than_two_or_three_sides_is_refused(sides):
    with pytest.raises(InvalidDeal, match="two or three sides"):
        replay(sides, [])


def test_the_sides_may_be_given_one_entry_each():
    assert replay(("N+S", "E+W"), [lose2(0)]).totals == (2, 0)
    assert replay(["Anna", "Boris", "Vera"], [ALL_TWO]).totals == (2, 2, 2)


def test_deals_may_be_given_as_deals_or_as_points_from_any_iterable():
    deals = [(70, 50), Deal((100, 20)), [90, 30]]
    assert replay(2, iter(deals)).totals == replay(2, deals).totals == (0, 10)


def test_deals_that_are_not_a_sequence_are_refused():
    with pytest.raises(InvalidDeal):
        replay(2, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidDeal, match=r"^Deal 1:"):
        replay(2, [70])  # type: ignore[list-item]


def test_a_refused_deal_changes_nothing_already_recorded():
    series = Series(2)
    series.add(lose4(0))
    before = series.state
    with pytest.raises(InvalidDeal):
        series.add((119, 1))
    with pytest.raises(InvalidDeal):
        series.add(ALL_TWO)
    assert series.state == before
    assert series.add(lose2(1)).number == 2


def test_a_deal_refused_after_the_end_changes_nothing():
    series = Series(2)
    for deal in (lose6(1), lose6(1)):
        series.add(deal)
    before = series.state
    with pytest.raises(InvalidDeal, match=r"^Deal 3:"):
        series.add(lose2(0))
    assert series.state == before


def test_series_wants_a_number_of_sides_and_a_ruleset():
    with pytest.raises(ValueError):
        Series(4)
    with pytest.raises(TypeError):
        Series("2")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Series(2, rules="classic")  # type: ignore[arg-type]


def test_adding_deals_one_by_one_gives_the_state_replay_gives():
    deals = [lose4(0), EGGS, lose2(1), lose4(1), lose4(1)]
    series = Series(2, rules=PRESETS["eggs-double"])
    for deal in deals:
        series.add(deal)
    assert series.state == replay(2, deals, rules=PRESETS["eggs-double"])
    assert series.state.totals == (4, 12)
    assert series.finished


def test_a_state_is_a_complete_frozen_record():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, EGGS])
    data = dataclasses.asdict(state)  # every field of the state and its deals is there
    assert data["deals"][2]["deal"]["points"] == (60, 60)
    assert data["rules"] == CLASSIC.to_dict()
    assert state.sides == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.finished = True  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.deals[0].defeat = (0, 0, 0)  # type: ignore[misc]


# --- goats with eggs -----------------------------------------------------------------------------


def test_the_goat_of_a_series_with_eggs_is_a_goat_with_eggs():
    state = replay(2, [EGGS, lose6(1), lose6(1)])
    assert state.eggs == 1
    assert state.goats == (1,)
    assert state.goats_with_eggs


def test_the_goat_of_a_series_without_eggs_is_a_plain_goat():
    state = replay(2, [lose6(1), lose6(1)])
    assert state.goats == (1,)
    assert not state.goats_with_eggs


def test_eggs_make_no_goats_with_eggs_before_there_is_a_goat():
    state = replay(2, [EGGS, lose6(1)])
    assert state.eggs == 1
    assert not state.goats_with_eggs


def test_eggs_after_the_goat_went_out_still_make_it_a_goat_with_eggs():
    state = replay(3, [ZERO_FOUR_SIX, ZERO_FOUR_SIX, EGGS])
    assert state.goats == (2,)
    assert state.goats_with_eggs


def test_goats_with_eggs_is_only_a_label_and_scores_nothing():
    with_eggs = replay(2, [EGGS, lose6(1), lose6(1)])
    without = replay(2, [lose6(1), lose6(1)])
    assert with_eggs.totals == without.totals
    assert with_eggs.winner == without.winner
