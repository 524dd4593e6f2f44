from django.urls import path

from scoring.views import games, table, tables

# First: a club night's table phones ask their live view every 2 s.
urlpatterns = [
    path("tables/<token:token>/live/", tables.table_live, name="table_live"),
    path("tables/<token:token>/", tables.table_link, name="table_link"),
    path("", games.home, name="home"),
    path("new/", games.series_new, name="series_new"),
    path("quick/", games.series_quick, name="series_quick"),
    path("join/<token:token>/", games.link_join, name="link_join"),
    path("series/<id:pk>/", table.series_detail, name="series_detail"),
    path("series/<id:pk>/deals/", table.deal_record, name="deal_record"),
    path("series/<id:pk>/deals/<id:number>/edit/", table.deal_edit, name="deal_edit"),
    path("series/<id:pk>/undo/", table.deal_undo, name="deal_undo"),
    path("series/<id:pk>/redo/", table.deal_redo, name="deal_redo"),
    path("series/<id:pk>/players/", table.series_players, name="series_players"),
    path("series/<id:pk>/rematch/", table.series_rematch, name="series_rematch"),
    path("series/<id:pk>/live/", table.series_live, name="series_live"),
    path("series/<id:pk>/links/", table.link_revoke, name="link_revoke"),
]
