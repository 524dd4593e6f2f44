"""Top-level URLs: the scoring app, accounts, the language switch, and the admin at
``settings.ADMIN_URL`` (none when it is empty)."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("scoring.urls")),
]
if settings.ADMIN_URL:
    urlpatterns.insert(0, path(settings.ADMIN_URL, admin.site.urls))
