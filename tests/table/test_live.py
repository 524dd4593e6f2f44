"""The live view: a spectator's phone polls, and sees each new deal within one poll.

The scoreboard of a watcher polls ``/series/<pk>/live/?version=<v>`` every three seconds. While
nothing changed the answer is an empty 204 from a couple of small queries, whatever the series'
length; once a deal is recorded it is the fresh scoreboard, carrying the new version.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.table.services import series_link_renew
from tests.helpers import client_with_link, logged_in, play_out, record

HTMX = {"HX-Request": "true"}


def live_url(series, version=None) -> str:
    series.refresh_from_db()
    return f"/series/{series.pk}/live/?version={series.version if version is None else version}"


def polled_version(html: str, every: int = 2) -> int:
    """The version an open scoreboard asks the live view about, every ``every`` seconds."""
    match = re.search(
        r'data-version="(\d+)"\s+data-live="/series/\d+/live/" data-every="(\d+)"', html
    )
    assert match, "the scoreboard does not poll"
    assert int(match.group(2)) == every
    return int(match.group(1))


def test_a_spectators_scoreboard_polls_and_has_no_deal_form(quick_series):
    watcher = client_with_link(quick_series, quick_series.watch_token)
    html = watcher.get(f"/series/{quick_series.pk}/").content.decode()
    quick_series.refresh_from_db()
    assert polled_version(html) == quick_series.version
    assert 'name="entry_key"' not in html


def test_nothing_new_is_an_empty_204(quick_series):
    watcher = client_with_link(quick_series, quick_series.watch_token)
    response = watcher.get(live_url(quick_series), headers=HTMX)
    assert response.status_code == 204
    assert response.content == b""


@pytest.mark.parametrize("deals", [1, 20])
def test_nothing_new_costs_the_same_few_queries_however_long_the_series(
    quick_series, deals, django_assert_max_num_queries
):
    for _ in range(deals):
        record(quick_series, [60, 60], [True, True])  # eggs: nobody scores, the series goes on
    watcher = client_with_link(quick_series, quick_series.watch_token)
    url = live_url(quick_series)
    with django_assert_max_num_queries(3):  # session, then the series' version and tokens
        assert watcher.get(url, headers=HTMX).status_code == 204


def test_a_new_deal_reaches_the_spectator_at_the_next_poll(quick_series):
    watcher = client_with_link(quick_series, quick_series.watch_token)
    url = live_url(quick_series)
    assert watcher.get(url, headers=HTMX).status_code == 204
    scorer = client_with_link(quick_series)
    page = scorer.get(f"/series/{quick_series.pk}/").content.decode()
    key = re.search(r'name="entry_key" value="([^"]+)"', page).group(1)
    recorded = scorer.post(
        f"/series/{quick_series.pk}/deals/", {"number": 1, "entry_key": key, "points_0": "35"}
    )
    assert recorded.status_code == 302
    fresh = watcher.get(url, headers=HTMX)
    html = fresh.content.decode()
    assert fresh.status_code == 200
    assert 'id="scoreboard"' in html and "<html" not in html  # the fragment, not a page
    assert '<span class="pts">35</span>' in html and '<span class="pts">85</span>' in html
    quick_series.refresh_from_db()
    assert polled_version(html) == quick_series.version  # the next poll is a 204 again
    assert watcher.get(live_url(quick_series), headers=HTMX).status_code == 204


def test_a_league_viewer_sees_new_deals_live_too(league_series, viewer):
    client = logged_in(viewer)
    url = live_url(league_series)
    assert client.get(url, headers=HTMX).status_code == 204
    record(league_series, [100, 20])
    fresh = client.get(url, headers=HTMX)
    assert fresh.status_code == 200
    assert '<span class="pts">100</span>' in fresh.content.decode()


def test_strangers_get_nothing_from_the_live_view(quick_series, outsider):
    assert logged_in(outsider).get(live_url(quick_series)).status_code == 404
    assert logged_in(None).get(live_url(quick_series)).status_code == 404


def test_a_poll_that_lost_its_link_is_told_so_and_stops_polling(quick_series):
    watcher = client_with_link(quick_series, quick_series.watch_token)
    series_link_renew(series=quick_series, link="watch")
    response = watcher.get(
        f"/series/{quick_series.pk}/live/?version=0", headers={"HX-Request": "true"}
    )
    assert response.status_code == 286
    assert "This link no longer works" in response.content.decode()
    # Without htmx (a plain visit) the series is simply not there for this browser.
    assert watcher.get(f"/series/{quick_series.pk}/live/").status_code == 404


def test_a_poll_for_a_series_that_does_not_exist_gets_the_same_answer(db):
    response = Client().get("/series/999999/live/", headers={"HX-Request": "true"})
    assert response.status_code == 286


def test_a_watcher_of_a_finished_game_is_shown_the_rematch_and_may_watch_it(quick_series):
    play_out(quick_series, loser=0)
    scorer = client_with_link(quick_series)
    watcher = client_with_link(quick_series, quick_series.watch_token)
    html = watcher.get(f"/series/{quick_series.pk}/").content.decode()
    assert polled_version(html, every=10)  # still looking out for a rematch
    assert watcher.get(live_url(quick_series), headers=HTMX).status_code == 204
    before = live_url(quick_series)
    rematch_url = scorer.post(f"/series/{quick_series.pk}/rematch/").url
    board = watcher.get(before, headers=HTMX)  # the next poll brings the way to the rematch
    assert board.status_code == 200
    assert f'href="{rematch_url}"' in board.content.decode()
    assert "data-live" not in board.content.decode()  # nothing more to wait for
    rematch = watcher.get(rematch_url)
    assert rematch.status_code == 200
    assert 'name="entry_key"' not in rematch.content.decode()  # watching, not scoring
    co_scorer = client_with_link(quick_series)  # another phone with the old score link
    assert client_with_link(quick_series).get(rematch_url).status_code == 404  # not yet...
    assert f'href="{rematch_url}"' in co_scorer.get(f"/series/{quick_series.pk}/").content.decode()
    again = co_scorer.get(rematch_url)  # ...but once it opens the finished game, it scores on
    assert 'name="entry_key"' in again.content.decode()


def test_a_stranger_learns_nothing_of_a_rematch(quick_series):
    play_out(quick_series, loser=0)
    rematch_url = client_with_link(quick_series).post(f"/series/{quick_series.pk}/rematch/").url
    assert Client().get(rematch_url).status_code == 404
    assert Client().get(f"/series/{quick_series.pk}/").status_code == 404


def test_following_a_rematch_saves_the_session_once(quick_series):
    play_out(quick_series, loser=0)
    watcher = client_with_link(quick_series, quick_series.watch_token)
    client_with_link(quick_series).post(f"/series/{quick_series.pk}/rematch/")
    watcher.get(f"/series/{quick_series.pk}/")  # follows: the session learns the new link
    saved = watcher.session.session_key and watcher.session.load()
    with CaptureQueriesContext(connection) as queries:
        watcher.get(f"/series/{quick_series.pk}/")
    writes = [q["sql"] for q in queries.captured_queries if "django_session" in q["sql"]]
    assert all(sql.startswith("SELECT") for sql in writes)  # nothing new to remember
    assert watcher.session.load() == saved
