"""URLs: history (filled in by its own issue)."""

urlpatterns: list = []
