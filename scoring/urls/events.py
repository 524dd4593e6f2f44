"""URLs: club nights in a league, their rounds, table cards and leaderboards, the tables' links
for the evening, the players' "Find your seat" and the TV's way to the big screen."""

from django.urls import path

from scoring.views import events

EVENT = "leagues/<id:pk>/events/<id:event_pk>/"

urlpatterns = [
    path("leagues/<id:pk>/events/", events.event_list, name="event_list"),
    path("leagues/<id:pk>/events/new/", events.event_new, name="event_new"),
    path(EVENT, events.event_detail, name="event_detail"),
    path(EVENT + "cards/", events.event_cards, name="event_cards"),
    path(EVENT + "rounds/next/", events.event_round_next, name="event_round_next"),
    path(EVENT + "rounds/finish/", events.event_round_finish, name="event_round_finish"),
    path(EVENT + "players/", events.event_players, name="event_players"),
    path(EVENT + "proposals/<id:proposal_pk>/", events.event_proposal, name="event_proposal"),
    path(EVENT + "board/", events.event_board, name="event_board"),
    path(EVENT + "share/", events.event_share, name="event_share"),
    path(EVENT + "links/", events.event_links, name="event_links"),
    path(EVENT + "share/revoke/", events.event_share_revoke, name="event_share_revoke"),
    path(EVENT + "tv-code/", events.event_tv_code, name="event_tv_code"),
    path("public/events/<token:token>/", events.event_public, name="event_public"),
    path("public/events/<token:token>/seat/", events.event_seat, name="event_seat"),
    # The big screen on a TV: a short address and a code typed with its remote.
    path("tv/", events.tv, name="tv"),
]
