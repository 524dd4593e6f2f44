"""Phones in step and the flow at the table: every board polls, typed points survive a
conflict, an undo can be put back, links go to other phones (QR, Copy, Share), a renewed link
is explained, a quick game starts in one tap, and the goat moment sums up the evening."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring import rules
from scoring.models import Deal, Player, Series
from scoring.table.scoreboard import build
from tests.helpers import (
    client_with_link,
    creator_client,
    db_snapshot,
    html,
    logged_in,
    play_out,
    record,
    start_series,
)

HTMX = {"HX-Request": "true"}


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


def redo_data(response) -> dict:
    """The POST of the "Put it back" button shown in ``response``."""
    form = re.search(
        r'action="/series/\d+/redo/".*?name="number" value="(\d+)".*?name="version" value="(\d+)"',
        html(response),
        re.DOTALL,
    )
    assert form, "the page offers nothing to put back"
    return {"number": form.group(1), "version": form.group(2)}


# Every open board polls --------------------------------------------------------------------


@pytest.mark.parametrize("holder", ["creator", "score link", "watch link"])
def test_every_open_scoreboard_asks_its_tables_live_view_for_news(quick_series, holder):
    client, token = {
        "creator": lambda: (creator_client(quick_series), quick_series.table.score_token),
        "score link": lambda: (client_with_link(quick_series), quick_series.table.score_token),
        "watch link": lambda: (
            client_with_link(quick_series, quick_series.table.watch_token),
            quick_series.table.watch_token,
        ),
    }[holder]()
    quick_series.refresh_from_db()
    for page in (html(client.get(url(quick_series))), html(client.get(f"/tables/{token}/"))):
        assert f'data-version="0.{quick_series.pk}.{quick_series.version}"' in page
        assert f'data-live="/tables/{token}/live/" data-every="2"' in page


def test_a_scoring_phone_polls_as_cheaply_as_a_watcher(quick_series, django_assert_num_queries):
    scorer = client_with_link(quick_series)
    quick_series.refresh_from_db()
    live = f"/tables/{quick_series.table.score_token}/live/"
    shown = f"0.{quick_series.pk}.{quick_series.version}"
    with django_assert_num_queries(1):
        response = scorer.get(f"{live}?version={shown}", headers=HTMX)
    assert response.status_code == 204
    record(quick_series, (70, 50))
    fresh = scorer.get(f"{live}?version={shown}", headers=HTMX)
    assert fresh.status_code == 200
    assert 'name="entry_key"' in html(fresh)  # a scorer's board comes with its deal form
    assert 'data-number="2"' in html(fresh)


def test_a_stranger_is_not_told_that_a_series_exists(quick_series):
    assert Client().get(url(quick_series)).status_code == 404


# Quick start -------------------------------------------------------------------------------


def test_a_quick_game_starts_in_one_tap_with_the_seats_for_names(db, client):
    assert 'action="/quick/"' in html(client.get("/"))
    response = client.post("/quick/")
    series = Series.objects.get()
    assert response["Location"] == f"/tables/{series.table.score_token}/"  # its table's page
    assert series.mode == "teams" and series.ruleset == rules.PRESETS["classic"]
    names = [seat.player.name for seat in series.seats.order_by("position")]
    assert names == ["North", "East", "South", "West"]
    page = html(client.get(url(series)))
    assert "North &amp; South" in page and 'name="entry_key"' in page
    assert "Change the names" in page  # the creator names the players when the table is ready


def test_a_quick_game_is_counted_like_any_quick_game(db, client, settings):
    settings.QUICK_GAMES_PER_SESSION = 1
    assert client.post("/quick/").status_code == 302
    refused = client.post("/quick/")
    assert refused.status_code == 422
    assert "the most allowed" in html(refused)
    assert Series.objects.count() == 1
    assert client.get("/quick/").status_code == 405


def test_the_creator_names_the_players_later_and_other_games_keep_theirs(db, client):
    client.post("/quick/")
    first = Series.objects.get()
    record(first, (70, 50))
    client.post("/quick/")
    second = Series.objects.exclude(pk=first.pk).get()
    names = {"player_0": "Anna", "player_1": "Boris", "player_2": "Vera", "player_3": "East"}
    version = Series.objects.get(pk=first.pk).version
    assert (
        client.post(url(first, "players/"), names)["Location"]
        == f"/tables/{first.table.score_token}/"
    )
    first.refresh_from_db()
    assert [s.player.name for s in first.seats.order_by("position")] == [
        "Anna",
        "Boris",
        "Vera",
        "East",
    ]
    assert first.version == version + 1  # other phones see the new names at their next poll
    assert first.totals == [0, 2] and first.deal_count == 1
    assert [s.player.name for s in second.seats.order_by("position")] == [
        "North",
        "East",
        "South",
        "West",
    ]
    assert "Anna &amp; Vera" in html(client.get(url(first)))


def test_swapping_two_players_seats_works(db, client):
    client.post("/quick/")
    series = Series.objects.get()
    names = {"player_0": "East", "player_1": "North", "player_2": "South", "player_3": "West"}
    assert client.post(url(series, "players/"), names).status_code == 302
    assert [s.player.name for s in series.seats.order_by("position")] == [
        "East",
        "North",
        "South",
        "West",
    ]
    assert Player.objects.count() == 4


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            {"player_0": "Anna", "player_1": "anna", "player_2": "B", "player_3": "C"},
            "already has a seat",
        ),
        ({"player_0": "Anna", "player_1": "", "player_2": "B", "player_3": "C"}, "Enter a name"),
    ],
)
def test_names_with_mistakes_are_shown_again_and_change_nothing(db, client, names, message):
    client.post("/quick/")
    series = Series.objects.get()
    before = db_snapshot()
    response = client.post(url(series, "players/"), names)
    assert response.status_code == 422 and message in html(response)
    assert db_snapshot() == before


def test_only_the_creator_changes_the_names(quick_series, league_series, owner):
    names = {"player_0": "A", "player_1": "B", "player_2": "C", "player_3": "D"}
    before = db_snapshot()
    assert (
        client_with_link(quick_series).post(url(quick_series, "players/"), names).status_code == 403
    )
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    assert watcher.post(url(quick_series, "players/"), names).status_code == 403
    assert Client().post(url(quick_series, "players/"), names).status_code == 404
    assert logged_in(owner).post(url(league_series, "players/"), names).status_code == 403
    assert db_snapshot() == before
    assert "Change the names" not in html(client_with_link(quick_series).get(url(quick_series)))


# The goat moment ---------------------------------------------------------------------------


def test_the_goat_screen_has_the_final_score_and_this_line_ups_goats_so_far(quick_series):
    play_out(quick_series, loser=0)
    client = creator_client(quick_series)
    page = html(client.get(url(quick_series)))
    assert '<p class="score-line">Anna &amp; Vera 12 : 0 Boris &amp; Gleb</p>' in page
    assert "Goats in this line-up" not in page  # one game: nothing to tally yet
    client.post(url(quick_series, "rematch/"))
    rematch = quick_series.rematches.get()
    play_out(rematch, loser=1)
    client.post(url(rematch, "rematch/"))
    second = rematch.rematches.get()
    play_out(second, loser=0)
    page = html(client.get(url(second)))
    assert "Goats in this line-up's games: Anna &amp; Vera 2 : 1 Boris &amp; Gleb" in page


def test_a_team_is_never_out_only_the_goat(quick_series):
    play_out(quick_series, loser=0)
    board = build(quick_series, list(Deal.objects.filter(series=quick_series).order_by("number")))
    assert "out!" not in board.last.summary
    three = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    record(three, (0, 60, 60), (False, True, True))
    record(three, (0, 60, 60), (False, True, True))
    board = build(three, list(Deal.objects.filter(series=three).order_by("number")))
    assert "Ira: out!" in board.last.summary


def test_the_new_game_hint_about_north_and_south_is_for_team_games(client):
    page = html(client.get("/new/"))
    assert '<p class="hint" data-for-modes="teams">Partners sit opposite: North and South' in page
    assert '<p class="hint" data-for-modes="duel three" hidden>' in page
