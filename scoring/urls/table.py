from django.urls import path
from django.views.generic.base import RedirectView

from scoring.views import games, table, tables

# First: every table's phones ask their live view every 2 s.
urlpatterns = [
    path("tables/<token:token>/live/", tables.table_live, name="table_live"),
    path("tables/<token:token>/", tables.table_link, name="table_link"),
    path("", games.home, name="home"),
    path("new/", games.series_new, name="series_new"),
    path("quick/", games.series_quick, name="series_quick"),
    # The links of quick games shared before tables had them (QR codes on paper, chats).
    path(
        "join/<token:token>/",
        RedirectView.as_view(pattern_name="table_link", permanent=True),
        name="link_join",
    ),
    path("series/<id:pk>/", table.series_detail, name="series_detail"),
    path("series/<id:pk>/deals/", table.deal_record, name="deal_record"),
    path("series/<id:pk>/proposals/", table.deal_propose, name="deal_propose"),
    path("series/<id:pk>/deals/<id:number>/edit/", table.deal_edit, name="deal_edit"),
    path("series/<id:pk>/undo/", table.deal_undo, name="deal_undo"),
    path("series/<id:pk>/redo/", table.deal_redo, name="deal_redo"),
    path("series/<id:pk>/players/", table.series_players, name="series_players"),
    path("series/<id:pk>/rematch/", table.series_rematch, name="series_rematch"),
    path("series/<id:pk>/links/", table.link_renew, name="link_renew"),
]
