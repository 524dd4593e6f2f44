"""URLs: leagues, their standings and members, invites, public standings, moving a quick game."""

from django.urls import path

from scoring.views import league_players, leagues, standings

urlpatterns = [
    path("leagues/", leagues.league_list, name="league_list"),
    path("leagues/new/", leagues.league_new, name="league_new"),
    path("leagues/<id:pk>/", leagues.league_detail, name="league_detail"),
    path("leagues/<id:pk>/standings/", standings.league_standings, name="league_standings"),
    path(
        "leagues/<id:pk>/head-to-head/", standings.league_head_to_head, name="league_head_to_head"
    ),
    path("leagues/<id:pk>/members/", leagues.league_members, name="league_members"),
    path(
        "leagues/<id:pk>/members/<id:membership_pk>/role/",
        leagues.membership_role,
        name="membership_role",
    ),
    path(
        "leagues/<id:pk>/members/<id:membership_pk>/remove/",
        leagues.membership_remove,
        name="membership_remove",
    ),
    path("leagues/<id:pk>/transfer/", leagues.ownership_transfer, name="ownership_transfer"),
    path("leagues/<id:pk>/leave/", leagues.league_leave, name="league_leave"),
    path("leagues/<id:pk>/invite/", leagues.invite_renew, name="invite_renew"),
    path("leagues/<id:pk>/invite/revoke/", leagues.invite_revoke, name="invite_revoke"),
    path("leagues/<id:pk>/players/", league_players.league_players, name="league_players"),
    path(
        "leagues/<id:pk>/players/<id:player_pk>/link/",
        league_players.player_link,
        name="player_link",
    ),
    path(
        "leagues/<id:pk>/players/<id:player_pk>/",
        league_players.player_edit,
        name="player_edit",
    ),
    path(
        "leagues/<id:pk>/players/<id:player_pk>/rename/",
        league_players.player_rename,
        name="player_rename",
    ),
    path(
        "leagues/<id:pk>/players/<id:player_pk>/merge/",
        league_players.player_merge,
        name="player_merge",
    ),
    path("leagues/<id:pk>/changes/", league_players.league_changes, name="league_changes"),
    path(
        "leagues/<id:pk>/changes/<id:event_pk>/undo/",
        league_players.merge_undo,
        name="merge_undo",
    ),
    path("leagues/<id:pk>/archive/", leagues.league_archive, name="league_archive"),
    path("leagues/<id:pk>/unarchive/", leagues.league_unarchive, name="league_unarchive"),
    path("leagues/<id:pk>/delete/", leagues.league_delete, name="league_delete"),
    path("leagues/<id:pk>/settings/", leagues.league_settings, name="league_settings"),
    path("leagues/<id:pk>/share/", leagues.share_renew, name="share_renew"),
    path("leagues/<id:pk>/share/revoke/", leagues.share_revoke, name="share_revoke"),
    path("invite/<token:token>/", leagues.league_join, name="league_join"),
    path("public/<token:token>/", standings.public_standings, name="public_standings"),
    path("public/<token:token>/history/", standings.public_history, name="public_history"),
    path("series/<id:pk>/move/", leagues.series_move, name="series_move"),
]
