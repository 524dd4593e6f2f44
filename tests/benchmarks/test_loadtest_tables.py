"""``make loadtest``'s tables: made through the site as phones make them, and driven by its
phones against a live server: a club night's table, a kitchen table on to its rematch."""

from __future__ import annotations

import uuid
from importlib import import_module
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db.models import Q
from django.test import Client

from scoring.models import Deal, Series, Table
from scoring.table import deals
from scoring.table.live import live_version

# Each makes a load test's world and drives its phones: seconds, run by make test only.
pytestmark = pytest.mark.slow


def browser(phone: dict) -> Client:
    client = Client()
    for name, value in phone["cookies"].items():
        client.cookies[name] = value
    return client


def board(phone: dict, link: dict) -> str:
    return browser(phone).get(link["board"]).content.decode()


def table_of(link: dict) -> Table:
    """The table whose page is ``link``'s, through either of its links."""
    token = link["board"].strip("/").split("/")[-1]
    return Table.objects.get(Q(score_token=token) | Q(watch_token=token))


def test_a_kitchen_table_is_started_by_its_scoring_phone_and_watched_by_three(
    db, tables_data, wire
):
    made = tables_data.kitchen_tables(2)
    assert len(made["tables"]) == 2
    for kitchen in made["tables"]:
        phones, (game,) = kitchen["phones"], kitchen["games"]
        table = table_of(game["links"][0])
        assert game["links"][0]["board"] == f"/tables/{table.score_token}/"
        assert {link["board"] for link in game["links"][1:]} == {f"/tables/{table.watch_token}/"}
        assert game["version"] == live_version(table.score_token)
        assert wire.deal_form(board(phones[0], game["links"][0])) is not None
        for phone, link in zip(phones[1:], game["links"][1:], strict=True):
            page = board(phone, link)
            assert wire.board_version(page) == game["version"]
            assert wire.deal_form(page) is None
        # The scoring phone started the table: it manages it (its board shares the links).
        session = import_module(settings.SESSION_ENGINE).SessionStore(
            phones[0]["cookies"][settings.SESSION_COOKIE_NAME]
        )
        assert session["tables_started"] == [table.pk]
    networks = {phone["network"] for kitchen in made["tables"] for phone in kitchen["phones"]}
    assert len(networks) == 2  # a network a table, said by all of its phones


def test_a_kitchen_tables_first_game_had_its_deals_before_the_run(db, tables_data, plan):
    made = tables_data.kitchen_tables(2)
    second = table_of(made["tables"][1]["games"][0]["links"][0])
    assert Deal.objects.filter(series=second.series).count() == plan.played_before(1) > 0
    assert second.series.deal_count == plan.played_before(1)


def test_a_club_night_tables_phones_hold_its_link_for_every_evening(db, tables_data, wire):
    made = tables_data.club_nights(1, 2)
    (club,) = made["tables"]
    assert len(club["games"]) == 2 and len(made["screens"]) == 1
    for game in club["games"]:
        table = table_of(game["links"][0])
        assert table.event is not None
        assert game["links"] == [game["links"][0]] * 4
        for phone in club["phones"]:
            assert wire.deal_form(board(phone, game["links"][0])) is not None


def test_the_pages_say_how_often_the_phones_and_big_screens_ask(db, tables_data):
    made = {"club": tables_data.club_nights(1, 1), "kitchen": tables_data.kitchen_tables(1)}
    assert tables_data.pages_read(made) == {"poll_every": 2.0, "screen_every": 5.0}


def near_the_goat(series: Series, plan, table: int) -> None:
    """Play the game at table ``table`` to one deal before its goat, as the load test's deals."""
    for number in range(series.deal_count + 1, plan.series_length(table)):
        scored = plan.points(table, number)
        deals.deal_record(
            series_id=series.pk,
            number=number,
            points=(scored, 120 - scored),
            tricks=None,
            entry_key=uuid.uuid4(),
        )


def step(live_server, phones, plan, kind, made: dict):
    """One step of one table, 4 s measured, every phone polling twice a second; one deal (due
    within 0.2 s: the phases are the seed's), every request's answer waited for."""
    every = {"poll_every": 0.5, "screen_every": 1.0}
    timing = phones.Timing(deal_every=5, warm_up=0, window=4)
    load = phones.Load(urlsplit(live_server.url).port, made, kind, every, 26, timing)
    return load, load.step(1)


def test_a_kitchen_tables_phones_follow_its_rematch_through_their_links(
    transactional_db, live_server, tables_data, phones, plan
):
    made = tables_data.kitchen_tables(1)
    game = made["tables"][0]["games"][0]
    table = table_of(game["links"][0])
    first = table.series
    near_the_goat(first, plan, 0)
    game["version"] = live_version(table.score_token)
    load, figures = step(live_server, phones, plan, plan.KITCHEN, made)
    assert figures.failures == dict.fromkeys(plan.KITCHEN.sends, 0), figures.examples
    assert len(figures.latencies["rematch"]) == 1
    table.refresh_from_db()
    assert table.series.rematch_of_id == first.pk
    # Every phone's board shows the new game's version, the watchers' by their polls alone.
    now = live_version(table.score_token)
    for phone in load.tables[0].phones:
        assert phone.versions[load.tables[0].link(phone)["live"]] == now
    assert figures.news >= 3  # each watcher: the deal that ended the game, or the rematch


def test_a_club_night_tables_phones_and_big_screen_are_answered(
    transactional_db, live_server, tables_data, phones, plan
):
    made = tables_data.club_nights(1, 2)
    _load, figures = step(live_server, phones, plan, plan.CLUB, made)
    assert figures.failures == dict.fromkeys(plan.CLUB.sends, 0), figures.examples
    assert figures.latencies["deal"] and figures.latencies["big screen"]
    played = table_of(made["tables"][0]["games"][0]["links"][0]).series
    assert played.deal_count == 1
