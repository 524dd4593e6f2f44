"""URLs: leagues (filled in by its own issue)."""

urlpatterns: list = []
