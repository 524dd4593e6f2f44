"""The app's URLs, one module per page family; ids in paths are ``<id:…>`` (``scoring.lib.ids``)."""

from django.urls import include, path

urlpatterns = [
    path("", include("scoring.urls.table")),
    path("", include("scoring.urls.history")),
    path("", include("scoring.urls.exports")),
    path("", include("scoring.urls.leagues")),
    path("", include("scoring.urls.events")),
    path("", include("scoring.urls.seasons")),
    path("", include("scoring.urls.sharing")),
    path("accounts/", include("scoring.urls.accounts")),
    path("", include("scoring.urls.app")),
]
