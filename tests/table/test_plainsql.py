"""The plain queries of the deal-entry path (``scoring.plainsql``) give what the ORM gives."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from scoring import plainsql
from scoring.models import Deal, DealEvent, Seat, Series
from scoring.table import selectors, services
from tests.helpers import SIDE_0_LOSES, TEAMS, assert_stored_matches_replay, record, start_series

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {
        field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields
    }


def test_a_series_row_is_the_orms_row_field_by_field():
    series = record(start_series(), SIDE_0_LOSES)
    plain = selectors.series_row(series.pk)
    assert plain is not None
    assert _fields(plain) == _fields(Series.objects.get(pk=series.pk))
    assert plain._state.adding is False and plain._state.db == "default"
    assert selectors.series_row(series.pk + 1000) is None


def test_a_locked_series_row_is_the_same_row():
    series = record(start_series(), SIDE_0_LOSES)
    with transaction.atomic():
        locked = selectors.series_row(series.pk, lock=True)
    assert locked is not None
    assert _fields(locked) == _fields(Series.objects.get(pk=series.pk))


def test_seats_loaded_plainly_are_the_prefetched_seats_and_read_no_more():
    series = record(start_series(names=("Anna", "Boris", "Vera", "Gleb")), SIDE_0_LOSES)
    plain = selectors.load_seats(selectors.series_row(series.pk))
    orm = selectors.series_with_seats(series.pk)
    with CaptureQueriesContext(connection) as queries:
        seats = list(plain.seats.all())
        names = [seat.player.name for seat in seats]
        assert all(seat.series is plain for seat in seats)
    assert len(queries) == 0
    assert names == list(TEAMS)
    assert [_fields(seat) for seat in seats] == [_fields(seat) for seat in orm.seats.all()]
    assert [_fields(seat.player) for seat in seats] == [
        _fields(seat.player) for seat in orm.seats.all()
    ]
    with CaptureQueriesContext(connection) as queries:
        selectors.load_seats(plain)  # once loaded, never again
    assert len(queries) == 0


def test_a_keys_use_is_found_where_it_was_used():
    series = start_series()
    key, undone_key, unused = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    recorded = services.deal_record(
        series_id=series.pk, number=1, points=SIDE_0_LOSES, tricks=None, entry_key=key
    )
    services.deal_record(
        series_id=series.pk, number=2, points=SIDE_0_LOSES, tricks=None, entry_key=undone_key
    )
    series.refresh_from_db()
    services.deal_undo(series_id=series.pk, number=2, version=series.version)
    assert selectors.entry_key_use(key) == selectors.KeyUse(False, series.pk, recorded.deal.pk)
    removal = DealEvent.objects.get(entry_key=undone_key)
    assert selectors.entry_key_use(undone_key) == selectors.KeyUse(True, series.pk, removal.pk)
    assert selectors.entry_key_use(unused) is None
    assert not Deal.objects.filter(entry_key=undone_key).exists()


def test_a_plain_update_stores_what_the_orm_would_store():
    series = start_series()
    seat = Seat.objects.filter(series=series).order_by("position").first()
    changed = plainsql.update(
        Series,
        {"totals": [4, 2], "goat_sides": [1], "finished": True, "winner_side": 0},
        where={"id": series.pk},
    )
    assert changed == 1
    series.refresh_from_db()
    assert (series.totals, series.goat_sides, series.finished, series.winner_side) == (
        [4, 2],
        [1],
        True,
        0,
    )
    assert plainsql.update(Seat, {"total": 7}, where={"series": series.pk, "side": 0}) == 2
    seat.refresh_from_db()
    assert seat.total == 7
    assert Seat.objects.filter(series=series, side=1, total=7).count() == 0


def test_recording_through_the_plain_path_keeps_stored_values_equal_to_a_replay():
    series = start_series()
    for points in [SIDE_0_LOSES, (60, 60), (0, 120), SIDE_0_LOSES]:
        series = record(series, points, tricks=(False, True) if 0 in points else None)
    stored = Series.objects.get(pk=series.pk)
    assert stored.version == series.version
    assert stored.updated_at >= stored.created_at
    assert_stored_matches_replay(stored)


def test_played_deals_are_the_orms_deals_and_the_board_reads_nothing_else():
    from django.template.loader import render_to_string

    from scoring.table.scoreboard import build

    series = start_series()
    for points in [SIDE_0_LOSES, (60, 60), (0, 120)]:
        series = record(series, points, tricks=(False, True) if 0 in points else None)
    played = selectors.played_deals(series)
    orm = list(Deal.objects.filter(series=series).order_by("number"))
    assert played == [(deal.pk, deal.number, deal.points, deal.tricks) for deal in orm]
    assert all(type(took) is bool for deal in played for took in deal.tricks if took is not None)
    assert [deal.points for deal in played] == [(31, 89, None), (60, 60, None), (0, 120, None)]
    assert played[2].tricks[:2] == (False, True)
    loaded = selectors.load_seats(selectors.series_row(series.pk))
    with CaptureQueriesContext(connection) as queries:
        board = build(loaded, played)
        render_to_string("scoring/series.html#scoreboard", {"board": board, "series": loaded})
        assert [deal.summary for deal in board.deals]  # every row's words, from these fields
    assert len(queries) == 0, [query["sql"] for query in queries]


def test_a_plain_insert_stores_what_save_would_and_refuses_what_it_would():
    from django.db import IntegrityError
    from django.utils import timezone

    series = start_series()
    key = uuid.uuid4()
    before = timezone.now()
    row = Deal(series=series, number=1, points_0=70, points_1=50, entry_key=key)
    assert plainsql.insert(row) is row
    assert row.pk is not None and row._state.adding is False
    stored = Deal.objects.get(pk=row.pk)
    assert _fields(stored) == _fields(row)
    assert stored.entry_key == key and stored.created_at >= before
    event = DealEvent(series=series, number=1, action="recorded", after={"points": [70, 50]})
    plainsql.insert(event)
    assert DealEvent.objects.get(pk=event.pk).after == {"points": [70, 50]}
    with pytest.raises(IntegrityError), transaction.atomic():  # deal 1 is taken
        plainsql.insert(Deal(series=series, number=1, points_0=60, points_1=60))
    assert Deal.objects.filter(series=series).count() == 1
