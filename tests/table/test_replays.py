"""The bridge between stored deal rows and the engine."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.models import Deal
from scoring.table.replays import (
    OTHER_SIDES,
    engine_series,
    entered_sides,
    replay_rows,
    row_snapshot,
    row_values,
)
from tests.helpers import record, start_series

pytestmark = pytest.mark.django_db


def rows(series) -> list[Deal]:
    return list(Deal.objects.filter(series=series).order_by("number"))


def test_stored_rows_replay_like_the_engine_replays_their_points(quick_series):
    for points in [(90, 30), (60, 60), (0, 120)]:
        record(quick_series, points, None if 0 not in points else (False, True))
    state = replay_rows(quick_series, rows(quick_series))
    expected = rules.replay(2, [(90, 30), (60, 60), rules.Deal((0, 120), (False, True))])
    assert state.totals == expected.totals
    assert state.eggs == 1


def test_a_side_that_is_out_is_stored_as_empty_and_skipped_in_the_replay(db):
    series = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    for _ in range(2):
        record(series, (0, 60, 60), (False, True, True))  # Ira: +6 each time, out at 12
    assert series.finished is False
    record(series, (60, 60))  # two sides left
    first, *_, last = rows(series)
    assert last.points == (None, 60, 60)
    assert entered_sides(last) == (1, 2)
    assert entered_sides(first) == (0, 1, 2)
    assert replay_rows(series, rows(series)).in_play == (1, 2)


def test_a_row_for_other_players_than_those_in_play_is_refused_naming_its_deal(db):
    series = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    record(series, (0, 60, 60), (False, True, True))
    record(series, (0, 60, 60), (False, True, True))  # Ira out at 12
    record(series, (60, 60))
    stored = rows(series)
    # As if an edit had put Kolya out instead of Ira: the third row no longer fits.
    for stored_row in stored[:2]:
        stored_row.points_0, stored_row.points_1 = 60, 0
        stored_row.tricks_0, stored_row.tricks_1 = True, False
    with pytest.raises(rules.InvalidDeal) as caught:
        replay_rows(series, stored)
    assert caught.value.number == 3
    assert caught.value.template == OTHER_SIDES
    assert str(caught.value).startswith("Deal 3: ")


def row(number: int, points, tricks) -> Deal:
    """An unsaved deal row with these columns (None for a side that is out)."""
    values = {f"points_{side}": value for side, value in enumerate(points)}
    values.update({f"tricks_{side}": value for side, value in enumerate(tricks)})
    return Deal(number=number, **values)


def test_a_row_with_more_sides_than_are_in_play_gets_the_engines_message(db):
    series = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    out_twice = [row(n, (0, 60, 60), (False, True, True)) for n in (1, 2)]  # Ira out at 12
    with pytest.raises(rules.InvalidDeal) as caught:
        replay_rows(series, [*out_twice, row(3, (40, 40, 40), (True, True, True))])
    assert caught.value.number == 3
    assert "2 sides are in play, but this deal has points for 3" in str(caught.value)


def test_a_row_with_fewer_sides_than_are_in_play_gets_the_engines_message(db):
    series = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    with pytest.raises(rules.InvalidDeal) as caught:
        replay_rows(series, [row(1, (None, 60, 60), (None, True, True))])
    assert caught.value.number == 1
    assert "3 sides are in play, but this deal has points for 2" in str(caught.value)


def test_a_row_after_the_end_of_the_series_is_refused_naming_its_deal(quick_series):
    for _ in range(2):
        record(quick_series, (0, 120), (False, True))
    assert quick_series.finished
    stored = rows(quick_series)
    extra = Deal(series=quick_series, number=3, points_0=90, points_1=30)
    extra.tricks_0 = extra.tricks_1 = True
    with pytest.raises(rules.InvalidDeal) as caught:
        replay_rows(quick_series, [*stored, extra])
    assert caught.value.number == 3
    assert "The series is over" in str(caught.value)


def test_a_row_no_form_could_write_is_refused_naming_its_deal(quick_series):
    odd = Deal(series=quick_series, number=1, points_0=120, tricks_0=True)
    with pytest.raises(rules.InvalidDeal) as caught:
        engine_series(quick_series, [odd])
    assert caught.value.number == 1


def test_row_values_put_points_on_the_original_sides_and_refuse_a_mismatch():
    deal = rules.Deal((0, 120), (False, True))
    assert row_values(deal, (1, 2)) == {
        "points_0": None,
        "points_1": 0,
        "points_2": 120,
        "tricks_0": None,
        "tricks_1": False,
        "tricks_2": True,
    }
    with pytest.raises(ValueError):
        row_values(deal, (0, 1, 2))


def test_a_snapshot_is_plain_data_for_the_audit_trail(quick_series):
    record(quick_series, (90, 30))
    assert row_snapshot(rows(quick_series)[0]) == {
        "points": [90, 30, None],
        "tricks": [True, True, None],
    }
