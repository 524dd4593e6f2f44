"""``{% moment %}``: the ``<time>`` element of every list row, in the reader's zone and language."""

from __future__ import annotations

from datetime import UTC, datetime

from django.template import Context, Template
from django.utils import timezone, translation
from django.utils.formats import date_format

WHEN = datetime(2025, 6, 30, 22, 30, 7, tzinfo=UTC)  # already 1 July in Moscow


def rendered(text: str, **context) -> str:
    return Template("{% load moments %}" + text).render(Context(context))


def test_the_text_is_the_local_day_and_time_and_the_attribute_the_exact_moment():
    with timezone.override("Europe/Moscow"), translation.override("en"):
        html = rendered("{% moment when %}", when=WHEN)
    assert html == '<time datetime="2025-06-30T22:30:07+00:00">1 Jul 2025, 01:30</time>'


def test_it_says_what_djangos_date_filter_says_in_each_language():
    for language in ("en", "ru"):
        with timezone.override("Europe/Moscow"), translation.override(language):
            html = rendered("{% moment when seconds=True %}", when=WHEN)
            expected = date_format(timezone.localtime(WHEN), "j M Y, H:i:s")
        assert f">{expected}</time>" in html
    assert "июл" in html.lower()


def test_nothing_is_shown_for_no_moment():
    assert rendered("{% moment when %}", when=None) == ""
