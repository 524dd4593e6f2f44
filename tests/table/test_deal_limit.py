"""A club night's round of N deals: the table's series takes no deal after the Nth."""

from __future__ import annotations

import html as html_text
import uuid

import pytest

from scoring.models import Deal, Series
from scoring.table import services
from tests.helpers import (
    LONG,
    SIDE_0_LOSES,
    SIDE_1_LOSES,
    client_with_link,
    db_snapshot,
    deal_data,
    edit_data,
    html,
    play_deals,
    record,
    start_series,
    undo_data,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
LIMIT = 3
PLAYED = (
    "This round's 3 deals have been played. The organiser finishes the round; it is scored by "
    "the defeat points as they stand."
)
REFUSED = "Not recorded: this round's 3 deals have been played."


@pytest.fixture
def round_series(db) -> Series:
    """A club night's table in a round of three deals, with a target no test reaches."""
    return start_series(ruleset=LONG, deal_limit=LIMIT)


def at_limit(series: Series) -> Series:
    """The round's three deals played, sides losing in turn."""
    return play_deals(series, [SIDE_0_LOSES, SIDE_1_LOSES, SIDE_0_LOSES])


def text(response) -> str:
    return html_text.unescape(html(response))


def url(series: Series, tail: str = "") -> str:
    return f"{series.get_absolute_url()}{tail}"


# The decision ---------------------------------------------------------------------------------


def test_the_decision_takes_deals_up_to_the_limit_and_refuses_the_next():
    def decided(next_number: int, number: int | None, limit: int | None):
        return services.entry_decision(
            1, next_number=next_number, finished=False, number=number, entry_key=None, limit=limit
        )[0]

    assert decided(3, 3, 3) is services.Entry.NEW
    assert decided(4, 4, 3) is services.Entry.LIMIT
    assert decided(4, None, 3) is services.Entry.LIMIT
    assert decided(4, 3, 3) is services.Entry.STALE  # a form for the Nth, taken meanwhile
    assert decided(4, 4, None) is services.Entry.NEW  # no limit: nothing changes


def test_a_finished_series_is_over_whatever_its_limit():
    entry, _ = services.entry_decision(
        1, next_number=4, finished=True, number=4, entry_key=None, limit=3
    )
    assert entry is services.Entry.OVER


def test_a_retried_form_for_the_last_deal_gets_its_deal_back_at_the_limit(round_series):
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    key = uuid.uuid4()
    first = services.deal_record(
        series_id=round_series.pk, number=3, points=(70, 50), tricks=None, entry_key=key
    )
    again = services.deal_record(
        series_id=round_series.pk, number=3, points=(70, 50), tricks=None, entry_key=key
    )
    assert first.entry is services.Entry.NEW
    assert again.entry is services.Entry.RETRY and again.deal.pk == first.deal.pk


# The service ----------------------------------------------------------------------------------


def test_the_service_records_the_last_deal_of_the_round_and_refuses_the_next(round_series):
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    last = services.deal_record(series_id=round_series.pk, number=3, points=(70, 50), tricks=None)
    assert last.entry is services.Entry.NEW
    before = db_snapshot()
    refused = services.deal_record(
        series_id=round_series.pk, number=4, points=(70, 50), tricks=None, entry_key=uuid.uuid4()
    )
    assert refused.entry is services.Entry.LIMIT and refused.deal is None
    assert db_snapshot() == before
    round_series.refresh_from_db()
    assert round_series.deal_count == LIMIT and not round_series.finished


def test_undoing_the_last_deal_makes_room_for_it_again(round_series):
    at_limit(round_series)
    round_series.refresh_from_db()
    services.deal_undo(series_id=round_series.pk, number=LIMIT, version=round_series.version)
    again = services.deal_record(
        series_id=round_series.pk, number=LIMIT, points=(100, 20), tricks=None
    )
    assert again.entry is services.Entry.NEW
    assert Deal.objects.filter(series=round_series).count() == LIMIT


def test_an_earlier_deal_can_still_be_changed_at_the_limit(round_series):
    at_limit(round_series)
    round_series.refresh_from_db()
    services.deal_edit(
        series_id=round_series.pk,
        number=1,
        version=round_series.version,
        points=(100, 20),
        tricks=None,
    )
    assert Deal.objects.get(series=round_series, number=1).points[0] == 100


def test_a_series_without_a_limit_goes_on(db):
    series = start_series(ruleset=LONG)
    assert series.deal_limit is None
    play_deals(series, [SIDE_0_LOSES] * (LIMIT + 1))
    assert series.deal_count == LIMIT + 1


def test_a_rematch_of_a_limited_series_has_no_limit(db):
    series = start_series(deal_limit=30)
    while not series.finished:
        record(series, (0, 120), (False, True))
    assert services.series_rematch(series=series).deal_limit is None


# The scoreboard -------------------------------------------------------------------------------


def test_the_board_says_which_deal_of_the_round_is_next(round_series):
    record(round_series, SIDE_0_LOSES)
    shown = html(client_with_link(round_series).get(url(round_series)))
    assert "Deal <strong>2</strong> of 3" in shown
    assert 'name="entry_key"' in shown


def test_a_board_without_a_limit_does_not_count_to_one(quick_series):
    assert " of 3" not in html(client_with_link(quick_series).get(url(quick_series)))


@pytest.mark.parametrize("htmx", [False, True])
def test_at_the_limit_the_board_says_so_in_place_of_the_deal_form(round_series, htmx):
    at_limit(round_series)
    headers = HTMX if htmx else {}
    response = client_with_link(round_series).get(url(round_series), headers=headers)
    assert response.status_code == 200
    assert PLAYED in text(response)
    assert 'name="entry_key"' not in html(response)
    assert "Deal <strong>" not in html(response)
    assert "Deals: <strong>" not in html(response)  # nobody deals next
    assert undo_data(response)["number"] == str(LIMIT)  # the last deal can still be undone
    assert 'id="board-data"' in html(response)  # deals waiting on the phone are shown refused


def test_a_watcher_sees_the_round_played_and_no_phone_data(round_series):
    at_limit(round_series)
    watcher = client_with_link(round_series, round_series.watch_token)
    response = watcher.get(url(round_series))
    assert PLAYED in text(response)
    assert 'id="board-data"' not in html(response)


@pytest.mark.parametrize("htmx", [False, True])
def test_a_deal_past_the_limit_is_refused_with_a_message_and_nothing_recorded(round_series, htmx):
    client = client_with_link(round_series)
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    form = client.get(url(round_series))  # the form for deal 3
    record(round_series, SIDE_0_LOSES)
    before = db_snapshot()
    data = {**deal_data(form, points_0="70", points_1="50"), "number": "4"}
    data["entry_key"] = str(uuid.uuid4())
    response = client.post(url(round_series, "deals/"), data, headers=HTMX if htmx else {})
    assert response.status_code == 422
    assert REFUSED in text(response) and PLAYED in text(response)
    assert 'name="entry_key"' not in html(response)
    assert db_snapshot() == before


def test_a_form_for_the_last_deal_recorded_elsewhere_meanwhile_gets_409_and_no_form(round_series):
    client = client_with_link(round_series)
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    form = client.get(url(round_series))
    record(round_series, SIDE_0_LOSES)  # deal 3 from another phone
    response = client.post(url(round_series, "deals/"), deal_data(form, points_0="70"))
    assert response.status_code == 409
    assert "This deal was just recorded from another device." in text(response)
    assert PLAYED in text(response)
    assert 'name="entry_key"' not in html(response)
    assert Deal.objects.filter(series=round_series).count() == LIMIT


def test_the_next_deal_recorded_under_the_lock_meanwhile_is_refused(round_series, monkeypatch):
    """The view read two deals; by the time the service holds the lock, deal 3 is in, and the
    form it checks is one for deal 4 (a phone's queued deal, say)."""
    client = client_with_link(round_series)
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    form = client.get(url(round_series))
    original = services.deal_record

    def filled_meanwhile(**kwargs):
        original(series_id=round_series.pk, number=LIMIT, points=(70, 50), tricks=None)
        return original(**{**kwargs, "number": LIMIT + 1})

    monkeypatch.setattr(services, "deal_record", filled_meanwhile)
    response = client.post(url(round_series, "deals/"), deal_data(form, points_0="70"))
    assert response.status_code == 422
    assert REFUSED in text(response)
    assert Deal.objects.filter(series=round_series).count() == LIMIT


def test_recording_the_last_deal_shows_the_round_played(round_series):
    client = client_with_link(round_series)
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    form = client.get(url(round_series), headers=HTMX)
    response = client.post(
        url(round_series, "deals/"), deal_data(form, points_0="70", points_1="50"), headers=HTMX
    )
    assert response.status_code == 200
    assert PLAYED in text(response)
    assert 'name="entry_key"' not in html(response)


def test_an_undo_at_the_limit_brings_the_form_back_past_the_page_cache(round_series):
    at_limit(round_series)
    client = client_with_link(round_series)
    first = client.get(url(round_series))
    assert PLAYED in text(first)
    assert PLAYED in text(client.get(url(round_series)))  # the cached page says the same
    client.post(url(round_series, "undo/"), undo_data(first))
    after = client.get(url(round_series))
    assert PLAYED not in text(after)
    assert "Deal <strong>3</strong> of 3" in html(after)
    data = deal_data(after, points_0="70", points_1="50")
    assert client.post(url(round_series, "deals/"), data).status_code == 302
    assert Deal.objects.filter(series=round_series).count() == LIMIT


def test_an_earlier_deal_is_edited_through_the_page_at_the_limit(round_series):
    at_limit(round_series)
    client = client_with_link(round_series)
    page = client.get(url(round_series, "deals/1/edit/"))
    response = client.post(
        url(round_series, "deals/1/edit/"), edit_data(page, points_0="100", points_1="20")
    )
    assert response.status_code == 302
    assert Deal.objects.get(series=round_series, number=1).points[0] == 100
