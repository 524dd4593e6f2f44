""" "Find your seat": a player of a club night, from the evening's public link, picks their name
once on their phone and sees where they sit now and next, with whom, and their results."""

from __future__ import annotations

import html as html_text
import re

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from scoring.events import services as event_services
from scoring.events.forms import seat_key
from scoring.events.tables import company_in
from scoring.models import Player
from scoring.web.sessions import SESSION_SEATS
from tests.helpers import html, league_snapshot, make_event, record

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def text(response) -> str:
    """The page's words, without its tags and with single spaces."""
    words = html_text.unescape(re.sub(r"<[^>]+>", " ", html(response)))
    return " ".join(words.split())


def seat_url(event) -> str:
    return f"/public/events/{event.share_token}/seat/"


def picked(event, player: Player) -> Client:
    """A phone whose player picked their name on the evening's seat page."""
    phone = Client()
    response = phone.post(seat_url(event), {"player": seat_key(event, player.pk)})
    assert response.status_code == 302 and response["Location"] == seat_url(event)
    return phone


def names(ids) -> str:
    found = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
    return " & ".join(found[pk] for pk in ids)


def test_the_seat_page_first_lists_the_evenings_players_to_pick_from(league, client):
    event = make_event(league, 9)
    page = html(client.get(seat_url(event)))
    for player in Player.objects.filter(pk__in=event.present):
        assert f'name="player" value="{seat_key(event, player.pk)}">{player.name}</button>' in page
    assert 'method="post"' in page


def test_a_picked_player_sees_their_table_seat_partner_and_opponents_now_and_next(league):
    event = make_event(league, 8)
    player = Player.objects.get(pk=event.plan[0]["tables"][1][3])  # West at table 2
    shown = text(picked(event, player).get(seat_url(event)))
    for number, state in ((1, "in play"), (2, "next")):
        company = company_in(event, number, player.pk)
        part = shown.split(f"Round {number} of 3 · {state}", 1)[1]
        assert part.startswith(f" Table {company.place.table}, {company.place.seat_name}")
        assert f"Partner (opposite you): {names(company.partners)}" in part
        assert f"Opponents: {names(company.opponents)}" in part
    assert "Round 3 of 3" not in shown
    assert "Nothing played yet." in shown


def test_a_player_sitting_out_is_told_so(league):
    event = make_event(league, 9)
    player = Player.objects.get(pk=event.plan[0]["out"][0])
    shown = text(picked(event, player).get(seat_url(event)))
    assert "Round 1 of 3 · in play You sit out this round." in shown


def test_the_players_results_so_far_are_their_leaderboard_line(league):
    event = make_event(league, 8)
    player = Player.objects.get(pk=event.plan[0]["tables"][0][0])
    table = player.seats.get().series
    record(table, [30, 90])  # North's side takes the defeat points
    event_services.round_finish(event=event)
    shown = text(picked(event, player).get(seat_url(event)))
    against = table.totals[0]
    assert "Series played 1 Series won 0" in shown and "Goats 0" in shown
    assert "Share of series won, as the order counts it (per cent) 33" in shown  # 0 of 1
    assert f"Defeat points against (taken by their side) {against}" in shown
    assert re.search(r"Place \d of 8", shown)
    assert "Round 1 of 3 · over" in shown and "Round 2 of 3 · next" in shown


def test_the_choice_is_remembered_on_the_phone_and_another_name_can_be_picked(league):
    event = make_event(league, 8)
    first, second = Player.objects.filter(pk__in=event.present).order_by("pk")[:2]
    phone = picked(event, first)
    assert f"<h1>{first.name}</h1>" in html(phone.get(seat_url(event)))
    again = phone.get(seat_url(event), {"pick": "1"})
    # The list again, the choice kept meanwhile.
    assert f'value="{seat_key(event, second.pk)}"' in html(again)
    assert f"<h1>{first.name}</h1>" in html(phone.get(seat_url(event)))
    phone.post(seat_url(event), {"player": seat_key(event, second.pk)})
    assert f"<h1>{second.name}</h1>" in html(phone.get(seat_url(event)))


@pytest.mark.parametrize("value", ["", "abc", "9223372036854775808", "-1", "0", "other", "id"])
def test_a_name_not_of_the_evening_is_refused_in_the_page_and_nothing_is_kept(league, value):
    event = make_event(league, 8)
    if value == "other":  # a player of the league who is not at this club night
        value = seat_key(event, Player.objects.create(name="Stranger", league=league).pk)
    if value == "id":  # a player's row id is no name of the evening's
        value = str(event.present[0])
    phone = Client()
    before = league_snapshot(league)
    response = phone.post(seat_url(event), {"player": value})
    assert response.status_code == 422
    assert "Pick your name from the list." in text(response)
    assert SESSION_SEATS not in phone.session
    assert league_snapshot(league) == before


def test_opening_the_seat_page_writes_nothing(league):
    event = make_event(league, 8)
    sessions = Session.objects.count()
    Client().get(seat_url(event))
    Client().get(seat_url(event), {"pick": "1"})
    assert Session.objects.count() == sessions


def test_the_seat_pages_poll_answers_204_until_the_evening_moves_on(league):
    event = make_event(league, 8)
    player = Player.objects.get(pk=event.plan[0]["tables"][0][0])
    phone = picked(event, player)
    page = html(phone.get(seat_url(event)))
    poll = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert 'hx-trigger="every 5s"' in page
    assert phone.get(poll, headers=HTMX).status_code == 204
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    news = phone.get(poll, headers=HTMX)
    assert news.status_code == 200
    assert 'id="seat"' in html(news) and "<html" not in html(news)
    assert "Round 2 of 3 · in play" in text(news) and "Round 3 of 3 · next" in text(news)


def test_the_last_round_says_so(league):
    event = make_event(league, 8, rounds=1)
    player = Player.objects.get(pk=event.present[0])
    phone = picked(event, player)
    assert "This is the last round of the evening." in text(phone.get(seat_url(event)))
    event_services.round_finish(event=event)
    assert "That was the last round of the evening." in text(phone.get(seat_url(event)))


def test_a_renewed_public_link_shuts_the_old_seat_page(league):
    event = make_event(league, 8)
    old = seat_url(event)
    phone = picked(event, Player.objects.get(pk=event.present[0]))
    event = event_services.share_renew(event=event)
    assert phone.get(old).status_code == 404
    assert phone.post(old, {"player": seat_key(event, event.present[0])}).status_code == 404
    assert phone.get(seat_url(event)).status_code == 200


def test_a_poll_whose_player_is_no_longer_of_the_evening_reloads_the_page(league):
    event = make_event(league, 8)
    player = Player.objects.get(pk=event.present[0])
    phone = picked(event, player)
    page = html(phone.get(seat_url(event)))
    poll = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    session = phone.session
    session[SESSION_SEATS] = {str(event.pk): 999_999}  # as after a merge took the id away
    session.save()
    answer = phone.get(poll.replace("version=", "version=old"), headers=HTMX)
    assert answer.status_code == 200 and answer["HX-Refresh"] == "true"


def test_the_name_buttons_carry_no_players_row_id(league):
    event = make_event(league, 8)
    page = html(Client().get(seat_url(event)))
    values = re.findall(r'name="player" value="([^"]+)"', page)
    assert len(values) == 8
    assert not set(values) & {str(player) for player in event.present}
    assert sorted(values) == sorted(seat_key(event, player) for player in event.present)
    other = make_event(league, 8, name="Another night")
    assert not set(values) & set(
        re.findall(r'value="([^"]+)"', html(Client().get(seat_url(other))))
    )
