"""Top-level URLs: the scoring app, accounts, the language switch."""

from django.urls import include, path

from scoring.views.accounts import language_set

urlpatterns = [
    # The picker: Django's set_language, and an account remembers the choice.
    path("i18n/setlang/", language_set, name="set_language"),
    path("", include("scoring.urls")),
]
