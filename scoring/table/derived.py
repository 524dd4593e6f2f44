"""What a series' replay stores on it and its seats, and writing many series at once.

``derived_values`` maps the engine's ``SeriesState`` to the derived field values of a ``Series``
and of each side's ``Seat``: ``services.series_refresh`` stores them for one series, and code
that writes thousands of series (demo data, imports) builds the rows in memory with the same
values and inserts them with ``bulk_create``; ``integrity`` compares stored rows with them. One
mapping, so none of them can drift from the others. ``finished_at`` and ``version`` are the
caller's: ``series_refresh`` takes them from the clock and a counter, a bulk writer from the
history it writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import models

from scoring import rules
from scoring.models import Ending

#: The derived fields of ``Series`` and of ``Seat``, in the order ``derived_values`` gives them.
SERIES_FIELDS = (
    "deal_count",
    "totals",
    "finished",
    "ending",
    "winner_side",
    "goat_sides",
    "eggs",
    "multiplier",
)
SEAT_FIELDS = (
    "total",
    "is_goat",
    "is_winner",
    "deals_played",
    "deals_won",
    "deals_lost",
    "deals_naked",
    "deals_eggs",
    "narrow_saves",
)


@dataclass(frozen=True)
class Derived:
    """Field values derived from a series' deals: the series', and a seat's per original side."""

    series: dict[str, Any]
    sides: tuple[dict[str, Any], ...]

    def seat(self, side: int) -> dict[str, Any]:
        """The derived ``Seat`` fields of a seat playing for ``side``."""
        return self.sides[side]


def derived_values(state: rules.SeriesState, ending: str | None = None) -> Derived:
    """The derived ``Series`` and ``Seat`` field values of a series in ``state`` that ended so
    (``table.life.ending_of``); None for a series that was never closed (its goat, or still in
    play), as the bulk writers' are."""
    if ending is None:
        ending = Ending.GOAT if state.finished else Ending.NONE
    winner = rules.result_winner(state, closed=Ending(ending).closed)
    series = {
        "deal_count": len(state.deals),
        "totals": list(state.totals),
        "finished": bool(ending),
        "ending": ending,
        "winner_side": winner,
        "goat_sides": list(state.goats),
        "eggs": state.eggs,
        "multiplier": state.multiplier,
    }
    sides = tuple(
        {
            "total": state.totals[side],
            "is_goat": side in state.goats,
            "is_winner": winner == side,
            "deals_played": tally.played,
            "deals_won": tally.won,
            "deals_lost": tally.lost,
            "deals_naked": tally.naked,
            "deals_eggs": tally.eggs,
            "narrow_saves": tally.narrow_saves,
        }
        for side, tally in enumerate(rules.side_tallies(state))
    )
    return Derived(series=series, sides=sides)


@contextmanager
def kept_timestamps(*model_classes: type[models.Model]) -> Iterator[None]:
    """Inside, ``auto_now``/``auto_now_add`` fields of these models keep the values given.

    Restoring a backup or generating a past season needs the real dates, which Django would
    otherwise overwrite with "now" on insert. Meant for management commands and tests (the
    switch is process-wide while it lasts), never for request handling.
    """
    switched: list[tuple[models.DateField | models.TimeField, bool, bool]] = []
    for model in model_classes:
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.DateField | models.TimeField):
                continue
            if field.auto_now or field.auto_now_add:
                switched.append((field, field.auto_now, field.auto_now_add))
                field.auto_now = field.auto_now_add = False
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in switched:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add
