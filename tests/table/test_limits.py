"""Limits no real evening reaches: deals per series, and quick games per browser and address."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from scoring import rules
from scoring.models import MAX_DEALS, Deal, Event, Player, Series
from scoring.table import deals, services
from scoring.table.replays import engine_series, row_values
from scoring.web import throttle
from tests.helpers import (
    client_with_link,
    deal_data,
    finished_series,
    logged_in,
    record,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_earlier_starts():
    """Counts start from nothing: the cache is a table that tests on a live server commit to."""
    cache.clear()


EGGS = rules.Deal((60, 60), (True, True))  # scores nothing under the classic rules
FULL = f"This game has reached {MAX_DEALS} deals, the most one game can hold. Start a new game."
NEW_GAME = {
    "mode": "teams",
    "player_0": "Anna",
    "player_1": "Boris",
    "player_2": "Vera",
    "player_3": "Gleb",
    "first_dealer": "0",
    "preset": "classic",
}


def filled(series: Series, count: int) -> Series:
    """``count`` deals of eggs written at once (recording them one by one takes minutes)."""
    running = engine_series(series, [])
    rows = []
    for number in range(1, count + 1):
        in_play = running.in_play
        running.add(EGGS)
        rows.append(Deal(series=series, number=number, **row_values(EGGS, in_play)))
    Deal.objects.bulk_create(rows)
    services.series_refresh(series, running.state)
    series.refresh_from_db()
    return series


def page(response) -> str:
    return response.content.decode()


# Deals per series ----------------------------------------------------------------------------


def test_a_real_game_ends_long_before_the_deal_limit(db):
    assert finished_series().deal_count < MAX_DEALS / 10


def test_the_service_records_the_last_deal_a_series_holds_and_refuses_the_next(quick_series):
    series = record(filled(quick_series, MAX_DEALS - 1), (60, 60), (True, True))
    assert series.deal_count == MAX_DEALS
    outcome = deals.deal_record(
        series_id=series.pk, number=MAX_DEALS + 1, points=(70, 50), tricks=None
    )
    assert outcome.entry is deals.Entry.FULL
    series.refresh_from_db()
    assert series.deal_count == Deal.objects.filter(series=series).count() == MAX_DEALS


def test_the_last_deal_is_entered_on_the_page(quick_series):
    client = client_with_link(filled(quick_series, MAX_DEALS - 1))
    page_before = client.get(quick_series.get_absolute_url())
    assert FULL not in page(page_before)
    data = deal_data(page_before, points_0="60", points_1="60", tricks_0="yes", tricks_1="yes")
    assert client.post(f"/series/{quick_series.pk}/deals/", data).status_code == 302
    assert Deal.objects.filter(series=quick_series).count() == MAX_DEALS


@pytest.mark.parametrize("htmx", [False, True])
def test_a_full_series_says_so_and_takes_no_more_deals(quick_series, htmx):
    client = client_with_link(filled(quick_series, MAX_DEALS))
    headers = {"HX-Request": "true"} if htmx else {}
    shown = page(client.get(quick_series.get_absolute_url(), headers=headers))
    assert FULL in shown
    assert 'name="entry_key"' not in shown  # no deal form to fill in for nothing
    data = {"number": MAX_DEALS + 1, "points_0": "70", "points_1": "50"}
    response = client.post(f"/series/{quick_series.pk}/deals/", data, headers=headers)
    assert response.status_code == 422
    assert FULL in page(response)
    assert Deal.objects.filter(series=quick_series).count() == MAX_DEALS


def test_a_watcher_of_a_full_series_is_not_told_to_start_a_game(quick_series):
    filled(quick_series, MAX_DEALS)
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    assert FULL not in page(watcher.get(quick_series.get_absolute_url()))


def test_a_deal_that_fills_the_series_from_another_phone_meanwhile_is_refused(
    quick_series, monkeypatch
):
    """The view read 299 deals; by the time the service holds the lock, deal 300 is in."""
    client = client_with_link(filled(quick_series, MAX_DEALS - 1))
    form = client.get(quick_series.get_absolute_url())
    original = deals.deal_record

    def filled_meanwhile(**kwargs):
        original(series_id=quick_series.pk, number=MAX_DEALS, points=(60, 60), tricks=None)
        return original(**{**kwargs, "number": MAX_DEALS + 1})

    monkeypatch.setattr(deals, "deal_record", filled_meanwhile)
    data = deal_data(form, points_0="70", points_1="50")
    response = client.post(f"/series/{quick_series.pk}/deals/", data)
    assert response.status_code == 422
    assert FULL in page(response)
    assert Deal.objects.filter(series=quick_series).count() == MAX_DEALS


# Quick games per browser and per address -----------------------------------------------------


def new_game(client: Client, query: str = ""):
    return client.post(f"/new/{query}", NEW_GAME)


def test_a_browser_starts_as_many_quick_games_an_hour_as_allowed_and_no_more(settings):
    assert settings.QUICK_GAMES_PER_SESSION == 30
    client = Client()
    for _ in range(settings.QUICK_GAMES_PER_SESSION):
        assert new_game(client).status_code == 302  # the 30th too
    refused = new_game(client)
    assert refused.status_code == 422
    assert "This browser has started 30 quick games in the last hour" in page(refused)
    assert 'name="player_0"' in page(refused) and "Anna" in page(refused)  # the form is kept
    assert Series.objects.count() == 30
    assert new_game(Client()).status_code == 302  # another browser on the same address may


def test_an_address_starts_as_many_quick_games_an_hour_as_allowed(settings):
    settings.QUICK_GAMES_PER_ADDRESS = 3
    for _ in range(3):
        assert new_game(Client()).status_code == 302  # a new browser (session) each time
    refused = new_game(Client())
    assert refused.status_code == 422
    assert "3 quick games were started from your network in the last hour" in page(refused)
    assert new_game(Client(REMOTE_ADDR="198.51.100.7")).status_code == 302
    assert Series.objects.count() == 4


def test_starts_older_than_an_hour_no_longer_count(settings, monkeypatch):
    settings.QUICK_GAMES_PER_SESSION = 2
    client = Client()
    now = 1_800_000_000.0
    monkeypatch.setattr(throttle.time, "time", lambda: now)
    assert new_game(client).status_code == 302
    monkeypatch.setattr(throttle.time, "time", lambda: now + 1800)
    assert new_game(client).status_code == 302
    assert new_game(client).status_code == 422
    monkeypatch.setattr(throttle.time, "time", lambda: now + throttle.WINDOW + 1)
    assert new_game(client).status_code == 302  # the first start is over an hour old
    assert new_game(client).status_code == 422


def test_a_refused_form_is_not_counted(settings):
    settings.QUICK_GAMES_PER_SESSION = 1
    client = Client()
    assert client.post("/new/", {**NEW_GAME, "mode": "nonsense"}).status_code == 422
    assert new_game(client).status_code == 302


def test_league_games_are_not_limited_like_quick_games(settings, league, scorer):
    """League games need a member's account, and the league's owner answers for its scorers:
    they have a limit of their own, and do not use up the quick games."""
    settings.QUICK_GAMES_PER_SESSION = settings.QUICK_GAMES_PER_ADDRESS = 1
    client = logged_in(scorer)
    for _ in range(3):
        assert new_game(client, f"?league={league.pk}").status_code == 302
    assert Series.objects.filter(league=league).count() == 3
    assert new_game(client).status_code == 302  # the one quick game allowed
    refused = new_game(client)
    assert refused.status_code == 422
    assert "quick game" in page(refused)
    assert new_game(client, f"?league={league.pk}").status_code == 302


def test_a_rematch_of_a_quick_game_is_a_quick_game_started(settings):
    settings.QUICK_GAMES_PER_SESSION = 2
    series = finished_series()
    client = client_with_link(series)
    assert new_game(client).status_code == 302
    assert client.post(f"/series/{series.pk}/rematch/").status_code == 302
    rematch = series.rematches.get()
    assert client.post(f"/series/{series.pk}/rematch/").status_code == 302  # the same one again
    assert series.rematches.count() == 1
    second = finished_series(names=("Ira", "Kolya", "Liza", "Max"))
    assert client.post(f"/tables/{second.table.score_token}/").status_code == 302  # its link too
    refused = client.post(f"/series/{second.pk}/rematch/")
    assert refused.status_code == 422
    assert "This browser has started 2 quick games in the last hour" in page(refused)
    assert not second.rematches.exists()
    assert rematch.pk  # the first rematch stands


def test_a_league_rematch_is_not_limited(settings, league, scorer):
    settings.QUICK_GAMES_PER_SESSION = settings.QUICK_GAMES_PER_ADDRESS = 1
    client = logged_in(scorer)
    for names in (("Lena", "Misha", "Nina", "Pavel"), ("Ira", "Kolya", "Liza", "Max")):
        series = finished_series(league=league, names=names)
        assert client.post(f"/series/{series.pk}/rematch/").status_code == 302
    assert Series.objects.filter(league=league, rematch_of__isnull=False).count() == 2


# League games per account ---------------------------------------------------------------------


def test_an_account_starts_as_many_league_games_an_hour_as_allowed_and_no_more(
    settings, league, scorer, owner
):
    """Regression: forty league games from a new account in minutes were all accepted."""
    assert settings.LEAGUE_GAMES_PER_ACCOUNT == 30
    settings.LEAGUE_GAMES_PER_ACCOUNT = 4
    client = logged_in(scorer)
    for _ in range(4):
        assert new_game(client, f"?league={league.pk}").status_code == 302
    refused = new_game(client, f"?league={league.pk}")
    assert refused.status_code == 422
    assert "You have started 4 league games in the last hour" in page(refused)
    assert 'name="player_0"' in page(refused) and "Anna" in page(refused)  # the form is kept
    assert Series.objects.filter(league=league).count() == 4
    assert new_game(logged_in(owner), f"?league={league.pk}").status_code == 302  # another one


def test_a_club_nights_tables_are_not_counted_against_its_organiser(settings, league, owner):
    settings.LEAGUE_GAMES_PER_ACCOUNT = 1
    client = logged_in(owner)
    players = [Player.objects.create(name=f"Guest {n}", league=league).pk for n in range(8)]
    night = {"name": "Friday", "players": players, "rounds": "3", "length": "goat",
             "tie_break": "difference", "preset": "classic"}  # fmt: skip
    assert client.post(f"/leagues/{league.pk}/events/new/", night).status_code == 302
    event = Event.objects.get()
    finish = f"{event.get_absolute_url()}rounds/finish/"
    assert client.post(finish, {"confirmed": "1"}).status_code == 302
    assert client.post(f"{event.get_absolute_url()}rounds/next/").status_code == 302
    assert Series.objects.filter(league=league).count() == 4  # two rounds of two tables
    assert new_game(client, f"?league={league.pk}").status_code == 302
