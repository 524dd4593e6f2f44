"""``make bench QUICK=1`` (``BENCH_QUICK=1``): every benchmark's code path on small data.

CI runs the benchmarks this way (``.ci/commands``) so that a broken benchmark is seen at once; the
figures of a quick run mean nothing. Quick databases get their own file names, so a quick run
never replaces the full-size databases a real run reuses.
"""

from __future__ import annotations

import os

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")


def scaled(full: int, quick: int) -> int:
    """``full`` in a real run, ``quick`` in a quick one."""
    return quick if QUICK else full


def tag() -> str:
    """A suffix for file names: quick databases never stand in for full ones."""
    return "-quick" if QUICK else ""
