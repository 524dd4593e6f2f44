from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="session")
def loadtest() -> ModuleType:
    """``benchmarks/loadtest.py``, imported as the script imports itself (beside ``quick.py``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    return importlib.import_module("loadtest")
