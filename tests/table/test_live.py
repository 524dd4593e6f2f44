"""The live view: every phone of a table polls it, and sees each change within one poll.

Every board of a game its table plays now asks ``/tables/<token>/live/?version=<v>`` every two
seconds, whatever the kind of game: while nothing changed the answer is an empty 204 from one
query keyed by the token, with no session read; after a change it is the fresh board, carrying
the new version; after a rematch or the next round, the table's next game.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.models import EventTable
from scoring.table.services import table_link_renew
from tests.helpers import (
    client_with_link,
    logged_in,
    make_event,
    play_out,
    record,
    start_series,
)

HTMX = {"HX-Request": "true"}


def polled(html: str) -> tuple[str, str]:
    """The live view an open board asks, and the version it asks with, every 2 s."""
    match = re.search(
        r'data-version="([\d.]+)" data-live="(/tables/[\w-]+/live/)" data-every="2"', html
    )
    assert match, "the board does not poll"
    return match.group(2), match.group(1)


def poll(client: Client, html: str):
    url, version = polled(html)
    return client.get(f"{url}?version={version}", headers=HTMX)


def table_page(series, token: str | None = None) -> str:
    return f"/tables/{token or series.table.watch_token}/"


def test_a_watchers_board_polls_its_table_and_has_no_deal_form(quick_series):
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    url, version = polled(html)
    quick_series.refresh_from_db()
    assert url == f"/tables/{quick_series.table.watch_token}/live/"
    assert version == f"0.{quick_series.pk}.{quick_series.version}"
    assert 'name="entry_key"' not in html


def test_nothing_new_is_an_empty_204(quick_series):
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    response = poll(watcher, watcher.get(table_page(quick_series)).content.decode())
    assert response.status_code == 204
    assert response.content == b""
    # No document, no Content-Security-Policy to build (scoring.web.middleware.BODYLESS).
    assert "Content-Security-Policy" not in response


def _a_game(kind: str, league, owner):
    """A game of each kind, with the phone that watches or scores it at its table."""
    if kind == "quick":
        series = start_series()
        return series, client_with_link(series, series.table.watch_token), series.table.watch_token
    if kind == "league":
        series = start_series(league=league)
        return series, logged_in(owner), series.table.score_token
    event = make_event(league, 8)
    series = EventTable.objects.filter(round__event=event).first().series
    phone = Client()
    phone.post(table_page(series, series.table.score_token))
    return series, phone, series.table.score_token


@pytest.mark.parametrize("kind", ["quick", "league", "club night"])
@pytest.mark.parametrize("deals", [1, 20])
def test_nothing_new_costs_one_query_and_no_session_whatever_the_game(kind, deals, league, owner):
    series, phone, token = _a_game(kind, league, owner)
    for _ in range(deals):
        record(series, [60, 60], [True, True])  # eggs: nobody scores, the series goes on
    html = phone.get(table_page(series, token)).content.decode()
    url, version = polled(html)
    with CaptureQueriesContext(connection) as queries:
        assert phone.get(f"{url}?version={version}", headers=HTMX).status_code == 204
    assert len(queries.captured_queries) == 1
    assert "django_session" not in queries.captured_queries[0]["sql"]


def test_a_new_deal_reaches_the_watcher_at_the_next_poll(quick_series):
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    assert poll(watcher, html).status_code == 204
    scorer = client_with_link(quick_series)
    page = scorer.get(table_page(quick_series, quick_series.table.score_token)).content.decode()
    key = re.search(r'name="entry_key" value="([^"]+)"', page).group(1)
    recorded = scorer.post(
        f"/series/{quick_series.pk}/deals/", {"number": 1, "entry_key": key, "points_0": "35"}
    )
    assert recorded.status_code == 302
    fresh = poll(watcher, html)
    board = fresh.content.decode()
    assert fresh.status_code == 200
    assert 'id="scoreboard"' in board and "<html" not in board  # the fragment, not a page
    assert "Content-Security-Policy" in fresh
    assert '<span class="pts">35</span>' in board and '<span class="pts">85</span>' in board
    assert poll(watcher, board).status_code == 204  # the next poll is a 204 again


def test_a_league_viewer_follows_a_game_in_play_from_its_own_page(league_series, viewer):
    client = logged_in(viewer)
    html = client.get(f"/series/{league_series.pk}/").content.decode()
    url, _version = polled(html)
    assert url == f"/tables/{league_series.table.watch_token}/live/"  # the viewer's: watching
    assert poll(client, html).status_code == 204
    record(league_series, [100, 20])
    fresh = poll(client, html)
    assert fresh.status_code == 200
    assert '<span class="pts">100</span>' in fresh.content.decode()


def test_a_phone_that_never_opened_the_link_is_shown_nothing(quick_series, outsider):
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    url, _version = polled(html)
    for stranger in (logged_in(outsider), logged_in(None)):
        answer = stranger.get(f"{url}?version=old", headers=HTMX)
        assert answer.status_code == 286
        assert "<table" not in answer.content.decode()


def test_a_poll_that_lost_its_link_is_told_so_and_stops_polling(quick_series):
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    table_link_renew(table=quick_series.table, link="watch")
    response = poll(watcher, html)
    assert response.status_code == 286
    assert "This link no longer works" in response.content.decode()
    assert "script-src 'self'" in response["Content-Security-Policy"]  # words: a policy


def test_a_poll_for_a_link_that_does_not_exist_gets_the_same_answer(db):
    response = Client().get(f"/tables/{'x' * 32}/live/?version=1", headers=HTMX)
    assert response.status_code == 286


def test_every_phone_of_the_table_goes_on_to_the_rematch_by_itself(quick_series):
    play_out(quick_series, loser=0)
    scorer = client_with_link(quick_series)
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    assert poll(watcher, html).status_code == 204  # a finished game's table still asks
    scorer.post(f"/series/{quick_series.pk}/rematch/")
    rematch = quick_series.rematches.get()
    board = poll(watcher, html)  # the next poll brings the rematch itself
    assert board.status_code == 200
    shown = board.content.decode()
    assert f'data-series="{rematch.pk}"' in shown
    assert 'name="entry_key"' not in shown  # watching, not scoring
    assert poll(watcher, shown).status_code == 204
    scoring = scorer.get(table_page(quick_series, quick_series.table.score_token))
    assert 'name="entry_key"' in scoring.content.decode()  # the scorer scores it


def test_a_stranger_learns_nothing_of_a_rematch(quick_series):
    play_out(quick_series, loser=0)
    client_with_link(quick_series).post(f"/series/{quick_series.pk}/rematch/")
    rematch = quick_series.rematches.get()
    assert Client().get(f"/series/{rematch.pk}/").status_code == 404
    assert Client().get(f"/series/{quick_series.pk}/").status_code == 404


def test_following_the_table_writes_nothing_to_the_session(quick_series):
    play_out(quick_series, loser=0)
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    html = watcher.get(table_page(quick_series)).content.decode()
    client_with_link(quick_series).post(f"/series/{quick_series.pk}/rematch/")
    saved = watcher.session.load()
    with CaptureQueriesContext(connection) as queries:
        poll(watcher, html)
        watcher.get(table_page(quick_series))
    assert all(
        query["sql"].startswith("SELECT")
        for query in queries.captured_queries
        if "django_session" in query["sql"]
    )
    assert watcher.session.load() == saved
