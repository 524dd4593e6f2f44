"""A pytest plugin (``-p tests.race_report``): the concurrency tests count the races they run."""

from __future__ import annotations

RACES: dict[str, int] = {}


def count(database: str, scenario: str, races: int = 1) -> None:
    """Record that ``races`` races of ``scenario`` ran on ``database``."""
    key = f"{scenario} on {database}"
    RACES[key] = RACES.get(key, 0) + races


def pytest_terminal_summary(terminalreporter) -> None:
    if not RACES:
        return
    terminalreporter.section("races")
    for key, races in sorted(RACES.items()):
        terminalreporter.write_line(f"{races:4d} races: {key}")
    terminalreporter.write_line(f"{sum(RACES.values()):4d} races run in all")
