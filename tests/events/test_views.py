"""Club night pages: creating one, the organiser's screen, cards, rounds, re-seating, boards."""

from __future__ import annotations

import re

from scoring.models import Event, EventTable, Player
from tests.helpers import (
    html,
    league_snapshot,
    logged_in,
    make_event,
    play_out,
    query_count,
    record,
)

HTMX = {"HX-Request": "true"}


def _form(league, **changes) -> dict:
    for n in range(1, 9):
        Player.objects.get_or_create(name=f"Guest {n}", league=league)
    players = Player.objects.filter(league=league, name__startswith="Guest")
    data = {
        "name": "Friday",
        "players": [p.pk for p in players],
        "new_players": "",
        "rounds": "3",
        "length": "goat",
        "length_value": "",
        "tie_break": "difference",
        "preset": "classic",
    }
    data.update(changes)
    return data


def test_an_organiser_creates_a_club_night_and_sees_a_qr_code_per_table(league, owner):
    client = logged_in(owner)
    response = client.post(f"/leagues/{league.pk}/events/new/", _form(league))
    event = Event.objects.get()
    assert response.status_code == 302
    assert response["Location"] == event.get_absolute_url()
    page = html(client.get(event.get_absolute_url()))
    links = list(event.table_links.order_by("number"))
    assert len(links) == 2
    for link in links:  # one link per table for the whole evening, and its QR code
        assert f"/tables/{link.token}/" in page
    assert page.count('class="qr-code"') == 3  # and the evening's public link
    assert "Round 1 of 3" in page
    assert "Repeated partners: 0." in page


def test_new_players_typed_in_join_the_ticked_ones(league, scorer):
    data = _form(league, new_players="Zina\n  \nYasha")
    data["players"] = data["players"][:6]
    response = logged_in(scorer).post(f"/leagues/{league.pk}/events/new/", data)
    assert response.status_code == 302
    event = Event.objects.get()
    assert len(event.present) == 8
    assert Player.objects.filter(league=league, name="Zina").exists()


def test_too_few_players_answers_422_and_stores_nothing(league, owner):
    data = _form(league, new_players="")
    data["players"] = data["players"][:3]
    before = league_snapshot(league)
    response = logged_in(owner).post(f"/leagues/{league.pk}/events/new/", data)
    assert response.status_code == 422
    assert "Tick at least 4 present players." in html(response)
    assert league_snapshot(league) == before


def test_a_timed_round_wants_its_minutes(league, owner):
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/events/new/", _form(league, length="minutes")
    )
    assert response.status_code == 422
    assert "Say how many deals or minutes." in html(response)
    assert not Event.objects.exists()


def test_the_table_cards_show_each_tables_seats_and_code(league, owner):
    event = make_event(league, 8)
    page = html(logged_in(owner).get(f"{event.get_absolute_url()}cards/"))
    assert page.count('class="card"') == 2
    assert page.count('class="qr-code"') == 2
    assert "Player 0" in page


def test_finishing_a_timed_round_says_so_on_the_leaderboard(league, owner):
    event = make_event(league, 8, length="deals", length_value=4)
    first = EventTable.objects.filter(round__event=event).order_by("number").first()
    record(first.series, [30, 90])
    client = logged_in(owner)
    assert "Each table plays 4 deals" in html(client.get(event.get_absolute_url()))
    assert client.post(f"{event.get_absolute_url()}rounds/finish/").status_code == 302
    board = html(client.get(f"{event.get_absolute_url()}board/"))
    assert "unfinished series scored by standing defeat points" in board
    assert client.post(f"{event.get_absolute_url()}rounds/next/").status_code == 302
    assert event.played_rounds.count() == 2


def test_the_next_round_before_this_one_is_over_is_refused_with_a_message(league, owner):
    event = make_event(league, 8)
    client = logged_in(owner)
    response = client.post(f"{event.get_absolute_url()}rounds/next/", follow=True)
    assert "Finish the round in play first." in html(response)
    assert event.played_rounds.count() == 1


def test_a_leaver_is_taken_out_of_the_rounds_to_come(league, owner):
    event = make_event(league, 9, rounds=3)
    leaver = event.plan[1]["tables"][0][0]
    keep = [p for p in event.present if p != leaver]
    client = logged_in(owner)
    page = client.get(f"{event.get_absolute_url()}players/")
    assert page.status_code == 200
    response = client.post(f"{event.get_absolute_url()}players/", {"players": keep})
    assert response.status_code == 302
    event.refresh_from_db()
    assert all(leaver not in [p for t in r["tables"] for p in t] for r in event.plan[1:])


def test_the_leaderboard_counts_series_won_and_goats(league, owner):
    event = make_event(league, 8)
    first = EventTable.objects.filter(round__event=event).order_by("number").first()
    play_out(first.series, loser=0)
    response = logged_in(owner).get(f"{event.get_absolute_url()}board/", headers=HTMX)
    page = html(response)
    assert 'id="board"' in page and "<html" not in page
    assert 'hx-trigger="every 5s"' in page
    assert "The most goats" in page


def test_the_public_board_needs_its_link_only(league, owner, client):
    event = make_event(league, 8)
    assert client.get("/public/events/nothing/").status_code == 404
    logged_in(owner).post(f"{event.get_absolute_url()}share/")
    event.refresh_from_db()
    response = client.get(f"/public/events/{event.share_token}/?present=1")
    assert response.status_code == 200
    assert "board-present" in html(response)
    assert "/join/" not in html(response)


def test_the_leaderboard_costs_the_same_with_many_events(league, owner):
    event = make_event(league, 8)
    play_out(EventTable.objects.filter(round__event=event).first().series, eggs=1)
    client = logged_in(owner)
    url = f"{event.get_absolute_url()}board/"
    one = query_count(client, url)
    for n in range(4):
        other = make_event(league, 8, name=f"Other {n}")
        play_out(EventTable.objects.filter(round__event=other).first().series, eggs=1)
    assert query_count(client, url) == one


def test_a_timed_round_says_when_it_ends(league, owner):
    event = make_event(league, 8, length="minutes", length_value=25)
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "The round ends at" in page


def test_the_organisers_screen_counts_sit_outs(league, owner):
    event = make_event(league, 9)
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "Sit-outs per player: " in page


def test_a_new_club_night_starts_from_the_leagues_house_rules(league, owner):
    from scoring import rules

    league.rules = rules.PRESETS["eggs-double"].to_dict()
    league.save()
    page = html(logged_in(owner).get(f"/leagues/{league.pk}/events/new/"))
    assert re.search(r'value="eggs-double"[^>]*checked', page)


def test_the_organisers_screen_counts_each_tables_deals_of_the_round(league, owner):
    event = make_event(league, 8, length="deals", length_value=2)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    record(first.series, [30, 90])
    record(first.series, [30, 90])
    record(second.series, [30, 90])
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "All its deals played" in page
    assert "Deals played: 1 of 2" in page


def test_ids_no_database_holds_are_a_form_error_on_both_players_forms(league, owner):
    """Regression: ``players=9223372036854775808`` was a server error (SQLite's OverflowError)."""
    client = logged_in(owner)
    event = make_event(league, 4, rounds=2)
    _form(league)  # its guests, made before the snapshot
    before = league_snapshot(league)
    for value in ("9223372036854775808", "1" * 30):
        data = _form(league)
        data["players"] = [*data["players"], value]
        response = client.post(f"/leagues/{league.pk}/events/new/", data)
        assert response.status_code == 422
        assert "Pick only from the list." in html(response)
        players = {"players": [*event.present, value], "new_players": ""}
        response = client.post(f"{event.get_absolute_url()}players/", players)
        assert response.status_code == 422
        assert "Pick only from the list." in html(response)
    assert league_snapshot(league) == before
