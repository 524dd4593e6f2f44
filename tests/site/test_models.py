"""The database itself refuses what the rules and the table never allow."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from scoring.models import Deal, Player, Seat, Series
from tests.helpers import record, start_series

pytestmark = pytest.mark.django_db


def deal(series: Series, number: int = 1, **values) -> Deal:
    fields = {"points_0": 60, "points_1": 60, "tricks_0": True, "tricks_1": True, **values}
    return Deal.objects.create(series=series, number=number, **fields)


def refused(make) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_a_series_has_one_deal_of_each_number(quick_series):
    deal(quick_series, 1)
    refused(lambda: deal(quick_series, 1, points_0=70, points_1=50))
    assert quick_series.deals.count() == 1


def test_two_series_may_each_have_a_deal_one(quick_series):
    other = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    deal(quick_series, 1)
    deal(other, 1)
    assert Deal.objects.filter(number=1).count() == 2


def test_deal_numbers_start_at_one(quick_series):
    refused(lambda: deal(quick_series, 0))


@pytest.mark.parametrize("points", [(121, 0), (130, -10)])
def test_card_points_above_120_or_below_0_are_refused(quick_series, points):
    refused(lambda: deal(quick_series, points_0=points[0], points_1=points[1]))


@pytest.mark.parametrize("points", [(60, 59), (61, 61), (0, 0), (120, 1)])
def test_card_points_must_add_up_to_120(quick_series, points):
    refused(lambda: deal(quick_series, points_0=points[0], points_1=points[1]))


def test_three_sides_add_up_to_120_with_a_side_out_as_null(db):
    series = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    deal(series, 1, points_0=40, points_1=40, points_2=40, tricks_2=True)
    deal(series, 2, points_0=None, points_1=60, points_2=60, tricks_0=None, tricks_2=True)
    refused(lambda: deal(series, 3, points_0=None, points_1=60, points_2=59, tricks_2=True))
    assert series.deals.count() == 2


def test_the_same_entry_key_cannot_record_two_deals(quick_series):
    import uuid

    key = uuid.uuid4()
    deal(quick_series, 1, entry_key=key)
    refused(lambda: deal(quick_series, 2, entry_key=key))


def test_a_seat_holds_one_player_and_a_player_one_seat(quick_series):
    anna = quick_series.seats.get(position=0).player
    boris = quick_series.seats.get(position=1).player
    refused(lambda: Seat.objects.create(series=quick_series, player=boris, position=0, side=0))
    refused(lambda: Seat.objects.create(series=quick_series, player=anna, position=3, side=1))


def test_seat_positions_and_sides_stay_on_the_table(quick_series):
    newcomer = Player.objects.create(name="Zoya")
    refused(lambda: Seat.objects.create(series=quick_series, player=newcomer, position=4, side=0))
    refused(lambda: Seat.objects.create(series=quick_series, player=newcomer, position=3, side=3))


def test_a_series_has_a_known_mode_and_a_dealer_at_the_table(db):
    refused(lambda: Series.objects.create(mode="poker"))
    refused(lambda: Series.objects.create(mode="teams", first_dealer=4))


def test_a_player_needs_a_name_unique_in_a_league_whatever_the_case(league):
    Player.objects.create(name="Anna", league=league)
    refused(lambda: Player.objects.create(name="", league=league))
    refused(lambda: Player.objects.create(name="ANNA", league=league))


def test_stored_deal_exposes_points_and_tricks_per_original_side(quick_series):
    series = record(quick_series, (90, 30))
    row = series.deals.get()
    assert row.points == (90, 30, None)
    assert row.tricks == (True, True, None)
    assert str(row) == f"Deal 1 of series {series.pk}"
