"""URLs: the installable app (manifest, service worker at the root, offline page)."""

from django.urls import path

from scoring.views import app

urlpatterns = [
    path("manifest.webmanifest", app.manifest, name="manifest"),
    path("sw.js", app.service_worker, name="service_worker"),
    path("offline/", app.offline_page, name="offline"),
]
