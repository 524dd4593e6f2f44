"""What the scoreboard shows: names, totals, the way to the target, words for each deal."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.models import Deal
from scoring.table.scoreboard import build, goat_title, side_names
from scoring.table.selectors import series_with_seats
from tests.helpers import THREE, record, start_series

pytestmark = pytest.mark.django_db


def board(series):
    series = series_with_seats(series.pk)
    return build(series, list(Deal.objects.filter(series=series).order_by("number")))


def test_teams_are_named_by_both_partners_and_players_by_their_name(quick_series):
    seats = list(quick_series.seats.select_related("player").order_by("position"))
    assert side_names(seats, 2) == ["Anna & Vera", "Boris & Gleb"]
    three = start_series(mode="three", names=THREE)
    seats = list(three.seats.select_related("player").order_by("position"))
    assert side_names(seats, 3) == ["Ira", "Kolya", "Lida"]


def test_each_side_shows_its_total_and_the_way_to_the_target(quick_series):
    record(quick_series, (100, 20))  # Boris & Gleb +4
    shown = board(quick_series)
    right = shown.sides[1]
    assert (right.name, right.total, right.to_target, right.bar) == ("Boris & Gleb", 4, 8, 4)
    assert shown.sides[0].total == 0 and shown.sides[0].to_target == 12
    assert shown.next_number == 2


@pytest.mark.parametrize(
    ("points", "tricks", "words"),
    [
        ((80, 40), None, "Boris & Gleb lost: +2."),
        ((100, 20), None, "Boris & Gleb lost: +4."),
        ((120, 0), (True, False), "Boris & Gleb lost naked: +6."),
        ((0, 120), (True, True), "Anna & Vera lost: +4."),
        ((60, 60), None, "Eggs! 60:60."),
    ],
)
def test_a_deal_is_told_in_words(quick_series, points, tricks, words):
    record(quick_series, points, tricks)
    assert board(quick_series).last.summary == words


def test_eggs_that_double_the_next_deal_say_so_on_that_deal(db):
    series = start_series(ruleset=rules.PRESETS["eggs-double"])
    record(series, (60, 60))
    shown = board(series)
    assert shown.state.multiplier == 2
    assert shown.state.eggs == 1
    record(series, (100, 20))
    assert board(series).last.summary == "Boris & Gleb lost: +8. (×2 for the eggs.)"


def test_eggs_that_give_both_sides_two_name_both(db):
    series = start_series(ruleset=rules.PRESETS["tie-penalty"])
    record(series, (60, 60))
    assert board(series).last.summary == "Eggs! 60:60. Anna & Vera: +2. Boris & Gleb: +2."


def test_the_deal_list_carries_points_defeat_and_running_totals(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (0, 120), (False, True))
    rows = board(quick_series).deals
    assert [row.number for row in rows] == [1, 2]
    assert rows[1].cells[0] == {"points": 0, "defeat": 6, "total": 6, "naked": True}
    assert rows[1].cells[1] == {"points": 120, "defeat": 0, "total": 2, "naked": False}


def test_naked_by_points_tags_0_points_with_a_trick_as_naked(db):
    series = start_series(ruleset=rules.Ruleset(naked="points"))
    record(series, (0, 120), (True, True))
    shown = board(series)
    assert shown.last.summary == "Anna & Vera lost naked: +6."
    assert shown.last.cells[0] == {"points": 0, "defeat": 6, "total": 6, "naked": True}


def test_the_dealer_moves_clockwise_and_the_first_leader_sits_to_the_dealers_left(db):
    series = start_series(first_dealer=3)
    shown = board(series)
    assert (shown.dealer, shown.leader) == ("Gleb", "Anna")
    record(series, (80, 40))
    shown = board(series)
    assert shown.dealer == "Anna"
    assert shown.leader is None  # whoever took the last trick: not recorded


def test_a_player_who_is_out_no_longer_deals(db):
    series = start_series(mode="three", names=THREE, first_dealer=2)
    record(series, (0, 60, 60), (False, True, True))  # Lida deals first, then Ira
    assert board(series).dealer == "Ira"
    record(series, (0, 60, 60), (False, True, True))  # Ira out
    assert board(series).dealer == "Kolya"
    record(series, (70, 50))
    shown = board(series)
    assert shown.dealer == "Lida"  # and then Kolya again: Ira's seat is skipped
    assert [side.name for side in shown.in_play] == ["Kolya", "Lida"]
    assert shown.sides[0].out and shown.sides[0].goat


def test_a_player_going_out_is_told(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    record(series, (0, 60, 60), (False, True, True))
    assert board(series).last.summary == "Ira: +6 (naked). Kolya: +2. Lida: +2. Ira: out!"


def test_the_end_names_the_goat_and_the_winner(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    shown = board(quick_series)
    assert shown.state.finished
    assert (shown.dealer, shown.leader) == (None, None)
    assert goat_title(shown) == "Anna & Vera: the goat!"
    assert shown.winner == "Boris & Gleb"


def test_the_goat_of_a_series_with_eggs_is_a_goat_with_eggs(quick_series):
    record(quick_series, (60, 60))
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    assert goat_title(board(quick_series)) == "Anna & Vera: goat with eggs!"


def test_several_goats_at_once_are_goats(db):
    series = start_series(mode="three", names=THREE, ruleset=rules.Ruleset(ending="first-out"))
    for _ in range(2):
        record(series, (120, 0, 0), (True, False, False))  # Kolya and Lida +6 each time
    shown = board(series)
    assert shown.state.goats == (1, 2)
    assert goat_title(shown) == "Kolya and Lida: the goats!"
    assert shown.winner == "Ira"
