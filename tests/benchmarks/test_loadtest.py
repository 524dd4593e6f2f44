"""``make loadtest``: its scoring phone posts what a browser posts, and its search of N."""

from __future__ import annotations

from django.test import Client

from tests.helpers import client_with_link, play_deals

LADDER = [10, 25, 50, 100, 150, 200, 300, 400, 600, 800]


def phone_for(series) -> Client:
    """A phone holding the series' score link, whose posts are checked for CSRF as a browser's."""
    phone = Client(enforce_csrf_checks=True)
    phone.cookies = client_with_link(series).cookies
    return phone


def test_the_deal_read_from_the_board_and_posted_as_htmx_does_is_recorded(loadtest, quick_series):
    phone = phone_for(quick_series)
    page = phone.get(quick_series.get_absolute_url()).content.decode()
    action, fields, points = loadtest.deal_form(page)
    fields[points[0]], fields[points[1]] = "70", "50"
    answer = phone.post(action, fields, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    quick_series.refresh_from_db()
    assert quick_series.deal_count == 1
    assert loadtest.VERSION.search(answer.content.decode())[1] == str(quick_series.version)


def test_a_board_whose_series_reached_the_goat_offers_no_deal_form(loadtest, quick_series):
    play_deals(quick_series, [(100, 20)] * 3)  # 4 defeat points a deal: 12, the goat
    page = phone_for(quick_series).get(quick_series.get_absolute_url()).content.decode()
    assert loadtest.deal_form(page) is None


def search(loadtest, limit: int) -> tuple:
    tried: list[int] = []

    def holds(tables: int) -> bool:
        tried.append(tables)
        return tables <= limit

    return (*loadtest.search(LADDER, holds, 100), tried)


def test_the_search_doubles_from_100_then_tries_between_the_last_held_and_the_first_missed(
    loadtest,
):
    assert search(loadtest, 350) == (300, False, [100, 200, 400, 300])


def test_the_search_goes_down_when_100_tables_miss(loadtest):
    assert search(loadtest, 30) == (25, False, [100, 25, 50])


def test_the_search_says_when_even_the_smallest_step_missed(loadtest):
    assert search(loadtest, 5) == (None, False, [100, 25, 10])


def test_the_search_says_when_the_top_step_held(loadtest):
    assert search(loadtest, 10_000) == (800, True, [100, 200, 400, 800])
