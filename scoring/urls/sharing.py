"""URLs: preview pictures, the embeddable standings, the league's JSON feed and links' QR codes."""

from django.urls import path

from scoring.views import sharing

# A picture's address names its result's version and its language in the query (``?v=&lang=``):
# a messenger keeps a picture by its address, so a new result is a new address.
urlpatterns = [
    path("pictures/series/<id:pk>/", sharing.series_picture, name="series_picture"),
    path("tables/<token:token>/picture/", sharing.table_picture, name="table_picture"),
    path("public/events/<token:token>/picture/", sharing.event_picture, name="event_picture"),
    path("public/<token:token>/picture/", sharing.league_picture, name="league_picture"),
    path("embed/<token:token>/", sharing.league_embed, name="league_embed"),
    path("public/<token:token>/feed.json", sharing.league_feed, name="league_feed"),
    # A link's QR code: the link is the rest of the address (its secret is in it, as it is in
    # the link; the logs redact both alike).
    path("qr/<path:link>", sharing.qr_code, name="qr_code"),
]
