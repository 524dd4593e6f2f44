"""A pytest plugin (``-p tests.race_report``): the concurrency tests count the races they run.

Under pytest-xdist each worker counts its own races and hands the counts to the controller when
it finishes (``workeroutput``); the controller adds them up and prints the summary.
"""

from __future__ import annotations

import pytest

RACES: dict[str, int] = {}


def count(database: str, scenario: str, races: int = 1) -> None:
    """Record that ``races`` races of ``scenario`` ran on ``database``."""
    key = f"{scenario} on {database}"
    RACES[key] = RACES.get(key, 0) + races


def pytest_sessionfinish(session) -> None:
    output = getattr(session.config, "workeroutput", None)
    if output is not None:  # an xdist worker: the controller prints the summary
        output["races"] = dict(RACES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """(xdist controller) A worker is done: take in the races it counted."""
    for key, races in getattr(node, "workeroutput", {}).get("races", {}).items():
        RACES[key] = RACES.get(key, 0) + races


def pytest_terminal_summary(terminalreporter) -> None:
    if not RACES or hasattr(terminalreporter.config, "workerinput"):
        return
    terminalreporter.section("races")
    for key, races in sorted(RACES.items()):
        terminalreporter.write_line(f"{races:4d} races: {key}")
    terminalreporter.write_line(f"{sum(RACES.values()):4d} races run in all")
