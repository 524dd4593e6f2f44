"""Top-level URLs: the scoring app, accounts, the language switch, and the admin at
``settings.ADMIN_URL`` (none when it is empty)."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from scoring.views.accounts import language_set

urlpatterns = [
    # The picker: Django's set_language, and an account remembers the choice.
    path("i18n/setlang/", language_set, name="set_language"),
    path("", include("scoring.urls")),
]
# The site's own 503 when the database did not answer, else its 500 page.
handler500 = "scoring.views.errors.server_error"

if settings.ADMIN_URL:
    urlpatterns.insert(0, path(settings.ADMIN_URL, admin.site.urls))
