"""Undo, edit and rematch through the views, and stale forms from two phones at one table."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring.models import Deal, DealEvent, Series
from tests.helpers import (
    THREE,
    assert_stored_matches_replay,
    client_with_link,
    db_snapshot,
    deal_data,
    edit_data,
    html,
    play,
    record,
    start_series,
    undo_data,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CONFLICT_NOTICE = "Deal 1 was just recorded on another phone; your points are kept"


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


# Undo and edit


def edit(client: Client, series: Series, number: int, **fields):
    """Open deal ``number``'s edit page, fill in ``fields`` and save."""
    address = url(series, f"deals/{number}/edit/")
    return client.post(address, edit_data(client.get(address), **fields))


def test_undo_removes_the_last_deal_and_says_so(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series), headers=HTMX)
    response = client.post(url(quick_series, "undo/"), undo_data(page), headers=HTMX)
    assert response.status_code == 200
    assert "Deal 2 undone: Anna &amp; Vera 100, Boris &amp; Gleb 20." in html(response)
    assert_stored_matches_replay(quick_series)
    assert quick_series.totals == [0, 2]
    assert undo_data(response)["number"] == "1"  # the fresh board's button undoes deal 1
    response = client.post(url(quick_series, "undo/"), undo_data(response))
    assert response.status_code == 302
    assert "Deal 1 undone: Anna &amp; Vera 80, Boris &amp; Gleb 40." in html(
        client.get(response["Location"])
    )
    assert Deal.objects.count() == 0


@pytest.mark.parametrize(
    ("number", "version"),
    [(n, "right") for n in ["", "x", "0", "²", "9" * 5000, "-1"]]
    + [("1", v) for v in ["", "x", "-1", "²", "9" * 5000, None]],
)
def test_a_malformed_undo_changes_nothing(quick_series, number, version):
    record(quick_series, (80, 40))
    data = {"number": number, "version": str(quick_series.version)}
    if version is None:
        del data["version"]  # a page from before undo buttons carried a version
    elif version != "right":
        data["version"] = version
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "undo/"), data)
    assert response.status_code == 422
    assert "Nothing to undo." in html(response)
    assert db_snapshot() == before


def test_undo_of_a_deal_that_is_no_longer_the_last_gets_409(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    before = db_snapshot()
    data = {"number": "1", "version": str(quick_series.version)}
    response = client_with_link(quick_series).post(url(quick_series, "undo/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_undo_of_the_last_deal_reopens_a_finished_series(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    client.post(url(quick_series, "undo/"), undo_data(client.get(url(quick_series))))
    page = html(client.get(url(quick_series)))
    assert "the goat!" not in page and "Deal 2: card points" in page


def test_the_edit_form_shows_the_deal_as_recorded(quick_series):
    record(quick_series, (0, 120), (True, True))
    page = html(client_with_link(quick_series).get(url(quick_series, "deals/1/edit/")))
    assert 'name="points_0" id="id_points_0" min="0" max="120"' in page
    assert re.search(r'name="points_0"[^>]*value="0"', page)
    assert re.search(r'name="tricks_0" value="yes"[^>]*checked', page)
    assert 'name="entry_key"' not in page
    quick_series.refresh_from_db()
    assert f'name="version" value="{quick_series.version}"' in page


def test_editing_an_earlier_deal_rescores_everything_after_it(quick_series):
    for points in [(80, 40), (100, 20), (70, 50)]:
        record(quick_series, points)
    client = client_with_link(quick_series)
    response = edit(client, quick_series, 1, points_0="40")
    assert response.status_code == 302
    page = html(client.get(response["Location"]))
    # What changed, from what to what.
    assert "Deal 1 changed: Anna &amp; Vera 80 → 40, Boris &amp; Gleb 40 → 80." in page
    state = assert_stored_matches_replay(quick_series)
    assert [outcome.totals for outcome in state.deals] == [(2, 0), (2, 4), (2, 6)]


def test_an_edit_can_finish_the_series_and_another_can_reopen_it(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    edit(client, quick_series, 2, points_0="0", tricks_0="no")
    assert "Anna &amp; Vera: the goat!" in html(client.get(url(quick_series)))
    edit(client, quick_series, 2, points_0="80")
    page = html(client.get(url(quick_series)))
    assert "the goat!" not in page and "Deal 3: card points" in page
    assert_stored_matches_replay(quick_series)


def test_an_edit_that_makes_later_deals_impossible_is_refused_naming_the_deal(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (80, 40))
    record(quick_series, (80, 40))
    before = db_snapshot()
    client = client_with_link(quick_series)
    response = edit(client, quick_series, 2, points_0="0", tricks_0="no")
    assert response.status_code == 422
    assert "Deal 3: The series is over; no deal can be added." in html(response)
    assert "Undo the deals after it first" in html(response)
    assert db_snapshot() == before


@pytest.mark.parametrize(
    "fields", [{"points_0": "1"}, {"points_0": "abc"}, {}, {"points_0": "0"}, {"points_2": "9"}]
)
def test_a_bad_edit_changes_nothing(quick_series, fields):
    record(quick_series, (80, 40))
    before = db_snapshot()
    response = edit(client_with_link(quick_series), quick_series, 1, **fields)
    assert response.status_code == 422
    assert 'class="errors"' in html(response) or 'class="error"' in html(response)
    assert db_snapshot() == before


def test_editing_a_deal_after_a_player_went_out_asks_only_for_those_in_play(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    record(series, (0, 60, 60), (False, True, True))  # Ira out
    record(series, (70, 50))
    client = client_with_link(series)
    page = html(client.get(url(series, "deals/3/edit/")))
    assert 'name="points_0"' not in page
    assert re.search(r'name="points_1"[^>]*value="70"', page)
    response = edit(client, series, 3, points_2="90")
    assert response.status_code == 302
    assert Deal.objects.get(number=3).points == (None, 30, 90)
    assert_stored_matches_replay(series)


@pytest.mark.parametrize("number", [0, 2, 99])
def test_editing_a_deal_that_does_not_exist_is_not_found(quick_series, number):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    assert client.get(url(quick_series, f"deals/{number}/edit/")).status_code == 404


# Stale forms: two phones at one table


UNDO_REFUSED = "The score changed on another device since this page was shown; nothing was undone."


@pytest.mark.parametrize("htmx", [False, True])
def test_an_old_undo_button_never_removes_a_deal_recorded_since(quick_series, htmx):
    """Phone A undoes deal 2, phone B records a new deal 2, phone A sends its undo again."""
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    headers = HTMX if htmx else {}
    phone_a, phone_b = client_with_link(quick_series), client_with_link(quick_series)
    undo = undo_data(phone_a.get(url(quick_series)))
    assert phone_a.post(url(quick_series, "undo/"), undo, headers=headers).status_code < 400
    assert play(phone_b, quick_series, points_0="30").status_code == 302
    b_deal = Deal.objects.get(number=2)
    before = db_snapshot()
    response = phone_a.post(url(quick_series, "undo/"), undo, headers=headers)
    assert response.status_code == 409
    assert UNDO_REFUSED in html(response)
    assert ("<html" in html(response)) != htmx  # htmx gets the scoreboard alone
    assert '<span class="pts">30</span>' in html(response)  # B's deal, on the fresh board
    assert undo_data(response) != undo  # and an undo button for it as it is now
    assert db_snapshot() == before
    assert Deal.objects.get(number=2).pk == b_deal.pk


def test_an_undo_sent_twice_removes_one_deal_and_says_so(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    undo = undo_data(client.get(url(quick_series)))
    assert client.post(url(quick_series, "undo/"), undo, headers=HTMX).status_code == 200
    before = db_snapshot()
    response = client.post(url(quick_series, "undo/"), undo, headers=HTMX)
    assert response.status_code == 409 and UNDO_REFUSED in html(response)
    assert db_snapshot() == before
    assert list(Deal.objects.values_list("number", flat=True)) == [1]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_deal_form_sent_again_after_its_deal_was_undone_records_nothing(quick_series, htmx):
    client = client_with_link(quick_series)
    headers = HTMX if htmx else {}
    data = deal_data(client.get(url(quick_series)), points_0="70")
    assert client.post(url(quick_series, "deals/"), data, headers=headers).status_code < 400
    client.post(url(quick_series, "undo/"), undo_data(client.get(url(quick_series))))
    assert not Deal.objects.exists()
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/"), data, headers=headers)
    assert response.status_code == 409
    assert "The deal this form recorded has been undone; it was not recorded again." in html(
        response
    )
    assert "Deal 1: card points" in html(response)  # a fresh form to enter it, if meant
    assert db_snapshot() == before


def test_a_deal_form_of_another_series_is_refused(quick_series):
    client = client_with_link(quick_series)
    data = deal_data(client.get(url(quick_series)), points_0="70")
    client.post(url(quick_series, "deals/"), data)
    other = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    before = db_snapshot()
    response = client_with_link(other).post(url(other, "deals/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_an_edit_from_a_page_opened_before_another_edit_changes_nothing(quick_series):
    record(quick_series, (80, 40))
    phone_a, phone_b = client_with_link(quick_series), client_with_link(quick_series)
    address = url(quick_series, "deals/1/edit/")
    page_a, page_b = phone_a.get(address), phone_b.get(address)
    assert phone_a.post(address, edit_data(page_a, points_0="40")).status_code == 302
    before = db_snapshot()
    response = phone_b.post(address, edit_data(page_b, points_0="100"))
    assert response.status_code == 409
    assert "nothing was saved. Here is the deal as it is now." in html(response)
    assert re.search(r'name="points_0"[^>]*value="40"', html(response))  # A's edit
    assert db_snapshot() == before
    # From the fresh page, B's edit goes through: it now knows what it replaces.
    assert phone_b.post(address, edit_data(response, points_0="100")).status_code == 302
    assert Deal.objects.get().points[:2] == (100, 20)


def test_an_edit_from_a_page_opened_before_a_new_deal_changes_nothing(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/1/edit/"))
    record(quick_series, (70, 50))  # another phone
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/1/edit/"), edit_data(page, points_0="40"))
    assert response.status_code == 409
    assert db_snapshot() == before


def test_a_stale_edit_with_a_typo_gets_the_fresh_deal_rather_than_errors(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/1/edit/"))
    record(quick_series, (70, 50))
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/1/edit/"), edit_data(page, points_0="abc"))
    assert response.status_code == 409
    assert "Here is the deal as it is now." in html(response)
    assert db_snapshot() == before


@pytest.mark.parametrize("version", [None, "", "x", "-1", "9" * 5000])
def test_an_edit_without_the_version_it_was_shown_at_changes_nothing(quick_series, version):
    record(quick_series, (80, 40))
    data = {"points_0": "40"} if version is None else {"points_0": "40", "version": version}
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "deals/1/edit/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_an_edit_of_a_deal_undone_meanwhile_gets_the_scoreboard(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/2/edit/"))
    client_with_link(quick_series).post(
        url(quick_series, "undo/"), undo_data(client.get(url(quick_series)))
    )
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/2/edit/"), edit_data(page, points_0="40"))
    assert response.status_code == 409
    assert "That deal was undone from another device; nothing was saved." in html(response)
    assert "Deal 2: card points" in html(response)
    assert db_snapshot() == before


def test_an_edit_saved_twice_is_done_once(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    address = url(quick_series, "deals/1/edit/")
    data = edit_data(client.get(address), points_0="40")
    assert [client.post(address, data).status_code for _tap in range(2)] == [302, 302]
    assert DealEvent.objects.filter(action="edited").count() == 1


def test_a_rematch_before_the_end_is_refused(quick_series):
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "rematch/"))
    assert response.status_code == 409
    assert "finish it first" in html(response)
    assert db_snapshot() == before


def test_a_second_tap_on_rematch_opens_the_same_new_series(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    first = client.post(url(quick_series, "rematch/"))
    second = client.post(url(quick_series, "rematch/"), headers=HTMX)
    assert second["HX-Redirect"] == first["Location"]
    assert Series.objects.count() == 2
