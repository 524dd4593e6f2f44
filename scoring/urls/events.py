"""URLs: club nights in a league, their rounds, table cards and leaderboards, the tables' links
for the evening and the players' "Find your seat"."""

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
    path(EVENT + "board/", events.event_board, name="event_board"),
    path(EVENT + "share/", events.event_share, name="event_share"),
    path(EVENT + "share/revoke/", events.event_share_revoke, name="event_share_revoke"),
    path("public/events/<token:token>/", events.event_public, name="event_public"),
    path("public/events/<token:token>/seat/", events.event_seat, name="event_seat"),
]
