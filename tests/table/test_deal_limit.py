"""A club night's round of N deals: the table's series takes no deal after the Nth."""

from __future__ import annotations

import html as html_text
import uuid

import pytest

from scoring.models import Deal, Series
from scoring.table import deals, services
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
PLAYED = "Its 3 deals were played."
CLOSED = (
    "No deal can be added or changed here now. If a deal is wrong or missing, the organiser "
    "corrects it."
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


# The service ----------------------------------------------------------------------------------


def test_a_retried_form_for_the_last_deal_gets_its_deal_back_at_the_limit(round_series):
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    key = uuid.uuid4()
    first = deals.deal_record(
        series_id=round_series.pk, number=3, points=(70, 50), tricks=None, entry_key=key
    )
    again = deals.deal_record(
        series_id=round_series.pk, number=3, points=(70, 50), tricks=None, entry_key=key
    )
    assert first.entry is deals.Entry.NEW
    assert again.entry is deals.Entry.RETRY and again.deal.pk == first.deal.pk


def test_the_service_records_the_last_deal_of_the_round_and_refuses_the_next(round_series):
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    last = deals.deal_record(series_id=round_series.pk, number=3, points=(70, 50), tricks=None)
    assert last.entry is deals.Entry.NEW
    before = db_snapshot()
    refused = deals.deal_record(
        series_id=round_series.pk, number=4, points=(70, 50), tricks=None, entry_key=uuid.uuid4()
    )
    assert refused.entry is deals.Entry.LIMIT and refused.deal is None
    assert db_snapshot() == before
    round_series.refresh_from_db()
    # Played to its limit: its result stands (the fewest defeat points), as RULES.md says.
    assert round_series.deal_count == LIMIT
    assert (round_series.finished, round_series.ending) == (True, "deals")


def test_the_last_deal_of_the_round_closes_the_table(round_series):
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    round_series.refresh_from_db()
    assert round_series.closed_at is None
    record(round_series, SIDE_0_LOSES)
    assert round_series.closed_at is not None


def test_at_the_limit_the_table_takes_no_undo_edit_or_put_back(round_series):
    at_limit(round_series)
    round_series.refresh_from_db()
    before = db_snapshot()
    with pytest.raises(deals.SeriesClosed):
        deals.deal_undo(series_id=round_series.pk, number=LIMIT, version=round_series.version)
    with pytest.raises(deals.SeriesClosed):
        deals.deal_edit(
            series_id=round_series.pk,
            number=1,
            version=round_series.version,
            points=(100, 20),
            tricks=None,
        )
    with pytest.raises(deals.SeriesClosed):
        deals.deal_redo(series_id=round_series.pk, number=LIMIT, version=round_series.version)
    assert db_snapshot() == before


def test_an_organisers_correction_changes_a_deal_at_the_limit_on_the_record(round_series):
    at_limit(round_series)
    round_series.refresh_from_db()
    deals.deal_edit(
        series_id=round_series.pk,
        number=1,
        version=round_series.version,
        points=(100, 20),
        tricks=None,
        organiser=True,
    )
    assert Deal.objects.get(series=round_series, number=1).points[0] == 100
    change = round_series.events.order_by("-pk").first()
    assert change.action == "edited" and change.via == deals.CORRECTION


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
    assert PLAYED in text(response) and CLOSED in text(response)
    assert 'name="entry_key"' not in html(response)
    assert "Deal <strong>" not in html(response)
    assert "Deals: <strong>" not in html(response)  # nobody deals next
    assert "data-undo" not in html(response) and "/edit/" not in html(response)  # closed
    assert 'id="board-data"' in html(response)  # deals waiting on the phone are shown refused


def test_a_watcher_sees_the_round_played_and_no_phone_data(round_series):
    at_limit(round_series)
    watcher = client_with_link(round_series, round_series.table.watch_token)
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


def test_an_undo_or_an_edit_at_the_limit_is_refused_and_changes_nothing(round_series):
    client = client_with_link(round_series)
    play_deals(round_series, [SIDE_0_LOSES, SIDE_1_LOSES])
    page = client.get(url(round_series))
    edit_page = client.get(url(round_series, "deals/1/edit/"))
    record(round_series, SIDE_0_LOSES)  # the round's last deal, from another phone
    before = db_snapshot()
    undo = {**undo_data(page), "number": str(LIMIT), "version": str(round_series.version)}
    response = client.post(url(round_series, "undo/"), undo, headers=HTMX)
    assert response.status_code == 409
    assert PLAYED in text(response)
    edited = edit_data(edit_page, points_0="100", points_1="20")
    edited["version"] = str(round_series.version)
    response = client.post(url(round_series, "deals/1/edit/"), edited)
    assert response.status_code == 409
    assert PLAYED in text(response)
    assert db_snapshot() == before
