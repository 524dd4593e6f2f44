"""Every request that changes a league, for owner, scorer, viewer, outsider and anonymous.

Expected answers: outsiders get 404 everywhere; an anonymous visitor is sent to log in on the
league pages (``/leagues/...``, ``/series/<pk>/move/``) and gets 404 on a league's series pages,
which are open only to members or link holders; a role too small gets 403 (viewers cannot
score, scorers cannot manage the league). Whatever is refused changes nothing.

A quick game is managed (its links renewed, moved into a league) only by whoever started it: a
scoring link lets its holder score, not manage; a league role gives nothing in a quick game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import Membership, Player, Role
from tests.helpers import (
    client_with_link,
    creator_client,
    finished,
    html,
    league_snapshot,
    logged_in,
    record,
    start_series,
)

WHO = ("owner", "scorer", "viewer", "outsider", "anonymous")
MANAGE = {"owner"}
SCORE = {"owner", "scorer"}
LOGIN = "login"
OK = "ok"


def no_data(ctx) -> dict:
    return {}


@dataclass(frozen=True)
class Action:
    name: str
    url: Callable[[dict], str]
    data: Callable[[dict], dict]
    allowed: frozenset[str]
    anonymous: str  # LOGIN (redirect to log in) or "404"
    refused_member: int = 403  # what a member whose role is too small gets
    prepare: Callable[[dict], None] | None = None  # before the request (and the snapshot)


def merge_zoya(ctx) -> None:
    lena = Player.objects.get(league=ctx["league"], name="Lena")
    ctx["merge"] = league_players.players_merge(
        league=ctx["league"], source_id=ctx["player"].pk, target_id=lena.pk, user=ctx["owner"]
    )


def archive(ctx) -> None:
    league_services.league_archive(league=ctx["league"], user=ctx["owner"])


def member_id(ctx, role):
    return Membership.objects.get(league=ctx["league"], user=ctx[role]).pk


def league_url(rest):
    return lambda ctx: f"/leagues/{ctx['league'].pk}/{rest}"


def series_url(rest):
    return lambda ctx: f"/series/{ctx['series'].pk}/{rest}"


ACTIONS = [
    Action(
        "league settings",
        league_url("settings/"),
        lambda ctx: {"name": "Renamed", "preset": "eggs-double"},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "new invite link",
        league_url("invite/"),
        lambda ctx: {"role": "viewer"},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action("revoke invite", league_url("invite/revoke/"), no_data, frozenset(MANAGE), LOGIN),
    Action("new share link", league_url("share/"), no_data, frozenset(MANAGE), LOGIN),
    Action("revoke share link", league_url("share/revoke/"), no_data, frozenset(MANAGE), LOGIN),
    Action(
        "change a role",
        lambda ctx: f"/leagues/{ctx['league'].pk}/members/{member_id(ctx, 'viewer')}/role/",
        lambda ctx: {"role": "scorer"},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "remove a member",
        lambda ctx: f"/leagues/{ctx['league'].pk}/members/{member_id(ctx, 'viewer')}/remove/",
        no_data,
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "transfer ownership",
        league_url("transfer/"),
        lambda ctx: {"membership": member_id(ctx, "scorer")},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "link a player to an account",
        lambda ctx: f"/leagues/{ctx['league'].pk}/players/{ctx['player'].pk}/link/",
        lambda ctx: {"user": ctx["scorer"].pk},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "rename a player",
        lambda ctx: f"/leagues/{ctx['league'].pk}/players/{ctx['player'].pk}/rename/",
        lambda ctx: {"name": "Zoe"},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "merge two players",
        lambda ctx: f"/leagues/{ctx['league'].pk}/players/{ctx['player'].pk}/merge/",
        lambda ctx: {"into": Player.objects.get(league=ctx["league"], name="Lena").pk},
        frozenset(MANAGE),
        LOGIN,
    ),
    Action(
        "undo a merge",
        lambda ctx: f"/leagues/{ctx['league'].pk}/changes/{ctx['merge'].pk}/undo/",
        no_data,
        frozenset(MANAGE),
        LOGIN,
        prepare=merge_zoya,
    ),
    Action("archive the league", league_url("archive/"), no_data, frozenset(MANAGE), LOGIN),
    Action(
        "restore the league from the archive",
        league_url("unarchive/"),
        no_data,
        frozenset(MANAGE),
        LOGIN,
        prepare=archive,
    ),
    Action(
        "delete the league",
        league_url("delete/"),
        lambda ctx: {"name": "Kitchen table", "series": "keep"},
        frozenset(MANAGE),
        LOGIN,
    ),
    # The only owner has to hand the league over first: refused with a reason (422).
    Action(
        "leave the league",
        league_url("leave/"),
        no_data,
        frozenset({"scorer", "viewer"}),
        LOGIN,
        refused_member=422,
    ),
    Action(
        "start a series in the league",
        lambda ctx: f"/new/?league={ctx['league'].pk}",
        lambda ctx: {
            "mode": "duel",
            "player_0": "Zhenya",
            "player_1": "Yura",
            "first_dealer": "0",
            "preset": "classic",
            "league": ctx["league"].pk,
        },
        frozenset(SCORE),
        "404",
    ),
    Action(
        "record a deal",
        series_url("deals/"),
        lambda ctx: {"number": ctx["series"].deal_count + 1, "points_0": "70"},
        frozenset(SCORE),
        "404",
    ),
    Action(
        "edit a deal",
        series_url("deals/1/edit/"),
        lambda ctx: {"version": ctx["series"].version, "points_0": "100", "points_1": "20"},
        frozenset(SCORE),
        "404",
    ),
    Action(
        "undo a deal",
        series_url("undo/"),
        lambda ctx: {"number": 1, "version": ctx["series"].version},
        frozenset(SCORE),
        "404",
    ),
    Action(
        "rematch",
        lambda ctx: f"/series/{ctx['done'].pk}/rematch/",
        no_data,
        frozenset(SCORE),
        "404",
    ),
    # A league's game is managed by whoever scores in the league (it has no creator to ask).
    Action(
        "renew a series link",
        series_url("links/"),
        lambda ctx: {"link": "watch"},
        frozenset(SCORE),
        "404",
    ),
    # A league's series is in a league already: nobody may move it (422 with the reason).
    Action(
        "move a series",
        series_url("move/"),
        lambda ctx: {"league": ctx["league"].pk},
        frozenset(),
        LOGIN,
        refused_member=422,
    ),
]


@pytest.fixture
def ctx(league, league_series, owner, scorer, viewer, outsider):
    record(league_series, [70, 50])
    league_services.invite_renew(league=league)
    league_services.share_renew(league=league)
    player = Player.objects.create(name="Zoya", league=league)
    done = finished(league, names=("Lena", "Misha"), mode="duel")
    league.refresh_from_db()
    league_series.refresh_from_db()
    return {
        "league": league,
        "series": league_series,
        "player": player,
        "done": done,
        "owner": owner,
        "scorer": scorer,
        "viewer": viewer,
        "outsider": outsider,
        "anonymous": None,
    }


def expected(action: Action, who: str) -> str:
    if who in action.allowed:
        return OK
    if who == "anonymous":
        return action.anonymous
    if who == "outsider":
        return "404"
    return str(action.refused_member)


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("action", ACTIONS, ids=[action.name for action in ACTIONS])
def test_every_league_change_answers_each_visitor_as_its_role_allows(ctx, action, who):
    client = logged_in(ctx[who])
    if action.prepare:
        action.prepare(ctx)
    before = league_snapshot(ctx["league"])
    response = client.post(action.url(ctx), action.data(ctx))
    want = expected(action, who)
    if want == OK:
        assert response.status_code in (200, 302), response.content[:300]
        assert league_snapshot(ctx["league"]) != before, "an allowed action changed nothing"
        return
    if want == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == int(want)
    assert league_snapshot(ctx["league"]) == before


def test_the_matrix_covers_every_league_url_that_changes_something():
    from scoring.urls import leagues as league_urls

    read_only = {
        "league_list",
        "league_detail",
        "league_standings",
        "league_head_to_head",
        "league_members",
        "league_players",
        "public_standings",
        "public_history",
        "player_edit",  # the owner's forms for one player (rename, merge): reads only
        "league_changes",
        # Not tied to a role in a league: tested in tests/leagues/test_views.py.
        "league_new",
        "league_join",
    }
    covered = {
        "league_settings",
        "invite_renew",
        "invite_revoke",
        "share_renew",
        "share_revoke",
        "membership_role",
        "membership_remove",
        "ownership_transfer",
        "player_link",
        "league_leave",
        "series_move",
        "player_rename",
        "player_merge",
        "merge_undo",
        "league_archive",
        "league_unarchive",
        "league_delete",
    }
    names = {pattern.name for pattern in league_urls.urlpatterns}
    assert names == read_only | covered
    assert len(ACTIONS) == len(covered) + 6  # and the six series actions of a league's series


# In an archived league every change is refused (but for restoring or deleting it, leaving it,
# or handing it over).
STILL_ALLOWED = {
    "restore the league from the archive",
    "delete the league",
    "leave the league",
    "transfer ownership",  # an owner hands an archived league over (to delete their account)
}


@pytest.mark.parametrize(
    "action",
    [action for action in ACTIONS if action.allowed and action.name not in STILL_ALLOWED],
    ids=lambda action: action.name,
)
def test_an_archived_league_refuses_every_change_with_the_reason(ctx, action):
    who = "owner" if "owner" in action.allowed else "scorer"
    if action.prepare:
        action.prepare(ctx)
    archive(ctx)
    before = league_snapshot(ctx["league"])
    response = logged_in(ctx[who]).post(action.url(ctx), action.data(ctx))
    assert response.status_code in (403, 422)
    assert "archive" in response.content.decode()
    assert league_snapshot(ctx["league"]) == before


def test_an_archived_league_can_still_be_left_restored_and_read(ctx):
    archive(ctx)
    league = ctx["league"]
    for who in ("owner", "viewer"):
        for url in (f"/leagues/{league.pk}/", f"/leagues/{league.pk}/standings/"):
            assert logged_in(ctx[who]).get(url).status_code == 200
    assert logged_in(ctx["owner"]).get(f"/leagues/{league.pk}/settings/").status_code == 200
    assert logged_in(None).get(f"/public/{league.share_token}/").status_code == 200
    assert logged_in(ctx["viewer"]).post(f"/leagues/{league.pk}/leave/").status_code == 302
    response = logged_in(ctx["owner"]).post(f"/leagues/{league.pk}/unarchive/")
    assert response.status_code == 302
    league.refresh_from_db()
    assert league.archived_at is None


def test_a_role_is_what_the_matrix_assumes(ctx):
    roles = dict(
        Membership.objects.filter(league=ctx["league"]).values_list("user__username", "role")
    )
    assert roles == {"olga": Role.OWNER, "sergei": Role.SCORER, "vika": Role.VIEWER}


# A quick game: its creator, the holders of its links, league members and strangers ----------

QUICK_WHO = (
    "creator",  # the browser that started it, logged in as the league's scorer
    "anonymous creator",  # the same browser before logging in
    "score link",  # holds the scoring link, logged in as the league's owner
    "watch link",  # holds the watching link, logged in as the league's owner
    "league owner",  # no link: the game is not the league's
    "league scorer",
    "league viewer",
    "outsider",
    "anonymous",
)
QUICK_ACTIONS = {
    # action: (path, data, {visitor: expected answer}); unlisted visitors get 404.
    "renew the scoring link": (
        "links/",
        {"link": "score"},
        {"creator": OK, "anonymous creator": OK, "score link": "403", "watch link": "403"},
    ),
    "renew the watching link": (
        "links/",
        {"link": "watch"},
        {"creator": OK, "anonymous creator": OK, "score link": "403", "watch link": "403"},
    ),
    "move into the league": (
        "move/",
        None,  # the league's id
        {
            "creator": OK,
            "anonymous creator": LOGIN,
            "score link": "403",
            "watch link": "403",
            "anonymous": LOGIN,
        },
    ),
}


def quick_visitor(who: str, series, ctx):
    """A browser for ``who``, seen from the quick game ``series``."""
    users = {"league owner": "owner", "league scorer": "scorer", "league viewer": "viewer"}
    if who in ("creator", "anonymous creator"):
        client = creator_client(series)
        if who == "creator":
            client.force_login(ctx["scorer"])
        return client
    if who in ("score link", "watch link"):
        client = client_with_link(series, getattr(series, f"{who.split()[0]}_token"))
        client.force_login(ctx["owner"])
        return client
    return logged_in(ctx[users.get(who, who)])


@pytest.mark.parametrize("who", QUICK_WHO)
@pytest.mark.parametrize("action", QUICK_ACTIONS)
def test_only_the_creator_manages_a_quick_game(ctx, action, who):
    series = start_series(names=("Anna", "Boris", "Vera", "Gleb"))
    path, data, answers = QUICK_ACTIONS[action]
    client = quick_visitor(who, series, ctx)
    before = league_snapshot(ctx["league"])
    response = client.post(f"/series/{series.pk}/{path}", data or {"league": ctx["league"].pk})
    want = answers.get(who, "404")
    if want == OK:
        assert response.status_code == 302, response.content[:300]
        assert league_snapshot(ctx["league"]) != before, "an allowed action changed nothing"
        return
    if want == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == int(want)
    assert league_snapshot(ctx["league"]) == before


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
    Action(
        "stop sharing the leaderboard",
        event_url("share/revoke/", key="event_done"),
        no_data,
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
    return {**ctx, "event": event, "event_done": done}


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("action", EVENT_ACTIONS, ids=[action.name for action in EVENT_ACTIONS])
def test_every_club_night_change_answers_each_visitor_as_its_role_allows(event_ctx, action, who):
    test_every_league_change_answers_each_visitor_as_its_role_allows(event_ctx, action, who)


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("event_page", EVENT_PAGES)
def test_club_night_pages_open_to_members_by_role(event_ctx, event_page, who):
    rest, allowed = EVENT_PAGES[event_page]
    url = f"/leagues/{event_ctx['league'].pk}/events/" + rest.format(event=event_ctx["event"].pk)
    response = logged_in(event_ctx[who]).get(url)
    if who in allowed:
        assert response.status_code == 200
    elif who == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == (403 if who in ("scorer", "viewer") else 404)


def test_a_table_link_scores_its_own_table_and_nothing_else(event_ctx):
    from scoring.models import EventTable

    event = event_ctx["event"]
    mine, other = EventTable.objects.filter(round__event=event).order_by("number")
    phone = client_with_link(mine.series, mine.series.score_token)
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
    link = event.table_links.get(number=1)
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
    assert client.post(seat, {"player": event.present[0]}).status_code == 302
    assert client.get(seat).status_code == 200
    assert client.get("/public/events/not-a-token/seat/").status_code == 404
    assert client.post("/public/events/not-a-token/seat/", {"player": 1}).status_code == 404
    event_services.share_revoke(event=event)
    assert client.get(seat).status_code == 404
    assert client.post(seat, {"player": event.present[0]}).status_code == 404


def test_a_player_who_picked_a_name_may_do_nothing_more(event_ctx):
    """The seat page's choice opens nothing: no member page, no table, no round."""
    from scoring.models import EventTable

    event = event_ctx["event"]
    phone = logged_in(None)
    phone.post(f"/public/events/{event.share_token}/seat/", {"player": event.present[0]})
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
    link = event.table_links.get(number=1)
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
    }
    read_only = {"event_list", "event_detail", "event_board", "event_cards", "event_public"}
    # By their link, not by a role: the public seat page (its own tests above); the tables' links
    # for the evening are the table's (urls/table.py; their test above).
    by_link = {"event_seat"}
    names = {pattern.name for pattern in event_urls.urlpatterns}
    assert names == changes | read_only | by_link
    assert len(EVENT_ACTIONS) == len(changes)
    assert read_only - {"event_public"} <= set(EVENT_PAGES)
