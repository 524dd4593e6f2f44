"""URLs: accounts (filled in by its own issue)."""

urlpatterns: list = []
