"""Integrity: do the stored derived values of every series (totals, goat, winner, each seat's
deal figures) agree with a replay of its deals by the engine?

``services.series_refresh`` rewrites a series' derived fields in the same transaction as every
change of a deal, so they should always agree; this check is the proof after a restore, a manual
edit in the database or a bug. ``series_repair`` stores the replay's result again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Prefetch

from scoring import rules
from scoring.models import Deal, Seat, Series
from scoring.table import life, services
from scoring.table.derived import derived_values
from scoring.table.replays import replay_rows

CHUNK = 200


@dataclass
class Finding:
    """What disagrees in one series; ``repairable`` is False when its deals cannot be replayed."""

    series_id: int
    problems: list[str] = field(default_factory=list)
    repairable: bool = True

    def __str__(self) -> str:
        return f"series {self.series_id}: " + "; ".join(self.problems)


def _differences(
    series: Series, seats: list[Seat], state: rules.SeriesState, deals: list[Deal]
) -> list[str]:
    """Each stored derived value that is not what ``series_refresh`` would store for ``state``
    (and the series' closing: ``life.ending_of``)."""
    last = deals[-1].created_at if deals else None
    derived = derived_values(state, life.ending_of(series, state, last_deal_at=last))
    problems = [
        f"{name} is {getattr(series, name)!r}, the replay says {value!r}"
        for name, value in derived.series.items()
        if getattr(series, name) != value
    ]
    for seat in seats:
        if not 0 <= seat.side < len(derived.sides):
            problems.append(f"seat {seat.position} is on side {seat.side}, which does not exist")
            continue
        problems.extend(
            f"seat {seat.position} {name} is {getattr(seat, name)!r}, the replay says {value!r}"
            for name, value in derived.seat(seat.side).items()
            if getattr(seat, name) != value
        )
    return problems


def series_check(series: Series, deals: list[Deal], seats: list[Seat]) -> Finding | None:
    """What disagrees between a series' stored values and the replay of ``deals`` (in order)."""
    numbers = [deal.number for deal in deals]
    if numbers != list(range(1, len(deals) + 1)):
        return Finding(series.pk, [f"deal numbers are {numbers}, not 1 to {len(deals)}"], False)
    try:
        state = replay_rows(series, deals)
    except (rules.InvalidDeal, KeyError, ValueError, TypeError) as error:
        return Finding(series.pk, [f"its deals cannot be replayed: {error}"], False)
    problems = _differences(series, seats, state, deals)
    return Finding(series.pk, problems) if problems else None


def _series(ids: Iterable[int] | None) -> Iterator[Series]:
    queryset = Series.objects.order_by("pk").prefetch_related(
        Prefetch("deals", queryset=Deal.objects.order_by("number")),
        Prefetch("seats", queryset=Seat.objects.order_by("position")),
    )
    if ids is not None:
        queryset = queryset.filter(pk__in=list(ids))
    return queryset.iterator(chunk_size=CHUNK)


def check_all(ids: Iterable[int] | None = None) -> tuple[int, list[Finding]]:
    """Replay every series (or those with ``ids``): how many were checked, and what disagrees."""
    checked = 0
    findings = []
    for series in _series(ids):
        checked += 1
        finding = series_check(series, list(series.deals.all()), list(series.seats.all()))
        if finding is not None:
            findings.append(finding)
    return checked, findings


@transaction.atomic
def series_repair(*, series_id: int) -> bool:
    """Store the replay's totals on a series again; False if it already agreed or cannot replay."""
    series = Series.objects.select_for_update().get(pk=series_id)
    deals = list(Deal.objects.filter(series=series).order_by("number"))
    finding = series_check(series, deals, list(series.seats.order_by("position")))
    if finding is None or not finding.repairable:
        return False
    services.series_refresh(series, replay_rows(series, deals))
    return True
