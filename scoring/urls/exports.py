"""URLs: downloads made off the request, their pages and files."""

from django.urls import path

from scoring.views import exports

urlpatterns = [
    path("exports/<uuid:pk>/", exports.export_detail, name="export_detail"),
    path("exports/<uuid:pk>/download", exports.export_download, name="export_download"),
]
