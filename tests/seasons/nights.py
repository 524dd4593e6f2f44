"""Club nights on days of a test's choosing, played out through the services (shared by the
season tests and the browser's)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta

from django.utils import timezone

from scoring.events import services as event_services
from scoring.models import Event, EventTable, League, Series
from tests.helpers import make_event, play_out, totals_refold


def night(league: League, names: Sequence[str], day: date, *, losers: Sequence[int] = ()) -> Event:
    """A one-round club night of ``names`` on ``day``: table N's side ``losers[N]`` (0 unless
    said) goes naked until it is the goat, then the round is finished. Its moments are moved to
    ``day`` (the league's running totals are folded again by ``refold``)."""
    event = make_event(league, len(names), rounds=1, names=list(names), name=f"Night {day}")
    tables = EventTable.objects.filter(round__event=event).order_by("number")
    for number, table in enumerate(tables):
        play_out(table.series, loser=losers[number] if number < len(losers) else 0)
    event_services.round_finish(event=event)
    evening = timezone.make_aware(datetime.combine(day, time(19, 0)))
    Event.objects.filter(pk=event.pk).update(created_at=evening)
    for number, table in enumerate(tables):
        Series.objects.filter(pk=table.series_id).update(
            finished_at=evening + timedelta(hours=1, minutes=number)
        )
    event.refresh_from_db()
    return event


def refold(league: League) -> None:
    totals_refold(league)


def table_sides(event: Event) -> list[list[list[str]]]:
    """Each table's sides' names, by table number."""
    found = []
    for table in EventTable.objects.filter(round__event=event).order_by("number"):
        seats = table.series.seats.select_related("player").order_by("position")
        found.append([[s.player.name for s in seats if s.side == side] for side in (0, 1)])
    return found
