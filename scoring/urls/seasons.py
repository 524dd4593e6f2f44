"""URLs: a league's seasons, their standings behind the public link, a club night against
expectation."""

from django.urls import path

from scoring.views import seasons

SEASON = "leagues/<id:pk>/seasons/<id:season_pk>/"

urlpatterns = [
    path("leagues/<id:pk>/seasons/", seasons.season_list, name="season_list"),
    path("leagues/<id:pk>/seasons/new/", seasons.season_new, name="season_new"),
    path(SEASON, seasons.season_detail, name="season_detail"),
    path(SEASON + "edit/", seasons.season_edit, name="season_edit"),
    path(SEASON + "delete/", seasons.season_delete, name="season_delete"),
    path(
        "public/<token:token>/seasons/<id:season_pk>/", seasons.public_season, name="public_season"
    ),
    path(
        "leagues/<id:pk>/events/<id:event_pk>/expected/",
        seasons.event_expected,
        name="event_expected",
    ),
    path(
        "public/events/<token:token>/expected/",
        seasons.event_public_expected,
        name="event_public_expected",
    ),
]
