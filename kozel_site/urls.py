"""Top-level URLs: the scoring app, accounts, the language switch."""

from django.urls import include, path

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("scoring.urls")),
]
