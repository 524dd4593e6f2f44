"""Calendar days as the filters mean them: midnight to midnight in the current time zone (a
season "to 31 March" takes in every moment before the start of 1 April)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.utils import timezone

#: The years a date of ours may have (the history's filters, a restored backup's moments): a day
#: after the last one, or a moment there in any time zone, must still be a date.
FIRST_YEAR, LAST_YEAR = 1900, 9998


def day_start(day: date) -> datetime:
    """Midnight at the start of ``day``, in the current time zone."""
    return timezone.make_aware(datetime.combine(day, time.min))


def next_day_start(day: date) -> datetime:
    """Midnight at the end of ``day``: every moment of the day comes before it."""
    return day_start(day + timedelta(days=1))
