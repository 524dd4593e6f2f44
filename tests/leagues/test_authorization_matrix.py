"""Every request that changes a league, for owner, scorer, viewer, outsider and anonymous.

Expected answers: outsiders get 404 everywhere; an anonymous visitor is sent to log in on the
league pages (``/leagues/...``, ``/series/<pk>/move/``) and gets 404 on a league's series pages,
which are open only to members or link holders; a role too small gets 403 (viewers cannot
score, scorers cannot manage the league). Whatever is refused changes nothing. (A quick game's:
tests/table/test_authorization_matrix.py; a club night's: tests/events/.)
"""

from __future__ import annotations

import pytest

from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import Membership, Player, Role
from tests.authorization import (
    LOGIN,
    MANAGE,
    SCORE,
    Action,
    each_answered_as_allowed,
    league_url,
    no_data,
    series_url,
)
from tests.helpers import (
    league_snapshot,
    logged_in,
)


def merge_zoya(ctx) -> None:
    lena = Player.objects.get(league=ctx["league"], name="Lena")
    ctx["merge"] = league_players.players_merge(
        league=ctx["league"], source_id=ctx["player"].pk, target_id=lena.pk, user=ctx["owner"]
    )


def archive(ctx) -> None:
    league_services.league_archive(league=ctx["league"], user=ctx["owner"])


def member_id(ctx, role):
    return Membership.objects.get(league=ctx["league"], user=ctx[role]).pk


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


@pytest.mark.parametrize("action", ACTIONS, ids=[action.name for action in ACTIONS])
def test_every_league_change_answers_each_visitor_as_its_role_allows(ctx, action):
    each_answered_as_allowed(ctx, action)


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
