"""URLs: history, score sheets, player records and exports."""

from django.urls import path

from scoring.views import history

urlpatterns = [
    path("history/", history.history_list, name="history"),
    path("history/export.json", history.history_export_json, name="history_export_json"),
    path("history/export.csv", history.history_export_csv, name="history_export_csv"),
    path("series/<id:pk>/sheet/", history.series_sheet, name="series_sheet"),
    path("series/<id:pk>/export.csv", history.series_export_csv, name="series_export_csv"),
    path("series/<id:pk>/export.json", history.series_export_json, name="series_export_json"),
    path("players/<id:pk>/", history.player_detail, name="player_detail"),
]
