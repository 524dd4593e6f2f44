"""``{% moment %}``: the ``<time>`` element of every list row, in the reader's zone and language."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.conf import settings
from django.template import Context, Template
from django.utils import timezone, translation
from django.utils.formats import date_format

from scoring.templatetags.moments import CLOCK_FORMATS, DAY_FORMATS

WHEN = datetime(2025, 6, 30, 22, 30, 7, tzinfo=UTC)  # already 1 July in Moscow


def rendered(text: str, **context) -> str:
    return Template("{% load moments %}" + text).render(Context(context))


def test_the_text_is_the_local_day_and_time_and_the_attribute_the_exact_moment():
    with timezone.override("Europe/Moscow"), translation.override("en"):
        html = rendered("{% moment when %}", when=WHEN)
    assert html == '<time datetime="2025-06-30T22:30:07+00:00">1 Jul 2025, 01:30</time>'


def test_it_says_what_djangos_date_filter_says_in_each_language():
    for language, _name in settings.LANGUAGES:
        with timezone.override("Europe/Moscow"), translation.override(language):
            html = rendered("{% moment when seconds=True %}", when=WHEN)
            wording = DAY_FORMATS.get(language, "j M Y")
            clock = CLOCK_FORMATS.get(language, ("H:i", "H:i:s"))[1]
            expected = date_format(timezone.localtime(WHEN), f"{wording}, {clock}")
        assert f">{expected}</time>" in html


def test_each_language_writes_the_day_its_own_way():
    days = {}
    for language, _name in settings.LANGUAGES:
        with timezone.override("Europe/Moscow"), translation.override(language):
            days[language] = re.search(
                r">(.*), (?:01:30|오전 1:30|1:30 AM)</time>",
                rendered("{% moment when %}", when=WHEN),
            )[1]
    assert days["en"] == "1 Jul 2025"
    assert days["ru"] == "1 июля 2025"
    assert days["uk"] == "1 липня 2025"
    assert days["de"] == "1. Juli 2025"
    assert days["vi"] == "1/7/2025"
    assert days["ja"] == "2025年7月1日"
    assert days["ko"] == "2025년 7월 1일"
    assert "2025" in days["te"] and days["te"] != days["en"]


def test_nothing_is_shown_for_no_moment():
    assert rendered("{% moment when %}", when=None) == ""


def test_korean_and_telugu_read_a_twelve_hour_clock_the_others_twenty_four_hours():
    evening = datetime(2025, 6, 30, 17, 5, 9, tzinfo=UTC)  # 20:05 in Moscow
    clocks = {}
    for language, _name in settings.LANGUAGES:
        with timezone.override("Europe/Moscow"), translation.override(language):
            clocks[language] = re.search(
                r", ([^,]*)</time>", rendered("{% moment when %}", when=evening)
            )[1]
            with_seconds = rendered("{% moment when seconds=True %}", when=evening)
        assert "5:09" in with_seconds or "05:09" in with_seconds
    assert clocks["ko"] == "오후 8:05"
    assert clocks["te"] == "8:05 PM"
    assert {clocks[code] for code in ("en", "ru", "de", "uk", "vi", "ja")} == {"20:05"}
