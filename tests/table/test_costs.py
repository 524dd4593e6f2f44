"""What a board and a deal cost the database does not grow with the series: a game of forty
deals is shown and scored in as many queries as a game of one."""

from __future__ import annotations

from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.models import Deal
from tests.helpers import (
    client_with_link,
    deal_data,
    entry_key,
    html,
    long_series,
    start_series,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.mark.parametrize("where", ["series", "table"])
@pytest.mark.parametrize("htmx", [False, True])
def test_a_board_costs_as_many_queries_at_40_deals_as_at_1(where, htmx):
    counts = []
    for deals in (1, 40):
        series = long_series(deals)
        client = client_with_link(series)
        address = (
            f"/series/{series.pk}/" if where == "series" else f"/tables/{series.table.score_token}/"
        )
        with CaptureQueriesContext(connection) as queries:
            response = client.get(address, headers=HTMX if htmx else {})
        assert response.status_code == 200
        assert f"Deal {deals + 1}: card points" in html(response)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_recording_a_deal_costs_as_many_queries_at_40_deals_as_at_1():
    counts = []
    for deals in (1, 40):
        series = long_series(deals)
        client = client_with_link(series)
        page = client.get(f"/series/{series.pk}/", headers=HTMX)
        data = deal_data(page, points_0="70")
        with CaptureQueriesContext(connection) as queries:
            response = client.post(f"/series/{series.pk}/deals/", data, headers=HTMX)
        assert response.status_code == 200
        assert Deal.objects.filter(series=series).count() == deals + 1
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_every_answer_carries_a_one_time_key_of_its_own():
    series = long_series(3)
    first, second = client_with_link(series), client_with_link(series)
    shown = first.get(f"/series/{series.pk}/", headers=HTMX)
    again = second.get(f"/series/{series.pk}/", headers=HTMX)
    assert entry_key(again) != entry_key(shown)


@pytest.mark.parametrize("kind", ["score", "watch"])
def test_the_page_that_opens_a_link_reads_the_players_once_whatever_the_seats(kind):
    """Its names and its preview for messengers read the seats with their players in one query
    (was one more query a seat)."""
    counts = []
    for mode, names in (("duel", ("Anna", "Boris")), ("teams", ("Anna", "Boris", "Vera", "Gleb"))):
        series = start_series(mode=mode, names=names)
        token = getattr(series.table, f"{kind}_token")
        with CaptureQueriesContext(connection) as queries:
            page = Client().get(f"/tables/{token}/")
        assert page.status_code == 200
        assert " · ".join(names) in html(page)
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_a_quick_games_board_and_deal_read_no_proposals():
    """Only a club night's game takes proposals (``life.proposal_refusal``): a kitchen table's
    scoring phone is not asked a query for them, on its board nor in a deal's answer."""
    series = long_series(2)
    client = client_with_link(series)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/tables/{series.table.score_token}/")
        response = client.post(
            f"/series/{series.pk}/deals/", deal_data(page, points_0="70"), headers=HTMX
        )
    assert response.status_code == 200
    assert '"proposals": []' in unescape(html(page))  # the phone's offline data says none
    assert not [query for query in queries if "scoring_dealproposal" in query["sql"]]
