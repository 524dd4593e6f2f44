"""``{% moment value %}``: a ``<time>`` element for a stored date and time.

The machine-readable ``datetime`` attribute is the value's ISO 8601 form; the text is the time in
the current time zone and language: "30 Nov 2026, 20:21" (``seconds=True``: "20:21:07"). The day
is worded by Django's ``date_format`` once per day and language (it costs some 40 µs a call, and
the lists show a date per row); the time of day is plain digits.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache

from django import template
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import get_language

register = template.Library()


@lru_cache(maxsize=1024)
def _day(day: date, language: str | None) -> str:
    return date_format(day, "j M Y")


@register.simple_tag
def moment(value: datetime | None, seconds: bool = False) -> str:
    if value is None:
        return ""
    local = timezone.localtime(value)
    clock = f"{local:%H:%M:%S}" if seconds else f"{local:%H:%M}"
    return format_html(
        '<time datetime="{}">{}, {}</time>',
        value.isoformat(),
        _day(local.date(), get_language()),
        clock,
    )
