"""URLs: operations (filled in by its own issue)."""

urlpatterns: list = []
