"""Every request of a club night, for owner, scorer, viewer, outsider and anonymous: organisers
(owners, scorers) change it, members look, a table's link scores its own table and nothing else,
the public link opens the leaderboard and the seat page."""

from __future__ import annotations

import uuid

import pytest

from scoring.events.forms import seat_key
from scoring.table import proposals
from tests.authorization import (
    LOGIN,
    SCORE,
    WHO,
    Action,
    each_answered_as_allowed,
    no_data,
)
from tests.helpers import (
    client_with_link,
    html,
    league_snapshot,
    logged_in,
)

# Club nights: organisers (owner, scorer) change them, members look, tables score by link ------


def event_url(rest, key="event"):
    return lambda ctx: f"/leagues/{ctx['league'].pk}/events/{ctx[key].pk}/{rest}"


EVENT_ACTIONS = [
    Action(
        "new club night",
        lambda ctx: f"/leagues/{ctx['league'].pk}/events/new/",
        lambda ctx: {
            "name": "Friday",
            "players": list(ctx["event"].present),
            "rounds": "2",
            "length": "goat",
            "tie_break": "difference",
            "preset": "classic",
        },
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "finish a round (confirmed)",
        event_url("rounds/finish/"),
        lambda ctx: {"confirmed": "1"},
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "start the next round",
        event_url("rounds/next/", key="event_done"),
        no_data,
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "re-seat the rounds to come",
        event_url("players/"),
        lambda ctx: {"players": ctx["event"].present[:-1]},
        frozenset(SCORE),
        LOGIN,
    ),
    Action("share the leaderboard", event_url("share/"), no_data, frozenset(SCORE), LOGIN),
    Action("a new code for the TV", event_url("tv-code/"), no_data, frozenset(SCORE), LOGIN),
    Action(
        "stop sharing the leaderboard",
        event_url("share/revoke/", key="event_done"),
        no_data,
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "renew a table's link",
        event_url("links/"),
        lambda ctx: {"change": "renew", "table": "1"},
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "end every link of the evening",
        event_url("links/", key="event_done"),
        lambda ctx: {"change": "end"},
        frozenset(SCORE),
        LOGIN,
    ),
    Action(
        "add a deal a table proposed",
        lambda ctx: (
            f"/leagues/{ctx['league'].pk}/events/{ctx['event_done'].pk}/"
            f"proposals/{ctx['proposal'].pk}/"
        ),
        lambda ctx: {"decision": "accept"},
        frozenset(SCORE),
        LOGIN,
    ),
]
EVENT_PAGES = {
    # page: who may see it (members by role); outsiders get 404, anonymous visitors log in.
    "event_list": ("", {"owner", "scorer", "viewer"}),
    "event_detail": ("{event}/", {"owner", "scorer", "viewer"}),
    "event_board": ("{event}/board/", {"owner", "scorer", "viewer"}),
    "event_cards": ("{event}/cards/", {"owner", "scorer"}),
    "event_round_finish": ("{event}/rounds/finish/", {"owner", "scorer"}),  # the question
    "event_players": ("{event}/players/", {"owner", "scorer"}),
    "event_new": ("new/", {"owner", "scorer"}),
}


@pytest.fixture
def event_ctx(ctx):
    from scoring.events import services as event_services
    from tests.helpers import make_event

    event = make_event(ctx["league"], 8, rounds=3)
    done = make_event(ctx["league"], 8, rounds=3, name="Done")
    event_services.round_finish(event=done)
    event_services.share_renew(event=done)
    table = done.played_rounds.get().tables.get(number=1)
    proposal = proposals.proposal_send(
        series_id=table.series_id, number=1, entry_key=uuid.uuid4(), points=(70, 50),
        tricks=None, sides=(0, 1),
    )  # fmt: skip
    return {**ctx, "event": event, "event_done": done, "proposal": proposal}


@pytest.mark.parametrize("action", EVENT_ACTIONS, ids=[action.name for action in EVENT_ACTIONS])
def test_every_club_night_change_answers_each_visitor_as_its_role_allows(event_ctx, action):
    each_answered_as_allowed(event_ctx, action)


@pytest.mark.parametrize("event_page", EVENT_PAGES)
def test_club_night_pages_open_to_members_by_role(event_ctx, event_page):
    rest, allowed = EVENT_PAGES[event_page]
    url = f"/leagues/{event_ctx['league'].pk}/events/" + rest.format(event=event_ctx["event"].pk)
    for who in WHO:  # a GET writes nothing: one world for every visitor
        response = logged_in(event_ctx[who]).get(url)
        if who in allowed:
            assert response.status_code == 200, who
        elif who == "anonymous":
            assert response.status_code == 302
            assert response["Location"].startswith("/accounts/login/")
        else:
            assert response.status_code == (403 if who in ("scorer", "viewer") else 404), who


def test_a_table_link_scores_its_own_table_and_nothing_else(event_ctx):
    from scoring.models import EventTable

    event = event_ctx["event"]
    mine, other = EventTable.objects.filter(round__event=event).order_by("number")
    phone = client_with_link(mine.series, mine.series.table.score_token)
    assert phone.post(
        f"/series/{mine.series.pk}/deals/", {"number": 1, "points_0": "70"}
    ).status_code in (200, 302)
    before = league_snapshot(event_ctx["league"])
    assert (
        phone.post(f"/series/{other.series.pk}/deals/", {"number": 1, "points_0": "70"}).status_code
        == 404
    )
    for rest in ("", "board/", "cards/"):
        response = phone.get(f"/leagues/{event_ctx['league'].pk}/events/{event.pk}/{rest}")
        assert response.status_code == 302  # to log in
    assert (
        phone.post(
            f"/leagues/{event_ctx['league'].pk}/events/{event.pk}/rounds/finish/"
        ).status_code
        == 302
    )
    assert league_snapshot(event_ctx["league"]) == before


@pytest.mark.parametrize("who", WHO)
def test_a_tables_evening_link_scores_its_table_in_each_round_and_nothing_else(event_ctx, who):
    """Whoever opens a table's link for the evening (an outsider's phone, an anonymous one)
    scores the round's game at that table, and nothing else: not the other tables, not the
    organiser's pages or actions, not a game of a round it no longer plays."""
    from scoring.events import services as event_services
    from scoring.models import EventTable

    event = event_ctx["event"]
    link = event.tables.get(number=1)
    phone = logged_in(event_ctx[who])
    assert phone.post(link.get_absolute_url()).status_code == 302
    mine, other = EventTable.objects.filter(round__event=event).order_by("number")
    assert phone.get(f"/series/{mine.series.pk}/").status_code == 200
    if who in ("owner", "scorer", "viewer"):
        return  # members see every table of their league anyway (the matrix above)
    before = league_snapshot(event_ctx["league"])
    assert phone.get(f"/series/{other.series.pk}/").status_code == 404
    data = {"number": 1, "points_0": "70"}
    assert phone.post(f"/series/{other.series.pk}/deals/", data).status_code == 404
    league = event_ctx["league"].pk
    for rest in ("", "board/", "cards/"):
        assert phone.get(f"/leagues/{league}/events/{event.pk}/{rest}").status_code in (302, 404)
    finish = phone.post(f"/leagues/{league}/events/{event.pk}/rounds/finish/")
    assert finish.status_code in (302, 404) and event.played_rounds.get().finished_at is None
    assert league_snapshot(event_ctx["league"]) == before
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    latest = EventTable.objects.get(round__event=event, round__number=2, number=1)
    assert 'name="entry_key"' in html(phone.get(link.get_absolute_url()))
    assert latest.series_id != mine.series_id


def test_a_table_link_that_names_nothing_is_not_found(db):
    assert logged_in(None).get("/tables/not-a-token/").status_code == 404
    assert logged_in(None).get("/tables/not-a-token/live/").status_code == 286


def test_the_public_leaderboard_opens_by_its_link_only(event_ctx):
    done = event_ctx["event_done"]
    assert logged_in(None).get(f"/public/events/{done.share_token}/").status_code == 200
    assert logged_in(None).get("/public/events/not-a-token/").status_code == 404


@pytest.mark.parametrize("who", WHO)
def test_the_seat_page_opens_to_anyone_with_the_public_link_and_to_nobody_without(event_ctx, who):
    """A player's page ("Find your seat") is the public link's: anyone holding it, member or
    not, picks a name and reads; without it, or once it is off, nothing is found."""
    from scoring.events import services as event_services

    event = event_ctx["event"]
    client = logged_in(event_ctx[who])
    seat = f"/public/events/{event.share_token}/seat/"
    assert client.get(seat).status_code == 200
    assert client.post(seat, {"player": seat_key(event, event.present[0])}).status_code == 302
    assert client.get(seat).status_code == 200
    assert client.get("/public/events/not-a-token/seat/").status_code == 404
    assert client.post("/public/events/not-a-token/seat/", {"player": 1}).status_code == 404
    event_services.share_revoke(event=event)
    assert client.get(seat).status_code == 404
    assert client.post(seat, {"player": seat_key(event, event.present[0])}).status_code == 404


def test_a_player_who_picked_a_name_may_do_nothing_more(event_ctx):
    """The seat page's choice opens nothing: no member page, no table, no round."""
    from scoring.models import EventTable

    event = event_ctx["event"]
    phone = logged_in(None)
    phone.post(
        f"/public/events/{event.share_token}/seat/", {"player": seat_key(event, event.present[0])}
    )
    before = league_snapshot(event_ctx["league"])
    for table in EventTable.objects.filter(round__event=event):
        assert phone.get(f"/series/{table.series_id}/").status_code == 404
        response = phone.post(f"/series/{table.series_id}/deals/", {"number": 1, "points_0": "70"})
        assert response.status_code == 404
    for rest in ("", "board/", "cards/", "rounds/finish/"):
        response = phone.get(f"/leagues/{event_ctx['league'].pk}/events/{event.pk}/{rest}")
        assert response.status_code == 302  # to log in
    finish = f"/leagues/{event_ctx['league'].pk}/events/{event.pk}/rounds/finish/"
    assert phone.post(finish, {"confirmed": "1"}).status_code == 302
    assert league_snapshot(event_ctx["league"]) == before


def test_a_table_link_scores_its_tables_game_in_each_round_and_nothing_else(event_ctx):
    """The table's link for the evening: its table's game of the round in play, then of the
    next round (the finished round's game refuses changes), never another table's."""
    from django.test import Client

    from scoring.events import services as event_services
    from scoring.models import EventTable

    event = event_ctx["event"]
    link = event.tables.get(number=1)
    phone = Client()
    assert phone.post(link.get_absolute_url()).status_code == 302
    mine, other = EventTable.objects.filter(round__event=event).order_by("number")
    assert 'name="entry_key"' in phone.get(f"/series/{mine.series_id}/").content.decode()
    before = league_snapshot(event_ctx["league"])
    assert phone.get(f"/series/{other.series_id}/").status_code == 404
    deal = {"number": 1, "points_0": "70"}
    assert phone.post(f"/series/{other.series_id}/deals/", deal).status_code == 404
    for rest in ("", "board/", "cards/", "rounds/finish/"):
        response = phone.get(f"/leagues/{event_ctx['league'].pk}/events/{event.pk}/{rest}")
        assert response.status_code == 302  # to log in
    assert league_snapshot(event_ctx["league"]) == before
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    assert phone.post(f"/series/{mine.series_id}/deals/", deal).status_code == 422  # closed
    following = EventTable.objects.get(round__event=event, round__number=2, number=1)
    assert phone.post(f"/series/{following.series_id}/deals/", deal).status_code in (200, 302)
    assert following.series.deals.count() == 1
    second = EventTable.objects.get(round__event=event, round__number=2, number=2)
    assert phone.post(f"/series/{second.series_id}/deals/", deal).status_code == 404


def test_the_matrix_covers_every_club_night_url():
    from scoring.urls import events as event_urls

    changes = {
        "event_new",  # its POST; its GET is in EVENT_PAGES
        "event_round_finish",  # its POST; its GET (the question) is in EVENT_PAGES
        "event_round_next",
        "event_players",  # its POST; its GET is in EVENT_PAGES
        "event_share",
        "event_share_revoke",
        "event_links",
        "event_proposal",
        "event_tv_code",
    }
    read_only = {"event_list", "event_detail", "event_board", "event_cards", "event_public"}
    # By their link, not by a role: the public seat page (its own tests above); the tables' links
    # for the evening are the table's (urls/table.py; their test above).
    # The TV's way in, by the evening's code (tests/events/test_tv.py).
    by_link = {"event_seat", "tv"}
    names = {pattern.name for pattern in event_urls.urlpatterns}
    assert names == changes | read_only | by_link
    # Every change has a row (the links' two: one table renewed, every link ended).
    assert len(EVENT_ACTIONS) == len(changes) + 1
    assert read_only - {"event_public"} <= set(EVENT_PAGES)
