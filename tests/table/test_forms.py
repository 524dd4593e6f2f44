"""Parsing what a player typed: a new game, and one deal's card points."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.table.forms import DealForm, SeriesForm, UndoForm, series_initial
from tests.helpers import NEW_GAME

TEAM_SIDES = [(0, "Anna & Vera"), (1, "Boris & Gleb")]
THREE_SIDES = [(0, "Ira"), (1, "Kolya"), (2, "Lida")]


def new_game(**fields) -> SeriesForm:
    data = {**NEW_GAME, **fields}
    return SeriesForm({key: value for key, value in data.items() if value is not None})


def deal(sides=TEAM_SIDES, entry=True, **fields) -> DealForm:
    data = {"number": "1", **fields} if entry else fields
    return DealForm(data, sides=sides, entry=entry)


# A new game


def test_a_new_game_needs_only_mode_names_dealer_and_a_preset():
    form = new_game()
    assert form.is_valid(), form.errors
    assert form.cleaned_data["names"] == ["Anna", "Boris", "Vera", "Gleb"]
    assert form.cleaned_data["ruleset"] == rules.PRESETS["classic"]


def test_names_are_trimmed_and_inner_spaces_collapsed():
    form = new_game(player_0="  Anna   Petrova ")
    assert form.is_valid()
    assert form.cleaned_data["names"][0] == "Anna Petrova"


def test_two_players_fill_the_first_two_seats_and_the_rest_is_ignored():
    form = new_game(mode="duel", player_2="", player_3="Anna")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["names"] == ["Anna", "Boris"]


def test_every_seat_of_the_mode_needs_a_name():
    form = new_game(mode="three", player_1="   ")
    assert not form.is_valid()
    assert form.errors["player_1"] == ["Enter a name for this seat."]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Anna", "ANNA"),
        ("Анна", "АННА"),
        ("Straße", "STRASSE"),
        ("straße", "STRAẞE"),
        ("İlker", "ilker"),
        ("Işık", "IŞIK"),
        ("ハナ", "ﾊﾅ"),
        ("Anna Petrova", " anna  petrova"),
    ],
)
def test_a_player_cannot_take_two_seats_whatever_the_case(first, second):
    form = new_game(player_0=first, player_2=second)
    assert not form.is_valid()
    assert form.errors["player_2"] == ["This player already has a seat."]


def test_names_that_only_look_alike_are_two_players():
    assert new_game(player_0="ハナ", player_2="はな").is_valid()  # katakana, hiragana
    assert new_game(player_0="Алёна", player_2="Алена").is_valid()  # ё is its own letter


def test_the_first_dealer_sits_at_the_table():
    form = new_game(mode="three", first_dealer="3")
    assert not form.is_valid()
    assert form.errors["first_dealer"] == ["Pick one of the players at the table."]


@pytest.mark.parametrize("mode", ["", "poker"])
def test_an_unknown_mode_is_refused(mode):
    assert "mode" in new_game(mode=mode).errors


def test_custom_house_rules_are_built_and_missing_ones_are_classic():
    form = new_game(preset="custom", target="21", eggs="stacking", naked="", save_line=None)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["ruleset"] == rules.Ruleset(target=21, eggs="stacking")


def test_broken_custom_fields_do_not_matter_with_a_preset():
    form = new_game(preset="eggs-double", target="lots", eggs="never")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["ruleset"] == rules.PRESETS["eggs-double"]


def test_broken_custom_fields_are_refused_with_custom_rules():
    form = new_game(preset="custom", target="0")
    assert not form.is_valid()
    assert "target" in form.errors


def test_a_filled_in_form_repeats_a_table():
    initial = series_initial(
        mode="three",
        names=["Ira", "Kolya", "Lida"],
        first_dealer=2,
        ruleset=rules.Ruleset(target=21),
    )
    assert initial["preset"] == "custom"
    assert initial["target"] == 21
    assert [initial[f"player_{i}"] for i in range(3)] == ["Ira", "Kolya", "Lida"]
    form = SeriesForm({key: str(value) for key, value in initial.items()})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["ruleset"] == rules.Ruleset(target=21)


# One deal


def test_the_side_left_empty_gets_the_rest_of_120():
    form = deal(points_0="70")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["points"] == (70, 50)


def test_three_players_type_two_numbers_and_the_third_is_computed():
    form = deal(THREE_SIDES, points_0="50", points_2="40")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["points"] == (50, 30, 40)


def test_two_sides_left_empty_ask_for_the_first_of_them():
    form = deal(THREE_SIDES, points_1="50")
    assert not form.is_valid()
    assert form.errors["points_0"] == ["Enter the card points of this side."]


def test_a_side_with_0_points_must_say_whether_it_took_a_trick():
    form = deal(points_0="0")
    assert not form.is_valid()
    assert form.errors["tricks_0"] == ["Say whether the side with 0 points took a trick."]


@pytest.mark.parametrize(("answer", "tricks"), [("yes", (True, True)), ("no", (False, True))])
def test_the_trick_answer_of_a_side_with_0_points_is_kept(answer, tricks):
    form = deal(points_0="0", tricks_0=answer)
    assert form.is_valid(), form.errors
    assert form.cleaned_data["tricks"] == tricks


def test_a_side_with_points_cannot_have_taken_no_trick():
    form = deal(points_0="30", tricks_0="no")
    assert not form.is_valid()
    assert form.errors["tricks_0"] == ["A side with 30 card points took at least one trick."]


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"points_0": "1"}, "points_0", "1 is impossible: no set of cards is worth that."),
        ({"points_0": "119"}, "points_0", "119 is impossible: no set of cards is worth that."),
        ({"points_0": "ten"}, "points_0", "Card points are whole numbers."),
        ({"points_0": "-5"}, "points_0", "Card points are between 0 and 120."),
        ({"points_0": "9" * 5000}, "points_0", "Card points are whole numbers."),
        ({"points_0": "121"}, "points_0", "Card points are between 0 and 120."),
    ],
)
def test_bad_points_get_a_message_beside_their_field(fields, field, message):
    form = deal(**fields)
    assert not form.is_valid()
    assert form.errors[field] == [message]


def test_points_that_do_not_add_up_to_120_are_refused_above_the_fields():
    form = deal(points_0="70", points_1="60")
    assert not form.is_valid()
    assert form.non_field_errors() == [
        "The card points add up to 130, but every deal has 120 in all."
    ]


def test_three_sides_past_120_before_the_third_say_so_instead_of_a_negative_number():
    form = deal(THREE_SIDES, points_0="100", points_1="100")
    assert not form.is_valid()
    assert "add up to 200" in form.non_field_errors()[0]


def test_points_for_a_side_that_is_not_in_play_are_refused():
    form = deal(points_0="60", points_1="30", points_2="30")
    assert not form.is_valid()
    assert form.non_field_errors() == ["2 sides are in play, but this deal has points for 3."]


def test_the_card_counter_fills_the_first_sides_points():
    form = deal(count_A="4", count_10="2", count_K="1")  # 44 + 20 + 4
    assert form.is_valid(), form.errors
    assert form.cleaned_data["points"] == (68, 52)


def test_typed_points_win_over_the_card_counter():
    form = deal(points_0="70", count_A="4")
    assert form.is_valid()
    assert form.cleaned_data["points"] == (70, 50)


def test_the_card_counter_counts_at_most_four_of_a_rank():
    form = deal(count_A="5")
    assert not form.is_valid()
    assert "count_A" in form.errors


@pytest.mark.parametrize("number", [None, "0", "x", "99999"])
def test_a_tampered_deal_number_says_the_form_is_out_of_date(number):
    fields = {"points_0": "70"}
    if number is not None:
        fields["number"] = number
    form = DealForm(fields, sides=TEAM_SIDES)
    assert not form.is_valid()
    assert form.top_errors() == [
        "This form is out of date: reload the page and enter the deal again."
    ]


def test_an_edit_form_has_no_number_or_entry_key_but_the_version_it_was_shown_at():
    form = deal(entry=False, points_0="70", version="7")
    assert "number" not in form.fields and "entry_key" not in form.fields
    assert form.is_valid(), form.errors
    assert form.cleaned_data["version"] == 7
    assert "version" not in deal(points_0="70").fields  # entering a deal uses its number


@pytest.mark.parametrize("version", [None, "", "-1", "x", "²", "9" * 5000])
def test_an_edit_form_without_a_good_version_is_out_of_date(version):
    fields = {"points_0": "70"} if version is None else {"points_0": "70", "version": version}
    form = deal(entry=False, **fields)
    assert not form.is_valid()
    assert "This form is out of date" in form.top_errors()[0]


def test_undo_takes_a_whole_deal_number_in_range_and_the_version_it_was_shown_at():
    assert UndoForm({"number": "3", "version": "0"}).is_valid()
    assert UndoForm({"number": "301", "version": "0"}).is_valid()  # a series from before the cap
    for bad in ["", "0", "²", "9" * 5000, "2147483648"]:
        assert not UndoForm({"number": bad, "version": "5"}).is_valid()
    for bad in ["", "-1", "²", "9" * 5000, "2147483648"]:
        assert not UndoForm({"number": "3", "version": bad}).is_valid()
    assert not UndoForm({"number": "3"}).is_valid()
