"""Scoring one deal, and the house rules (RULES.md, "One deal" and "House rules")."""

from __future__ import annotations

import dataclasses

import pytest

from scoring.rules import PRESETS, Deal, InvalidDeal, Ruleset, replay, score_deal
from scoring.rules.errors import InvalidRuleset

CLASSIC = PRESETS["classic"]
NAKED_BY_POINTS = Ruleset(naked="points")


def defeat(points, tricks=None, **rules):
    return score_deal(points, tricks, rules=Ruleset(**rules)).defeat


def both_ways(points, tricks=None, **rules):
    """Defeat points of (winner, loser), checked with the loser as the first and second side."""
    forward = defeat(points, tricks, **rules)
    backward = defeat(points[::-1], None if tricks is None else tricks[::-1], **rules)
    assert backward == forward[::-1]
    return forward


# --- One deal, two sides: RULES.md's list, row by row -------------------------------------------


@pytest.mark.parametrize("winner", [61, 70, 89, 120])
def test_a_side_with_61_or_more_wins_the_deal_and_scores_nothing(winner):
    loser = 120 - winner
    tricks = (True, loser > 0)
    assert both_ways((winner, loser), tricks)[0] == 0


def test_loser_with_59_points_scores_two():
    assert both_ways((61, 59)) == (0, 2)


def test_loser_with_31_points_scores_two():
    assert both_ways((89, 31)) == (0, 2)


def test_loser_with_30_points_scores_four():
    assert both_ways((90, 30)) == (0, 4)


def test_loser_with_2_points_scores_four():
    assert both_ways((118, 2)) == (0, 4)


def test_loser_with_0_points_but_a_trick_scores_four():
    assert both_ways((120, 0), (True, True)) == (0, 4)


def test_loser_without_a_trick_is_naked_and_scores_six():
    assert both_ways((120, 0), (True, False)) == (0, 6)


@pytest.mark.parametrize("loser", range(31, 60))
def test_every_loser_from_the_save_line_to_59_scores_two(loser):
    assert defeat((120 - loser, loser)) == (0, 2)


@pytest.mark.parametrize("loser", [0, *range(2, 31)])
def test_every_loser_below_the_save_line_with_a_trick_scores_four(loser):
    assert defeat((120 - loser, loser), (True, True)) == (0, 4)


def test_sixty_all_is_eggs_and_scores_nothing_by_default():
    score = score_deal((60, 60))
    assert score.eggs is True
    assert score.defeat == (0, 0)


def test_a_deal_that_is_not_sixty_all_is_not_eggs():
    assert score_deal((61, 59)).eggs is False
    assert score_deal((40, 40, 40)).eggs is False


# --- One deal, three sides ------------------------------------------------------------------------


def test_three_sides_the_side_with_the_most_points_scores_nothing():
    assert defeat((60, 30, 30))[0] == 0
    assert defeat((30, 60, 30))[1] == 0
    assert defeat((30, 30, 60))[2] == 0


def test_three_sides_21_points_or_more_score_two():
    assert defeat((78, 21, 21)) == (0, 2, 2)
    assert defeat((40, 39, 41)) == (2, 2, 0)


def test_three_sides_20_points_or_fewer_with_a_trick_score_four():
    assert defeat((80, 20, 20)) == (0, 4, 4)
    assert defeat((2, 58, 60)) == (4, 2, 0)


def test_three_sides_0_points_with_a_trick_scores_four():
    assert defeat((0, 60, 60), (True, True, True)) == (4, 2, 2)


def test_three_sides_a_side_without_a_trick_scores_six():
    assert defeat((100, 20, 0), (True, True, False)) == (0, 4, 6)
    assert defeat((0, 0, 120), (False, False, True)) == (6, 6, 0)


def test_three_sides_two_sides_sharing_the_most_points_score_two_each():
    assert defeat((50, 50, 20)) == (2, 2, 4)
    assert defeat((50, 20, 50)) == (2, 4, 2)
    assert defeat((60, 60, 0), (True, True, False)) == (2, 2, 6)


def test_three_sides_all_level_at_40_each_score_two():
    assert defeat((40, 40, 40)) == (2, 2, 2)


def test_three_sides_have_no_eggs():
    assert score_deal((40, 40, 40), rules=Ruleset(eggs="both-two")).eggs is False


# --- House rule: naked ----------------------------------------------------------------------------


def test_naked_by_tricks_is_the_default():
    assert Ruleset().naked == "tricks"


def test_naked_by_points_makes_0_points_with_a_trick_score_six():
    assert both_ways((120, 0), (True, True), naked="points") == (0, 6)


def test_naked_by_points_still_makes_0_points_without_a_trick_score_six():
    assert both_ways((120, 0), (True, False), naked="points") == (0, 6)


def test_naked_by_points_leaves_a_loser_with_2_points_at_four():
    assert both_ways((118, 2), naked="points") == (0, 4)


def test_naked_by_points_applies_to_three_sides():
    assert defeat((0, 60, 60), (True, True, True), naked="points") == (6, 2, 2)
    assert defeat((0, 60, 60), (True, True, True), naked="tricks") == (4, 2, 2)


# --- House rule: save lines -----------------------------------------------------------------------


def test_the_save_lines_are_31_for_two_sides_and_21_for_three_by_default():
    assert (Ruleset().save_line, Ruleset().save_line_three) == (31, 21)


def test_save_line_21_lets_a_loser_with_21_points_score_two():
    assert both_ways((99, 21), save_line=21) == (0, 2)
    assert both_ways((90, 30), save_line=21) == (0, 2)


def test_save_line_21_leaves_a_loser_with_20_points_at_four():
    assert both_ways((100, 20), save_line=21) == (0, 4)


def test_a_custom_save_line_saves_at_it_and_not_below_it():
    assert both_ways((75, 45), save_line=45) == (0, 2)
    assert both_ways((76, 44), save_line=45) == (0, 4)


def test_a_save_line_of_60_saves_no_loser():
    assert both_ways((61, 59), save_line=60) == (0, 4)


def test_a_custom_three_side_save_line_saves_at_it_and_not_below_it():
    assert defeat((60, 30, 30), save_line_three=30) == (0, 2, 2)
    assert defeat((62, 29, 29), save_line_three=30) == (0, 4, 4)


def test_the_two_side_save_line_does_not_change_three_sides():
    assert defeat((80, 20, 20), save_line=10) == (0, 4, 4)


def test_the_three_side_save_line_does_not_change_two_sides():
    assert defeat((90, 30), save_line_three=30) == (0, 4)


def test_naked_is_six_whatever_the_save_line():
    assert defeat((120, 0), (True, False), save_line=1) == (0, 6)


# --- House rule: eggs, one deal -------------------------------------------------------------------


def test_eggs_none_scores_nothing():
    assert defeat((60, 60), eggs="none") == (0, 0)


def test_eggs_both_two_gives_each_side_two():
    score = score_deal((60, 60), rules=Ruleset(eggs="both-two"))
    assert score.defeat == (2, 2)
    assert score.eggs is True


@pytest.mark.parametrize("eggs", ["double-next", "stacking"])
def test_eggs_that_double_later_score_nothing_now(eggs):
    assert defeat((60, 60), eggs=eggs) == (0, 0)


@pytest.mark.parametrize("eggs", ["none", "both-two", "double-next", "stacking"])
def test_the_eggs_rule_does_not_change_a_deal_that_is_not_eggs(eggs):
    assert defeat((90, 30), eggs=eggs) == (0, 4)


def test_a_multiplier_multiplies_every_sides_defeat_points():
    assert score_deal((90, 30), multiplier=2).defeat == (0, 8)
    assert score_deal((100, 20, 0), (True, True, False), multiplier=3).defeat == (0, 12, 18)
    assert score_deal((60, 60), rules=Ruleset(eggs="both-two"), multiplier=2).defeat == (4, 4)


def test_a_multiplier_of_one_changes_nothing():
    assert score_deal((61, 59), multiplier=1).defeat == (0, 2)


@pytest.mark.parametrize("multiplier", [0, -1, 1.5, 2.0, True, "2", None])
def test_a_multiplier_that_is_not_a_whole_number_from_one_up_is_refused(multiplier):
    with pytest.raises(InvalidDeal, match="multiplier"):
        score_deal((90, 30), multiplier=multiplier)


def test_score_deal_takes_a_deal_or_its_points_and_tricks():
    assert score_deal(Deal((120, 0), (True, False))).defeat == (0, 6)
    assert score_deal([120, 0], [True, False]).defeat == (0, 6)


def test_score_deal_refuses_a_bad_deal():
    with pytest.raises(InvalidDeal, match="impossible"):
        score_deal((119, 1))


def test_score_deal_wants_a_ruleset():
    with pytest.raises(TypeError):
        score_deal((40, 40, 40), rules={"eggs": "none"})  # type: ignore[arg-type]


# --- House rule: eggs over a series (the multiplier) ----------------------------------------------

EGGS = (60, 60)
LOSE_2 = (70, 50)  # the second side loses with 50: 2
LOSE_4 = (100, 20)  # the second side loses with 20: 4


def play(deals, eggs, sides=2, **rules):
    return replay(sides, deals, rules=Ruleset(eggs=eggs, target=99, **rules))


def test_with_no_eggs_rule_the_deal_after_eggs_counts_once():
    state = play([EGGS, LOSE_2], "none")
    assert state.totals == (0, 2)
    assert state.multiplier == 1
    assert [outcome.multiplier for outcome in state.deals] == [1, 1]


def test_with_both_two_the_deal_after_eggs_counts_once():
    state = play([EGGS, LOSE_2], "both-two")
    assert state.totals == (2, 4)
    assert state.deals[1].multiplier == 1


def test_double_next_doubles_the_next_deal_that_scores():
    state = play([EGGS, LOSE_4], "double-next")
    assert state.deals[1].defeat == (0, 8)
    assert state.deals[1].multiplier == 2
    assert state.totals == (0, 8)


def test_double_next_says_the_next_deal_will_count_double():
    assert play([EGGS], "double-next").multiplier == 2


def test_double_next_counts_only_one_deal_double():
    state = play([EGGS, LOSE_2, LOSE_2], "double-next")
    assert [outcome.defeat for outcome in state.deals] == [(0, 0), (0, 4), (0, 2)]
    assert state.multiplier == 1


def test_double_next_after_two_eggs_in_a_row_still_doubles_only():
    state = play([EGGS, EGGS, LOSE_2], "double-next")
    assert state.deals[2].defeat == (0, 4)
    assert state.eggs == 2


def test_stacking_raises_the_multiplier_by_one_for_each_eggs_in_a_row():
    assert play([EGGS], "stacking").multiplier == 2
    assert play([EGGS, EGGS], "stacking").multiplier == 3
    assert play([EGGS, EGGS, EGGS], "stacking").multiplier == 4


def test_stacking_multiplies_the_next_scoring_deal():
    state = play([EGGS, EGGS, LOSE_4], "stacking")
    assert state.deals[2].defeat == (0, 12)
    assert state.deals[2].multiplier == 3


def test_stacking_returns_to_times_one_after_a_deal_that_scores():
    state = play([EGGS, EGGS, LOSE_2, EGGS, LOSE_2, LOSE_2], "stacking")
    assert [outcome.multiplier for outcome in state.deals] == [1, 2, 3, 1, 2, 1]
    assert [outcome.defeat[1] for outcome in state.deals] == [0, 0, 6, 0, 4, 2]
    assert state.totals == (0, 12)
    assert state.multiplier == 1


def test_a_doubled_naked_loss_counts_twelve():
    state = play([EGGS, Deal((120, 0), (True, False))], "double-next")
    assert state.totals == (0, 12)


def test_eggs_are_counted_whatever_the_eggs_rule():
    for eggs in ("none", "both-two", "double-next", "stacking"):
        assert play([EGGS, LOSE_2, EGGS], eggs).eggs == 2


def test_the_eggs_multiplier_carries_on_between_the_two_left_of_three():
    rules = Ruleset(eggs="double-next", target=6)
    deals = [Deal((100, 20, 0), (True, True, False)), EGGS, LOSE_2]
    state = replay(3, deals, rules=rules)
    assert state.deals[0].out == (2,)
    assert state.deals[1].in_play == (0, 1)
    assert state.deals[2].defeat == (0, 4, 0)
    assert state.totals == (0, 8, 6)
    assert (state.out, state.goats, state.winner) == ((2, 1), (2,), 0)


# --- Rulesets and presets -------------------------------------------------------------------------


def test_the_default_ruleset_is_the_classic_preset():
    assert Ruleset() == CLASSIC
    assert (CLASSIC.target, CLASSIC.save_line, CLASSIC.save_line_three) == (12, 31, 21)
    assert (CLASSIC.naked, CLASSIC.eggs, CLASSIC.ending) == ("tricks", "none", "last-standing")


def test_the_presets_are_classic_eggs_double_eggs_stacking_and_tie_penalty():
    assert set(PRESETS) == {"classic", "eggs-double", "eggs-stacking", "tie-penalty"}
    assert PRESETS["eggs-double"] == Ruleset(eggs="double-next")
    assert PRESETS["eggs-stacking"] == Ruleset(eggs="stacking")
    assert PRESETS["tie-penalty"] == Ruleset(eggs="both-two", ending="last-standing")


def test_a_ruleset_can_be_varied_with_dataclasses_replace():
    rules = dataclasses.replace(CLASSIC, target=21, save_line=21)
    assert (rules.target, rules.save_line, rules.eggs) == (21, 21, "none")
    assert CLASSIC.target == 12


def test_a_ruleset_cannot_be_changed_once_made():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CLASSIC.target = 21  # type: ignore[misc]


def test_a_ruleset_knows_its_preset_name():
    assert Ruleset(eggs="stacking").preset_name == "eggs-stacking"
    assert Ruleset(target=21).preset_name is None


def test_a_ruleset_goes_to_plain_data_and_back():
    rules = Ruleset(target=21, save_line=21, naked="points", eggs="stacking", ending="first-out")
    assert Ruleset.from_dict(rules.to_dict()) == rules
    assert Ruleset.from_dict({}) == CLASSIC


def test_a_stored_ruleset_with_an_unknown_setting_is_refused():
    with pytest.raises(InvalidRuleset, match="colour"):
        Ruleset.from_dict({"colour": "red"})


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("naked", "cards"),
        ("eggs", "double"),
        ("eggs", None),
        ("ending", "sudden-death"),
        ("target", 0),
        ("target", 12.5),
        ("target", "12"),
        ("target", True),
        ("save_line", 61),
        ("save_line", 0),
        ("save_line_three", 61),
    ],
)
def test_an_unknown_house_rule_value_is_refused_clearly(setting, value):
    with pytest.raises(ValueError, match=setting) as caught:
        Ruleset(**{setting: value})
    assert isinstance(caught.value, InvalidRuleset)
