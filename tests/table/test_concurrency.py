"""Races: two phones (or one phone tapping twice) at the same moment never lose or double a deal.

Each race starts real threads, each with its own database connection, held at a barrier and
released together; every scenario is repeated many times on a fresh series. The suite's summary
says how many races ran on which database (``tests/race_report.py``).
"""

from __future__ import annotations

import functools
import uuid
from collections import Counter

import pytest
from django.db import connection
from django.test import Client

from scoring.models import Deal, DealEvent, Series
from scoring.table import deals, services
from tests.helpers import (
    assert_stored_matches_replay,
    at_once,
    client_with_link,
    edit_data,
    entry_key,
    raced,
    record,
    start_series,
    undo_data,
)

# Slow: hundreds of threads racing on a real database (make test runs them, test-fast does not).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REPETITIONS = 30
VIEW_REPETITIONS = 12
CONFLICT_NOTICE = "was just recorded on another phone; your points are kept"


def record_call(series: Series, number: int, points, key: uuid.UUID | None):
    return lambda: deals.deal_record(
        series_id=series.pk, number=number, points=points, tricks=None, entry_key=key
    )


def edit_call(series: Series, points):
    """An edit of deal 1 from a page shown at the series' current version."""
    return functools.partial(
        deals.deal_edit,
        series_id=series.pk,
        number=1,
        version=series.version,
        points=points,
        tricks=None,
    )


def test_the_same_form_submitted_twice_at_once_records_one_deal_and_both_see_it():
    for _ in range(REPETITIONS):
        series = start_series()
        key = uuid.uuid4()
        first, second = at_once(
            record_call(series, 1, (70, 50), key), record_call(series, 1, (70, 50), key)
        )
        assert isinstance(first, deals.Recorded), first
        assert isinstance(second, deals.Recorded), second
        assert first.deal.pk == second.deal.pk
        assert sorted([first.created, second.created]) == [False, True]
        assert Deal.objects.filter(series=series).count() == 1
        assert DealEvent.objects.filter(series=series).count() == 1
        series.refresh_from_db()
        assert series.deal_count == 1
        raced("same form twice (service)")


def test_two_phones_entering_the_same_deal_at_once_record_it_once():
    for _ in range(REPETITIONS):
        series = start_series()
        results = at_once(
            record_call(series, 1, (70, 50), uuid.uuid4()),
            record_call(series, 1, (30, 90), uuid.uuid4()),
        )
        recorded = [r for r in results if r.entry is deals.Entry.NEW]
        conflicts = [r for r in results if r.entry is deals.Entry.STALE]
        assert len(recorded) == 1 and len(conflicts) == 1, results
        assert recorded[0].created
        stored = list(Deal.objects.filter(series=series))
        assert [deal.pk for deal in stored] == [recorded[0].deal.pk]
        series.refresh_from_db()
        assert series.deal_count == 1
        assert series.totals == recorded[0].series.totals
        raced("two phones, same deal (service)")


def test_two_phones_racing_on_a_later_deal_keep_the_earlier_deals():
    for _ in range(REPETITIONS // 3):
        series = record(record(start_series(), (70, 50)), (80, 40))
        results = at_once(
            record_call(series, 3, (60, 60), uuid.uuid4()),
            record_call(series, 3, (100, 20), uuid.uuid4()),
            record_call(series, 3, (50, 70), uuid.uuid4()),
        )
        assert Counter(r.entry for r in results) == {
            deals.Entry.NEW: 1,
            deals.Entry.STALE: 2,
        }
        numbers = list(Deal.objects.filter(series=series).values_list("number", flat=True))
        assert numbers == [1, 2, 3]
        raced("three phones, third deal (service)")


def test_phones_racing_past_a_rounds_deal_limit_never_record_a_deal_after_it():
    """A round of two deals at deal 2: one phone enters deal 2, two others deal 3 (a form shown
    after deal 2, or a queued deal): whatever the order, the series holds two deals."""
    for _ in range(REPETITIONS // 3):
        series = record(start_series(deal_limit=2), (70, 50))
        results = at_once(
            record_call(series, 2, (80, 40), uuid.uuid4()),
            record_call(series, 3, (60, 60), uuid.uuid4()),
            record_call(series, 3, (100, 20), uuid.uuid4()),
        )
        entries = Counter(r.entry for r in results)
        assert entries[deals.Entry.NEW] == 1, results
        assert entries[deals.Entry.LIMIT] + entries[deals.Entry.STALE] == 2, results
        assert numbers(series) == [1, 2]
        series.refresh_from_db()
        assert series.deal_count == 2
        raced("two phones past a round's deal limit (service)")


def numbers(series: Series) -> list[int]:
    return list(Deal.objects.filter(series=series).values_list("number", flat=True))


def test_two_taps_on_undo_at_once_remove_one_deal():
    for _ in range(REPETITIONS // 3):
        series = record(record(start_series(), (70, 50)), (80, 40))

        undo = functools.partial(
            deals.deal_undo, series_id=series.pk, number=2, version=series.version
        )
        results = at_once(undo, undo)
        assert Counter(type(r).__name__ for r in results) == {"Series": 1, "DealConflict": 1}
        assert numbers(series) == [1]
        assert DealEvent.objects.filter(series=series, action="removed").count() == 1
        raced("two taps on undo (service)")


def test_an_undo_and_a_new_deal_at_once_never_lose_the_new_deal():
    """Phone A undoes deal 2 while phone B records deal 3, both from the same scoreboard."""
    for _ in range(REPETITIONS // 3):
        series = record(record(start_series(), (70, 50)), (80, 40))
        results = at_once(
            functools.partial(
                deals.deal_undo, series_id=series.pk, number=2, version=series.version
            ),
            record_call(series, 3, (100, 20), uuid.uuid4()),
        )
        undone, recorded = results
        if isinstance(undone, Series):  # the undo came first: B's deal 3 is no longer next
            assert recorded.entry is deals.Entry.STALE, results
            assert numbers(series) == [1]
        else:  # B's deal came first: A's undo, shown before it, removes nothing
            assert isinstance(undone, deals.DealConflict), results
            assert isinstance(recorded, deals.Recorded) and recorded.created, results
            assert numbers(series) == [1, 2, 3]
        assert_stored_matches_replay(series)
        raced("undo and a new deal (service)")


def test_an_old_undo_sent_again_as_a_new_deal_is_recorded_never_removes_it():
    """Phone A undid deal 2; phone B records a new deal 2 as A sends its old undo again."""
    for _ in range(REPETITIONS // 3):
        series = record(record(start_series(), (70, 50)), (80, 40))
        undo = functools.partial(
            deals.deal_undo, series_id=series.pk, number=2, version=series.version
        )
        undo()
        series.refresh_from_db()
        again, recorded = at_once(undo, record_call(series, 2, (100, 20), uuid.uuid4()))
        assert isinstance(again, deals.DealConflict), again
        assert isinstance(recorded, deals.Recorded) and recorded.created, recorded
        assert Deal.objects.get(series=series, number=2).pk == recorded.deal.pk
        raced("old undo and a new deal (service)")


def test_a_deal_form_sent_again_as_its_deal_is_undone_is_not_recorded_again():
    for _ in range(REPETITIONS // 3):
        series = record(start_series(), (70, 50))
        key = uuid.uuid4()
        resend = record_call(series, 2, (80, 40), key)
        resend()
        series.refresh_from_db()
        undo = functools.partial(
            deals.deal_undo, series_id=series.pk, number=2, version=series.version
        )
        undone, again = at_once(undo, resend)
        assert isinstance(undone, Series), undone
        # Before the undo, the retry finds its deal; after it, the key is spent.
        assert again.entry in (deals.Entry.SPENT, deals.Entry.RETRY), again
        assert numbers(series) == [1]
        assert not Deal.objects.filter(entry_key=key).exists()
        assert DealEvent.objects.get(series=series, action="removed").entry_key == key
        raced("resent form and undo (service)")


def test_two_edits_of_one_deal_from_the_same_page_keep_one_and_refuse_the_other():
    for _ in range(REPETITIONS // 3):
        series = record(record(start_series(), (70, 50)), (80, 40))

        results = at_once(edit_call(series, (100, 20)), edit_call(series, (30, 90)))
        assert Counter(type(r).__name__ for r in results) == {"Edited": 1, "DealConflict": 1}
        winner = (100, 20) if isinstance(results[0], deals.Edited) else (30, 90)
        assert Deal.objects.get(series=series, number=1).points[:2] == winner
        assert DealEvent.objects.filter(series=series, action="edited").count() == 1
        assert_stored_matches_replay(series)
        raced("two edits of one deal (service)")


def finished_series() -> Series:
    """A series played to its end (the engine decides when that is)."""
    series = start_series()
    for _ in range(100):
        if series.finished:
            return series
        series = record(series, (0, 120), (False, True))
    raise AssertionError("the series never ended")


def test_two_taps_on_rematch_at_once_open_one_new_series():
    for _ in range(REPETITIONS // 3):
        series = finished_series()

        rematch = functools.partial(services.series_rematch, series=series)
        first, second = at_once(rematch, rematch)
        assert isinstance(first, Series) and isinstance(second, Series), (first, second)
        assert first.pk == second.pk
        assert Series.objects.filter(rematch_of=series).count() == 1
        raced("two taps on rematch (service)")


def post_deal(client: Client, series: Series, data: dict, *, htmx: bool = False):
    headers = {"HX-Request": "true"} if htmx else {}
    return lambda: client.post(f"/series/{series.pk}/deals/", data, headers=headers)


def deal_data(page, points_0: int) -> dict:
    return {"number": 1, "entry_key": entry_key(page), "points_0": points_0, "points_1": ""}


def test_a_double_tap_on_record_through_the_page_records_one_deal():
    for repetition in range(VIEW_REPETITIONS):
        series = start_series()
        phone = client_with_link(series)
        data = deal_data(phone.get(series.get_absolute_url()), 70)
        htmx = repetition % 2 == 1
        first, second = at_once(
            post_deal(phone, series, data, htmx=htmx), post_deal(phone, series, data, htmx=htmx)
        )
        expected = 200 if htmx else 302
        assert [first.status_code, second.status_code] == [expected, expected]
        assert Deal.objects.filter(series=series).count() == 1
        raced("double tap on record (view)")


def test_two_phones_recording_through_the_page_get_one_deal_and_one_notice():
    for repetition in range(VIEW_REPETITIONS):
        series = start_series()
        phones = [client_with_link(series), client_with_link(series)]
        pages = [phone.get(series.get_absolute_url()) for phone in phones]
        htmx = repetition % 2 == 1
        results = at_once(
            post_deal(phones[0], series, deal_data(pages[0], 70), htmx=htmx),
            post_deal(phones[1], series, deal_data(pages[1], 30), htmx=htmx),
        )
        statuses = sorted(response.status_code for response in results)
        assert statuses == sorted([200 if htmx else 302, 409])
        loser = next(response for response in results if response.status_code == 409)
        assert CONFLICT_NOTICE in loser.content.decode()
        deal = Deal.objects.get(series=series)
        # The loser's fresh scoreboard already shows the winner's deal.
        assert f'<span class="pts">{deal.points_0}</span>' in loser.content.decode()
        raced("two phones, same deal (view)")


def _reads_the_deals(sql: str) -> bool:
    """The view's first look: the series' deals, read before it decides on the form."""
    return sql.lstrip().upper().startswith("SELECT") and 'FROM "scoring_deal"' in sql


def test_a_double_tap_answered_between_the_views_checks_still_gets_the_recorded_deal():
    """The first tap commits just after the second tap's view looked for its entry key.

    The same interleaving the threaded test above hits now and then, made to happen every time:
    the second tap must still get the recorded result, never "recorded from another device".
    """
    series = start_series()
    phone = client_with_link(series)
    data = deal_data(phone.get(series.get_absolute_url()), 70)
    state = {"done": False}

    def first_tap_lands(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not state["done"] and _reads_the_deals(sql):
            state["done"] = True
            deals.deal_record(
                series_id=series.pk,
                number=1,
                points=(70, 50),
                tricks=None,
                entry_key=uuid.UUID(data["entry_key"]),
            )
        return result

    with connection.execute_wrapper(first_tap_lands):
        response = phone.post(f"/series/{series.pk}/deals/", data)

    assert state["done"], "the view reads the deals first"
    assert response.status_code == 302, CONFLICT_NOTICE if response.status_code == 409 else ""
    assert Deal.objects.filter(series=series).count() == 1


def test_two_phones_saving_an_edit_through_the_page_keep_one_and_show_the_other_the_deal():
    for _ in range(VIEW_REPETITIONS):
        series = record(start_series(), (70, 50))
        address = f"/series/{series.pk}/deals/1/edit/"
        phones = [client_with_link(series), client_with_link(series)]
        pages = [phone.get(address) for phone in phones]
        results = at_once(
            functools.partial(phones[0].post, address, edit_data(pages[0], points_0="100")),
            functools.partial(phones[1].post, address, edit_data(pages[1], points_0="30")),
        )
        assert sorted(response.status_code for response in results) == [302, 409]
        loser = next(response for response in results if response.status_code == 409)
        stored = Deal.objects.get(series=series).points_0
        assert stored in (100, 30)
        assert f'value="{stored}"' in loser.content.decode()  # the winner's edit, to go on from
        assert DealEvent.objects.filter(series=series, action="edited").count() == 1
        raced("two phones, one edit (view)")


def test_an_undo_through_the_page_and_a_new_deal_at_once_never_lose_the_new_deal():
    for repetition in range(VIEW_REPETITIONS):
        series = record(record(start_series(), (70, 50)), (80, 40))
        phones = [client_with_link(series), client_with_link(series)]
        headers = {"HX-Request": "true"} if repetition % 2 else {}
        pages = [phone.get(series.get_absolute_url()) for phone in phones]
        data = {**deal_data(pages[1], 100), "number": 3}
        undo = undo_data(pages[0])
        undone, recorded = at_once(
            functools.partial(phones[0].post, f"/series/{series.pk}/undo/", undo, headers=headers),
            post_deal(phones[1], series, data, htmx=bool(headers)),
        )
        assert 409 in (undone.status_code, recorded.status_code)
        if undone.status_code == 409:
            assert numbers(series) == [1, 2, 3]
        else:
            assert numbers(series) == [1]
        raced("undo and a new deal (view)")


def test_a_form_sent_again_as_its_deal_is_undone_between_the_views_checks_is_not_recorded():
    """The undo commits just after the view read the deals, before it looks the form's key up:
    the key is found spent, nothing is recorded. The interleaving made to happen every time."""
    series = start_series()
    phone = client_with_link(series)
    data = deal_data(phone.get(series.get_absolute_url()), 70)
    assert phone.post(f"/series/{series.pk}/deals/", data).status_code == 302
    series.refresh_from_db()
    state = {"done": False}

    def undo_lands(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not state["done"] and _reads_the_deals(sql):
            state["done"] = True
            deals.deal_undo(series_id=series.pk, number=1, version=series.version)
        return result

    with connection.execute_wrapper(undo_lands):
        response = phone.post(f"/series/{series.pk}/deals/", data)

    assert state["done"], "the view reads the deals first"
    assert response.status_code == 409
    assert "it was not recorded again" in response.content.decode()
    assert not Deal.objects.filter(series=series).exists()
