"""``{% moment value %}``: a ``<time>`` element for a stored date and time, in the current time
zone and language. The day is worded by ``date_format`` once per day and language (some 40 µs a
call, and lists show a date per row), in the language's own order and words (``DAY_FORMATS``);
the time is 24-hour digits but where the locale reads a 12-hour clock (``CLOCK_FORMATS``).
"""

from __future__ import annotations

from datetime import date, datetime, time
from functools import lru_cache

from django import template
from django.utils import timezone
from django.utils.formats import date_format, time_format
from django.utils.html import format_html
from django.utils.translation import get_language

register = template.Library()


#: How each language writes a day in a list, where "j M Y" is not it: Russian and Ukrainian put
#: the month in the genitive ("1 декабря"), German a dot after the day, Vietnamese numbers,
#: Japanese and Korean year, month, day with their counters.
DAY_FORMATS = {
    "ru": "j E Y",
    "uk": "j E Y",
    "de": "j. F Y",
    "vi": "j/n/Y",
    "ja": "Y年n月j日",
    "ko": "Y년 n월 j일",
}
DAY_FORMAT = "j M Y"
#: The time of day (without, with seconds) where the locale (CLDR, Django) reads a 12-hour
#: clock: Korean ("오후 8:21") and Telugu ("8:21 PM"); the others write "20:21".
CLOCK_FORMATS = {
    "ko": ("A g:i", "A g:i:s"),
    "te": ("g:i A", "g:i:s A"),
}


@lru_cache(maxsize=4096)
def _clock(moment: time, seconds: bool, language: str | None) -> str:
    formats = CLOCK_FORMATS.get(language or "")
    if formats is None:
        return f"{moment:%H:%M:%S}" if seconds else f"{moment:%H:%M}"
    return time_format(moment, formats[1] if seconds else formats[0])


@lru_cache(maxsize=1024)
def _day(day: date, language: str | None) -> str:
    return date_format(day, DAY_FORMATS.get(language or "", DAY_FORMAT))


@register.simple_tag
def moment(value: datetime | None, seconds: bool = False) -> str:
    if value is None:
        return ""
    local = timezone.localtime(value)
    language = get_language()
    clock = _clock(local.time().replace(microsecond=0), seconds, language)
    return format_html(
        '<time datetime="{}">{}, {}</time>',
        value.isoformat(),
        _day(local.date(), language),
        clock,
    )
