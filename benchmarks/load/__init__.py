"""The parts of ``make loadtest`` (``benchmarks/loadtest.py`` says what it measures): the plan of
the load (``plan``), the site's data (``data``, made in a child process with Django loaded), the
bare Django project (``bare``), the servers (``servers``), what goes over the wire (``wire``) and
the phones that send it (``phones``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the project: its rules engine, and Django's settings
