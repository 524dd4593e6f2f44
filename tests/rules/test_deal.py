"""One deal's input is checked (RULES.md, "Bad input is refused")."""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from fractions import Fraction

import pytest

from scoring.rules import Deal, InvalidDeal

# --- what is accepted ---------------------------------------------------------------------------


def test_a_deal_keeps_the_points_of_each_side_in_order():
    deal = Deal((70, 50))
    assert deal.points == (70, 50)
    assert deal.tricks is None


def test_points_given_as_a_list_are_kept_as_a_tuple():
    deal = Deal([40, 50, 30])
    assert deal.points == (40, 50, 30)
    assert type(deal.points) is tuple


def test_a_whole_number_written_as_a_float_is_taken_as_that_number():
    deal = Deal((60.0, 60))
    assert deal.points == (60, 60)
    assert all(type(number) is int for number in deal.points)


def test_tricks_may_be_left_out_when_no_side_has_0_points():
    assert Deal((2, 118)).took_trick == (True, True)
    assert Deal((20, 50, 50)).took_trick == (True, True, True)


def test_a_side_with_0_points_may_have_taken_a_trick_of_sixes_to_nines():
    deal = Deal((0, 120), (True, True))
    assert deal.took_trick == (True, True)


def test_a_side_with_0_points_may_have_taken_no_trick():
    deal = Deal((120, 0), (True, False))
    assert deal.took_trick == (True, False)


def test_tricks_given_as_a_list_are_kept_as_a_tuple():
    deal = Deal((0, 60, 60), [False, True, True])
    assert deal.tricks == (False, True, True)
    assert type(deal.tricks) is tuple


def test_tricks_may_be_given_even_when_no_side_has_0_points():
    assert Deal((70, 50), (True, True)).took_trick == (True, True)


def test_two_sides_can_each_have_0_points_in_a_three_way_deal():
    deal = Deal((0, 0, 120), (False, True, True))
    assert deal.took_trick == (False, True, True)


def test_sixty_all_is_eggs():
    assert Deal((60, 60)).is_eggs


@pytest.mark.parametrize("points", [(70, 50), (50, 70), (40, 40, 40), (60, 0, 60)])
def test_anything_else_is_not_eggs(points):
    tricks = tuple(number > 0 for number in points) if 0 in points else None
    assert not Deal(points, tricks).is_eggs


def test_equal_deals_are_equal_however_they_were_typed():
    assert Deal((70, 50)) == Deal([70, 50])
    assert hash(Deal((70, 50))) == hash(Deal([70.0, 50]))
    assert Deal((70, 50)) != Deal((50, 70))


def test_a_deal_cannot_be_changed_once_made():
    deal = Deal((70, 50))
    with pytest.raises(dataclasses.FrozenInstanceError):
        deal.points = (50, 70)  # type: ignore[misc]


def test_replacing_a_deals_tricks_checks_them_again():
    deal = Deal((120, 0), (True, True))
    assert dataclasses.replace(deal, tricks=(True, False)).took_trick == (True, False)
    with pytest.raises(InvalidDeal):
        dataclasses.replace(deal, tricks=None)


# --- what is refused, and why ------------------------------------------------------------------


def refusal(points, tricks=None) -> InvalidDeal:
    with pytest.raises(InvalidDeal) as caught:
        Deal(points, tricks)
    return caught.value


def test_a_refused_deal_is_a_value_error():
    assert issubclass(InvalidDeal, ValueError)
    with pytest.raises(ValueError):
        Deal((60, 61))


@pytest.mark.parametrize(
    "value",
    [60.5, "60", None, True, False, Decimal("60"), Fraction(121, 2), float("nan"), float("inf")],
)
def test_card_points_that_are_not_a_whole_number_are_refused(value):
    error = refusal((value, 60))
    assert "whole numbers" in str(error)
    assert error.side == 0


@pytest.mark.parametrize("value", [-1, 121, 240, -120.0, 10**30])
def test_card_points_outside_0_to_120_are_refused(value):
    error = refusal((60, value))
    assert "between 0 and 120" in str(error)
    assert error.side == 1


def test_a_number_too_long_to_print_is_still_refused_with_a_reason():
    error = refusal((10**5000, 0))
    assert "between 0 and 120" in str(error)


@pytest.mark.parametrize("points", [(60, 59), (61, 60), (0, 0), (120, 120), (40, 40, 39)])
def test_card_points_that_do_not_add_up_to_120_are_refused(points):
    error = refusal(points, tuple(number > 0 for number in points))
    assert "add up to" in str(error)
    assert str(sum(points)) in str(error)


@pytest.mark.parametrize(("points", "side"), [((1, 119), 0), ((119, 1), 0), ((59, 1, 60), 1)])
def test_one_point_or_119_points_are_refused_as_impossible(points, side):
    error = refusal(points)
    assert "impossible" in str(error)
    assert error.side == side


def test_119_for_the_second_side_is_named_when_the_first_is_fine():
    error = refusal((0, 119, 1), (True, True, True))
    assert "impossible" in str(error)
    assert error.side == 1


@pytest.mark.parametrize(("points", "side"), [((70, 50), 1), ((50, 70), 0), ((40, 40, 40), 2)])
def test_a_side_with_points_but_no_trick_is_refused(points, side):
    tricks = tuple(index != side for index in range(len(points)))
    error = refusal(points, tricks)
    assert "took at least one trick" in str(error)
    assert error.side == side


@pytest.mark.parametrize(("points", "side"), [((0, 120), 0), ((120, 0), 1), ((60, 0, 60), 1)])
def test_a_side_with_0_points_and_no_answer_about_tricks_is_refused(points, side):
    error = refusal(points)
    assert "Say whether the side with 0 points took a trick" in str(error)
    assert error.side == side


@pytest.mark.parametrize("tricks", [(True,), (True, True, True), "yes", True, 1, {"0": True}])
def test_tricks_that_do_not_answer_for_each_side_are_refused(tricks):
    error = refusal((120, 0), tricks)
    assert "for each of the 2 sides" in str(error)


@pytest.mark.parametrize("answer", [1, 0, "no", None])
def test_a_trick_answer_that_is_not_yes_or_no_is_refused(answer):
    error = refusal((120, 0), (True, answer))
    assert "yes or no" in str(error)
    assert error.side == 1


@pytest.mark.parametrize("points", [(), (120,), (30, 30, 30, 30), (0, 0, 0, 60, 60)])
def test_a_deal_for_fewer_than_two_or_more_than_three_sides_is_refused(points):
    error = refusal(points)
    assert "two or three sides" in str(error)
    assert str(len(points)) in str(error)


@pytest.mark.parametrize("points", [None, 120, "60 60", b"<x", {60, 61}, range(10**30)])
def test_points_that_are_not_one_number_per_side_are_refused(points):
    assert isinstance(refusal(points), InvalidDeal)


def test_a_refusal_about_one_side_says_whether_it_is_its_points_or_its_tricks():
    assert refusal((61.5, 58.5)).field == "points"
    assert refusal((120, 0)).field == "tricks"
    assert refusal((120, 0), (True, 0)).field == "tricks"


def test_a_refusal_of_the_deal_as_a_whole_names_no_side():
    error = refusal((50, 50))
    assert error.side is None
    assert error.number is None


def test_a_refusal_keeps_its_message_untranslated_with_its_values_apart():
    error = refusal((50, 50))
    assert error.template == "The card points add up to %(total)s, but every deal has 120 in all."
    assert error.params == {"total": 100}
    translated = error.render(lambda text: text.replace("The card points add up to", "Всего"))
    assert translated == "Всего 100, but every deal has 120 in all."
