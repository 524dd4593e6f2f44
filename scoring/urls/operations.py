"""URLs: operations (health check)."""

from django.urls import path

from scoring.views import operations

urlpatterns = [
    path("healthz", operations.healthz, name="healthz"),
]
