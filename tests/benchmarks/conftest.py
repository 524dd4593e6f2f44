from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def benchmark(name: str) -> ModuleType:
    """A module of ``benchmarks/``, imported as its scripts import it (beside ``quick.py``)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def loadtest() -> ModuleType:
    return benchmark("loadtest")


@pytest.fixture(scope="session")
def wire() -> ModuleType:
    """What the load test's phones read from a page and how they compare versions."""
    return benchmark("load.wire")


@pytest.fixture(scope="session")
def plan() -> ModuleType:
    return benchmark("load.plan")


@pytest.fixture(scope="session")
def tables_data() -> ModuleType:
    """The load test's data: its club nights and kitchen tables, made through the site."""
    return benchmark("load.data")


@pytest.fixture(scope="session")
def phones() -> ModuleType:
    """The load test's phones: the open-loop generator."""
    return benchmark("load.phones")
