"""Writing many series at once (demo data, imports): derived fields and historic timestamps.

``services.series_refresh`` stores what the engine derived from one series' deals, with a save
per series and a bulk update of its seats. Code that writes thousands of series builds the rows
in memory instead and inserts them with ``bulk_create``; ``series_values`` and ``seat_values``
give it the same derived values ``series_refresh`` writes (tests hold the two together), so
nothing is restated. ``finished_at`` and ``version`` are the caller's: ``series_refresh`` takes
them from the clock and a counter, a bulk writer from the history it writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import models

from scoring import rules


def series_values(state: rules.SeriesState) -> dict[str, Any]:
    """The derived ``Series`` fields of a series in ``state``, as ``series_refresh`` stores them."""
    return {
        "deal_count": len(state.deals),
        "totals": list(state.totals),
        "finished": state.finished,
        "winner_side": state.winner,
        "goat_sides": list(state.goats),
        "eggs": state.eggs,
        "multiplier": state.multiplier,
    }


def seat_values(state: rules.SeriesState, side: int) -> dict[str, Any]:
    """The derived ``Seat`` fields of a seat for ``side``, as ``series_refresh`` stores them."""
    return {
        "total": state.totals[side],
        "is_goat": side in state.goats,
        "is_winner": state.winner == side,
    }


@contextmanager
def kept_timestamps(*model_classes: type[models.Model]) -> Iterator[None]:
    """Inside, ``auto_now``/``auto_now_add`` fields of these models keep the values given.

    Restoring a backup or generating a past season needs the real dates, which Django would
    otherwise overwrite with "now" on insert. Meant for management commands and tests (the
    switch is process-wide while it lasts), never for request handling.
    """
    switched = []
    for model in model_classes:
        for field in model._meta.concrete_fields:
            if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
                switched.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in switched:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add
