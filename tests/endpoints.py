"""Every URL pattern of the site, as the fuzzer, the crawls and the redaction tests walk them."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import URLPattern, URLResolver, get_resolver


@dataclass(frozen=True)
class Endpoint:
    route: str  # e.g. "series/<int:pk>/deals/"
    name: str | None
    levels: tuple = field(repr=False)  # the pattern of each resolver level, outermost first

    def __str__(self) -> str:
        return self.route or "(home)"

    @property
    def converters(self) -> dict:
        """Each path argument's converter, by the argument's name."""
        found: dict = {}
        for level in self.levels:
            found.update(getattr(level, "converters", {}))
        return found


def endpoints() -> list[Endpoint]:
    """Every URL pattern of the project but Django's admin (for operators only: its tests are in
    tests/site/test_admin.py), with the patterns of the includes leading to it."""
    found = []

    def walk(resolver: URLResolver, levels: tuple) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                if entry.app_name != "admin":
                    walk(entry, (*levels, entry.pattern))
            elif isinstance(entry, URLPattern):
                chain = (*levels, entry.pattern)
                route = "".join(str(level) for level in chain)
                found.append(Endpoint(route=route, name=entry.name, levels=chain))

    walk(get_resolver(), ())
    return found
