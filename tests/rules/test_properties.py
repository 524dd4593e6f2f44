"""Properties of the engine that hold for every deal and every series (Hypothesis)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules import (
    EGGS_CHOICES,
    ENDING_CHOICES,
    NAKED_CHOICES,
    POSSIBLE_SIDE_POINTS,
    PRESETS,
    Deal,
    InvalidDeal,
    Ruleset,
    replay,
    score_deal,
)
from scoring.rules.series import Series

SIDE_POINTS = sorted(POSSIBLE_SIDE_POINTS)
THREE_WAY_SPLITS = [
    (a, b, 120 - a - b)
    for a in range(121)
    for b in range(121 - a)
    if not {1, 119} & {a, b, 120 - a - b}
]

# --- strategies ----------------------------------------------------------------------------------

rulesets = st.one_of(
    st.sampled_from(list(PRESETS.values())),
    st.builds(
        Ruleset,
        target=st.integers(1, 40),
        save_line=st.integers(1, 60),
        save_line_three=st.integers(1, 60),
        naked=st.sampled_from(NAKED_CHOICES),
        eggs=st.sampled_from(EGGS_CHOICES),
        ending=st.sampled_from(ENDING_CHOICES),
    ),
)


@st.composite
def deals(draw, sides: int) -> Deal:
    """A valid deal for ``sides`` sides, eggs and sides with 0 points included often enough."""
    if sides == 2:
        first = draw(st.one_of(st.sampled_from(SIDE_POINTS), st.sampled_from([0, 60, 60, 120])))
        points: tuple[int, ...] = (first, 120 - first)
    else:
        points = draw(st.sampled_from(THREE_WAY_SPLITS))
    if 0 not in points and draw(st.booleans()):
        return Deal(points)
    return Deal(points, tuple(number > 0 or draw(st.booleans()) for number in points))


@st.composite
def series(draw, max_deals: int | None = 40):
    """(sides, rules, deals, states): a series played deal by deal; states[k] is after k deals.

    With ``max_deals=None`` the series is played to its end.
    """
    sides = draw(st.sampled_from([2, 3]))
    rules = draw(rulesets)
    length = 10**6 if max_deals is None else draw(st.integers(0, max_deals))
    running = Series(sides, rules=rules)
    played = []
    states = [running.state]
    while not running.finished and len(played) < length:
        deal = draw(deals(len(running.in_play)))
        running.add(deal)
        played.append(deal)
        states.append(running.state)
    return sides, rules, played, states


# Anything at all, with the values that break naive code (huge, NaN, infinities, look-alikes).
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-2, 122),
    st.sampled_from([0, 1, 59, 60, 61, 119, 120]),
    st.builds(pow, st.sampled_from([10, -10]), st.sampled_from([30, 5001])),  # too long to print
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([60.0, -0.0, 120.0, math.inf, math.nan, 1e300]),
    st.text(max_size=4),
    st.binary(max_size=4),
    st.decimals(allow_nan=True, allow_infinity=True),
    st.fractions(),
    st.complex_numbers(),
)
garbage = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.tuples(inner, inner, inner),
        st.dictionaries(st.text(max_size=2), inner, max_size=3),
        st.frozensets(st.integers(-2, 122), max_size=4),
    ),
    max_leaves=8,
)
near_points = st.one_of(
    st.tuples(st.integers(-2, 122), st.integers(-2, 122)),
    st.tuples(st.integers(-2, 122), st.integers(-2, 122), st.integers(-2, 122)),
    st.lists(st.sampled_from([0, 1, 40, 60, 119, 120, 60.0, True]), max_size=4),
)
near_tricks = st.one_of(
    st.none(),
    st.lists(st.booleans(), max_size=4),
    st.tuples(st.booleans(), st.booleans()),
    st.tuples(st.booleans(), st.booleans(), st.booleans()),
    st.lists(st.sampled_from([True, False, 0, 1, None]), max_size=3),
)


# --- replaying -----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(series())
def test_replaying_a_prefix_gives_the_state_after_that_prefix(played):
    sides, rules, deals_played, states = played
    for count, state in enumerate(states):
        assert replay(sides, deals_played[:count], rules=rules) == state


@settings(max_examples=150, deadline=None)
@given(series())
def test_totals_are_the_sum_of_each_deals_defeat_points(played):
    sides, rules, deals_played, _ = played
    state = replay(sides, deals_played, rules=rules)
    assert state.totals == tuple(
        sum(outcome.defeat[side] for outcome in state.deals) for side in range(sides)
    )
    for outcome in state.deals:
        assert outcome.totals == tuple(
            sum(earlier.defeat[side] for earlier in state.deals[: outcome.number])
            for side in range(sides)
        )


@settings(max_examples=150, deadline=None)
@given(series())
def test_a_series_state_is_consistent(played):
    sides, rules, deals_played, _ = played
    state = replay(sides, deals_played, rules=rules)
    assert len(state.deals) == len(deals_played)
    assert sorted(state.in_play + state.out) == list(range(sides))
    assert all(state.totals[side] >= rules.target for side in state.out)
    assert set(state.goats) <= set(state.out)
    first_out = next((outcome.out for outcome in state.deals if outcome.out), ())
    assert state.goats == first_out
    assert state.finished == (
        len(state.in_play) == 1 or (bool(state.out) and rules.ending == "first-out")
    )
    if state.winner is not None:
        assert state.finished
        assert state.winner in state.in_play
        assert state.winner not in state.goats
    if state.finished and len(state.in_play) == 1:
        assert state.winner == state.in_play[0]
    assert state.eggs == sum(outcome.eggs for outcome in state.deals)
    assert state.multiplier >= 1
    if rules.eggs in ("none", "both-two"):
        assert all(outcome.multiplier == 1 for outcome in state.deals)
        assert state.multiplier == 1


@settings(max_examples=150, deadline=None)
@given(series(max_deals=None))
def test_a_deal_after_the_end_is_refused_naming_it(played):
    sides, rules, deals_played, states = played
    assert states[-1].finished
    extra = Deal((60, 60))
    with pytest.raises(InvalidDeal) as caught:
        replay(sides, [*deals_played, extra], rules=rules)
    assert caught.value.number == len(deals_played) + 1
    assert str(caught.value).startswith(f"Deal {len(deals_played) + 1}: ")


@settings(max_examples=150, deadline=None)
@given(series(), garbage)
def test_a_refused_deal_leaves_the_series_as_it_was(played, junk):
    sides, rules, deals_played, states = played
    running = Series(sides, rules=rules)
    for deal in deals_played:
        running.add(deal)
    try:
        outcome = running.add(junk)
    except InvalidDeal:
        assert running.state == states[-1]
    else:
        assert outcome.number == len(deals_played) + 1
        assert running.state.deals[:-1] == states[-1].deals


# --- one deal ------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.data(), rulesets, st.integers(1, 10))
def test_a_two_side_deal_that_is_not_eggs_charges_one_side_two_four_or_six(data, rules, times):
    deal = data.draw(deals(2).filter(lambda deal: not deal.is_eggs))
    defeat = score_deal(deal, rules=rules, multiplier=times).defeat
    loser = 0 if deal.points[0] < deal.points[1] else 1
    assert defeat[1 - loser] == 0
    assert defeat[loser] in {2 * times, 4 * times, 6 * times}


@settings(max_examples=150, deadline=None)
@given(series())
def test_in_a_series_a_two_side_deal_that_is_not_eggs_charges_one_side(played):
    states = played[-1]
    for outcome in states[-1].deals:
        if len(outcome.in_play) == 2 and not outcome.eggs:
            charged = [value for value in outcome.defeat if value]
            assert len(charged) == 1
            assert charged[0] in {
                2 * outcome.multiplier,
                4 * outcome.multiplier,
                6 * outcome.multiplier,
            }


@settings(max_examples=300, deadline=None)
@given(st.data(), rulesets)
def test_a_three_side_deal_charges_everyone_but_a_lone_top_side(data, rules):
    deal = data.draw(deals(3))
    defeat = score_deal(deal, rules=rules).defeat
    top = max(deal.points)
    for points, value in zip(deal.points, defeat, strict=True):
        if points == top:
            assert value == (0 if deal.points.count(top) == 1 else 2)
        else:
            assert value in {2, 4, 6}


@settings(max_examples=100, deadline=None)
@given(rulesets)
def test_eggs_score_two_each_or_nothing(rules):
    score = score_deal((60, 60), rules=rules)
    assert score.eggs
    assert score.defeat == ((2, 2) if rules.eggs == "both-two" else (0, 0))


def test_every_two_way_split_but_1_and_119_is_accepted_and_those_refused():
    for first in range(121):
        points = (first, 120 - first)
        tricks = (True, True)
        if first in (1, 119):
            with pytest.raises(InvalidDeal, match="impossible"):
                Deal(points, tricks)
        else:
            assert Deal(points, tricks).points == points


def test_every_three_way_split_avoiding_1_and_119_is_accepted_and_the_rest_refused():
    for a in range(121):
        for b in range(121 - a):
            points = (a, b, 120 - a - b)
            tricks = (True, True, True)
            if {1, 119} & set(points):
                with pytest.raises(InvalidDeal, match="impossible"):
                    Deal(points, tricks)
            else:
                assert Deal(points, tricks).points == points


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-200, 300), min_size=2, max_size=3))
def test_any_whole_numbers_are_accepted_exactly_when_they_are_a_possible_split(points):
    possible = (
        sum(points) == 120
        and all(0 <= number <= 120 for number in points)
        and not {1, 119} & set(points)
    )
    try:
        deal = Deal(points, [True] * len(points))
    except InvalidDeal:
        assert not possible
    else:
        assert possible
        assert deal.points == tuple(points)


@pytest.mark.slow  # fed garbage by the hundred (fuzzing): make test runs it
@settings(max_examples=300, deadline=None)
@given(st.one_of(near_points, garbage), st.one_of(near_tricks, garbage))
def test_a_deal_is_judged_the_same_whether_typed_as_a_tuple_or_a_list(points, tricks):
    as_list = list(points) if isinstance(points, tuple) else points
    as_tuple = tuple(points) if isinstance(points, list) else points
    outcomes = []
    for typed in (as_tuple, as_list):
        try:
            outcomes.append(Deal(typed, tricks))
        except InvalidDeal as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


# --- garbage in: only ever InvalidDeal out -------------------------------------------------------


@pytest.mark.slow  # fed garbage by the hundred (fuzzing): make test runs it
@settings(max_examples=300, deadline=None)
@given(st.one_of(near_points, garbage), st.one_of(near_tricks, garbage))
def test_garbage_given_to_deal_only_ever_raises_invalid_deal(points, tricks):
    try:
        deal = Deal(points, tricks)
    except InvalidDeal as error:
        assert str(error)
    else:
        assert sum(deal.points) == 120
        assert all(type(number) is int for number in deal.points)


@pytest.mark.slow  # fed garbage by the hundred (fuzzing): make test runs it
@settings(max_examples=300, deadline=None)
@given(
    st.one_of(near_points, garbage),
    st.one_of(near_tricks, garbage),
    st.one_of(st.integers(-2, 5), garbage),
)
def test_garbage_given_to_score_deal_only_ever_raises_invalid_deal(points, tricks, multiplier):
    try:
        score = score_deal(points, tricks, multiplier=multiplier)
    except InvalidDeal as error:
        assert str(error)
    else:
        assert len(score.defeat) == len(tuple(points))
        assert all(type(value) is int and value >= 0 for value in score.defeat)


@pytest.mark.slow  # fed garbage by the hundred (fuzzing): make test runs it
@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(-1, 5), garbage),
    st.one_of(st.lists(st.one_of(near_points, garbage), max_size=5), garbage),
    rulesets,
)
def test_garbage_given_to_replay_only_ever_raises_invalid_deal(sides, deals_given, rules):
    try:
        state = replay(sides, deals_given, rules=rules)
    except InvalidDeal as error:
        assert str(error)
    else:
        assert len(state.totals) in (2, 3)
