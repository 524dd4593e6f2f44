"""League services: creating, rules, invites, members, ownership, players, moving games."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.leagues.services import LeagueError
from scoring.models import League, Membership, Player, Role, Series
from tests.helpers import finished, make_user, start_series


def membership(league, user) -> Membership:
    return Membership.objects.get(league=league, user=user)


def test_a_new_league_has_its_creator_as_its_only_owner(owner):
    league = league_services.league_create(name="  Friday   club ", user=owner)
    assert league.name == "Friday club"
    assert list(league.memberships.values_list("user", "role")) == [(owner.pk, Role.OWNER)]
    assert league.rules == rules.PRESETS["classic"].to_dict()


def test_a_league_needs_a_name(owner):
    with pytest.raises(LeagueError):
        league_services.league_create(name="   ", user=owner)
    assert not League.objects.exists()


def test_new_house_rules_apply_to_new_series_and_leave_started_ones_alone(league):
    started = start_series(league=league)
    league_services.league_update_rules(
        league=league, ruleset=rules.PRESETS["eggs-double"], name="Attic"
    )
    league.refresh_from_db()
    started.refresh_from_db()
    assert league.name == "Attic"
    assert league.rules == rules.PRESETS["eggs-double"].to_dict()
    assert started.rules == rules.PRESETS["classic"].to_dict()


def test_an_invite_link_lets_someone_join_with_its_role(league, outsider):
    league = league_services.invite_renew(league=league, role=Role.VIEWER)
    joined = league_services.league_join(token=league.invite_token, user=outsider)
    assert joined.role == Role.VIEWER


def test_a_renewed_invite_link_shuts_the_old_one(league, outsider):
    old = league_services.invite_renew(league=league).invite_token
    league_services.invite_renew(league=league)
    with pytest.raises(LeagueError):
        league_services.league_join(token=old, user=outsider)
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_revoked_invite_link_lets_nobody_in(league, outsider):
    token = league_services.invite_renew(league=league).invite_token
    league_services.invite_revoke(league=league)
    with pytest.raises(LeagueError):
        league_services.league_join(token=token, user=outsider)
    with pytest.raises(LeagueError):
        league_services.league_join(token="", user=outsider)


def test_an_invite_cannot_make_owners(league):
    with pytest.raises(LeagueError):
        league_services.invite_renew(league=league, role=Role.OWNER)


def test_a_member_who_opens_an_invite_keeps_their_role(league, owner):
    token = league_services.invite_renew(league=league, role=Role.VIEWER).invite_token
    assert league_services.league_join(token=token, user=owner).role == Role.OWNER


def test_the_last_owner_keeps_the_owner_role(league, owner):
    with pytest.raises(LeagueError):
        league_services.membership_set_role(
            league=league, membership_id=membership(league, owner).pk, role=Role.VIEWER
        )
    assert membership(league, owner).role == Role.OWNER


def test_an_owner_can_step_down_when_another_owner_remains(league, owner, scorer):
    league_services.membership_set_role(
        league=league, membership_id=membership(league, scorer).pk, role=Role.OWNER
    )
    league_services.membership_set_role(
        league=league, membership_id=membership(league, owner).pk, role=Role.SCORER
    )
    assert membership(league, owner).role == Role.SCORER
    assert membership(league, scorer).role == Role.OWNER


def test_roles_are_only_owner_scorer_or_viewer(league, viewer):
    with pytest.raises(LeagueError):
        league_services.membership_set_role(
            league=league, membership_id=membership(league, viewer).pk, role="admin"
        )


def test_a_membership_of_another_league_cannot_be_changed_from_this_one(league, owner, outsider):
    other = league_services.league_create(name="Other", user=outsider)
    with pytest.raises(LeagueError):
        league_services.membership_remove(
            league=league, membership_id=membership(other, outsider).pk
        )
    assert membership(other, outsider).role == Role.OWNER


def test_removing_a_member_unlinks_their_player(league, viewer):
    player = Player.objects.create(name="Vika", league=league, user=viewer)
    removed = league_services.membership_remove(
        league=league, membership_id=membership(league, viewer).pk
    )
    player.refresh_from_db()
    assert removed == viewer.pk
    assert player.user is None
    assert not Membership.objects.filter(league=league, user=viewer).exists()


def test_the_last_owner_cannot_be_removed(league, owner):
    with pytest.raises(LeagueError):
        league_services.membership_remove(league=league, membership_id=membership(league, owner).pk)
    assert membership(league, owner).role == Role.OWNER


def test_a_scorer_can_leave(league, scorer):
    league_services.league_leave(league=league, user=scorer)
    assert not Membership.objects.filter(league=league, user=scorer).exists()


def test_the_only_owner_must_transfer_before_leaving(league, owner):
    with pytest.raises(LeagueError, match="Transfer ownership"):
        league_services.league_leave(league=league, user=owner)
    assert membership(league, owner).role == Role.OWNER


def test_someone_outside_cannot_leave(league, outsider):
    with pytest.raises(LeagueError):
        league_services.league_leave(league=league, user=outsider)


def test_transferring_ownership_makes_the_old_owner_a_scorer(league, owner, viewer):
    league_services.ownership_transfer(
        league=league, user=owner, membership_id=membership(league, viewer).pk
    )
    assert membership(league, viewer).role == Role.OWNER
    assert membership(league, owner).role == Role.SCORER
    league_services.league_leave(league=league, user=owner)  # now possible
    assert not Membership.objects.filter(league=league, user=owner).exists()


def test_only_an_owner_can_transfer_and_not_to_themselves(league, owner, scorer, viewer):
    with pytest.raises(LeagueError):
        league_services.ownership_transfer(
            league=league, user=scorer, membership_id=membership(league, viewer).pk
        )
    with pytest.raises(LeagueError):
        league_services.ownership_transfer(
            league=league, user=owner, membership_id=membership(league, owner).pk
        )
    assert membership(league, viewer).role == Role.VIEWER


def test_a_player_is_linked_to_one_members_account(league, scorer):
    first = Player.objects.create(name="Seryozha", league=league)
    second = Player.objects.create(name="Sergei", league=league)
    league_players.player_link_user(league=league, player_id=first.pk, user_id=scorer.pk)
    league_players.player_link_user(league=league, player_id=second.pk, user_id=scorer.pk)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.user_id, second.user_id) == (None, scorer.pk)
    league_players.player_link_user(league=league, player_id=second.pk, user_id=None)
    second.refresh_from_db()
    assert second.user_id is None


def test_only_members_can_be_linked_to_players(league, outsider):
    player = Player.objects.create(name="Oskar", league=league)
    with pytest.raises(LeagueError):
        league_players.player_link_user(league=league, player_id=player.pk, user_id=outsider.pk)
    quick = Player.objects.create(name="Quick")
    with pytest.raises(LeagueError):
        league_players.player_link_user(league=league, player_id=quick.pk, user_id=None)


def test_sharing_the_standings_makes_and_revokes_a_link(league):
    first = league_services.share_renew(league=league).share_token
    second = league_services.share_renew(league=league).share_token
    assert first and second and first != second
    assert league_services.share_revoke(league=league).share_token is None


def test_moving_a_quick_game_matches_players_by_name_and_creates_the_others(league, scorer):
    known = Player.objects.create(name="анна", league=league)
    quick = start_series(names=("Анна", "Boris", "Vera", "Gleb"))
    old_score, old_watch = quick.table.score_token, quick.table.watch_token
    moved = league_services.series_move_to_league(series=quick, league=league, user=scorer)
    seats = list(moved.seats.select_related("player").order_by("position"))
    assert moved.league == league
    assert seats[0].player == known
    assert all(seat.player.league == league for seat in seats)
    assert [seat.player.name for seat in seats[1:]] == ["Boris", "Vera", "Gleb"]
    # Both links renewed: the league's members reach it by role, the quick game's table no more.
    assert moved.table.score_token not in (old_score, old_watch)
    assert moved.table.watch_token not in (old_score, old_watch, moved.table.score_token)
    assert not Player.objects.filter(league=None).exists()  # the quick game's players were spare


def test_a_finished_quick_game_counts_in_the_league_after_the_move(league, owner):
    quick = finished(None)
    league_services.series_move_to_league(series=quick, league=league, user=owner)
    quick.refresh_from_db()
    assert quick.league == league and quick.finished
    assert Player.objects.filter(league=league).count() == 4


def test_moving_needs_a_league_where_the_user_scores(league, viewer, outsider):
    quick = start_series()
    for user in (viewer, outsider):
        with pytest.raises(LeagueError):
            league_services.series_move_to_league(series=quick, league=league, user=user)
    assert Series.objects.get(pk=quick.pk).league is None


def test_a_league_series_cannot_be_moved_again(league, owner):
    other = league_services.league_create(name="Other", user=owner)
    series = start_series(league=league)
    with pytest.raises(LeagueError):
        league_services.series_move_to_league(series=series, league=other, user=owner)
    assert Series.objects.get(pk=series.pk).league == league


def test_players_of_other_quick_games_stay_when_a_game_moves(league, owner):
    quick = start_series()
    other = start_series(names=("Zoya", "Yan", "Xenia", "Wanda"))
    shared = other.seats.get(position=0).player
    quick.seats.filter(position=0).update(player=shared)
    league_services.series_move_to_league(series=quick, league=league, user=owner)
    assert Player.objects.filter(pk=shared.pk, league=None).exists()


def test_a_new_user_is_nobody_in_a_league(league):
    newcomer = make_user("nobody")
    assert not Membership.objects.filter(user=newcomer).exists()
