"""Charts as inline SVG: coordinates from the numbers, and accessible, escaped markup."""

from __future__ import annotations

from datetime import date

import pytest
from django.template.loader import render_to_string

from scoring.history.charts import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, defeat_chart, nice_step
from scoring.history.charts import results_chart as bars
from scoring.history.records import MonthResults

LABELS = {"won": "%(month)s: %(count)s won", "goat": "%(month)s: %(count)s goat",
          "other": "%(month)s: %(count)s other"}  # fmt: skip


def points(line) -> list[tuple[float, float]]:
    return [tuple(float(n) for n in pair.split(",")) for pair in line.points.split()]


def test_a_nice_step_keeps_the_number_of_ticks_small_and_round():
    assert nice_step(12) == 2
    assert nice_step(30) == 5
    assert nice_step(72) == 20
    assert nice_step(999) == 200


def test_every_line_starts_at_zero_and_ends_at_its_total():
    chart = defeat_chart(["Anna & Vera", "Boris & Gleb"], [(2, 0), (2, 4), (8, 4)], 12)
    first, second = (points(line) for line in chart.lines)
    assert first[0] == second[0] == (LEFT, HEIGHT - BOTTOM)
    assert len(first) == 4  # the start and three deals
    assert first[-1][0] == WIDTH - RIGHT
    assert [line.total for line in chart.lines] == [8, 4]
    # Heights are proportional: 8 points are twice as high above the axis as 4.
    base = HEIGHT - BOTTOM
    assert base - first[-1][1] == pytest.approx(2 * (base - second[-1][1]), abs=0.2)


def test_the_y_axis_reaches_the_target_even_before_anyone_scores():
    chart = defeat_chart(["A", "B"], [(0, 0)], 12)
    assert chart.frame.y_ticks[-1].label == "12"
    assert chart.target_y == TOP
    assert chart.frame.x_ticks[0].label == "0"


def test_only_the_goat_is_drawn_red_and_only_the_winner_green():
    plain = defeat_chart(["A", "B", "C"], [(2, 0, 2)], 12)
    assert [line.role for line in plain.lines] == ["", "", ""]
    over = defeat_chart(["A", "B", "C"], [(2, 0, 2), (16, 0, 4)], 12, goats=[0], winner=1)
    assert [line.role for line in over.lines] == ["is-goat", "is-winner", ""]


def test_the_y_axis_grows_past_the_target_when_a_total_does():
    chart = defeat_chart(["A", "B", "C"], [(2, 0, 2), (16, 0, 4)], 12)
    assert int(chart.frame.y_ticks[-1].label) >= 16
    assert chart.target_y > TOP  # the target line sits below the top now


def test_bars_stack_goat_won_and_the_rest_within_the_month():
    months = [MonthResults(date(2025, 1, 1), 4, 1, 2), MonthResults(date(2025, 2, 1), 2, 2, 0)]
    chart = bars(months, labels=LABELS)
    january = [bar for bar in chart.bars if bar.label.startswith("Jan")]
    assert [bar.kind for bar in january] == ["goat", "won", "other"]
    assert sum(bar.height for bar in january) == pytest.approx(
        2 * sum(bar.height for bar in chart.bars if bar.label.startswith("Feb")), abs=0.3
    )
    assert january[0].label == "Jan 2025: 2 goat"
    assert january[0].y + january[0].height == pytest.approx(HEIGHT - BOTTOM, abs=0.1)


def test_the_chart_markup_is_an_accessible_image_with_escaped_names():
    chart = defeat_chart(["<script>alert(1)</script>", "Vera"], [(2, 0)], 12)
    html = render_to_string("scoring/history/_defeat_chart.html", {"chart": chart})
    assert 'role="img"' in html
    assert 'aria-labelledby="defeat-chart-title defeat-chart-desc"' in html
    assert '<title id="defeat-chart-title">Defeat points after each deal</title>' in html
    assert html.count("<polyline") == 2
    assert 'class="line side-1"' in html
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;: 2" in html
    assert "style=" not in html  # the Content-Security-Policy forbids inline styles


def test_the_bars_markup_escapes_their_words_and_keeps_their_geometry():
    months = [MonthResults(date(2025, 1, 1), 3, 1, 1)]
    labels = {kind: "<b>%(month)s</b> & " + kind for kind in ("won", "goat", "other")}
    chart = bars(months, labels=labels)
    html = render_to_string(
        "scoring/history/_results_chart.html", {"chart": chart, "record": {"months": months}}
    )
    assert html.count("<rect") == len(chart.bars) == 3
    assert "<b>" not in html
    assert "&lt;b&gt;Jan 2025&lt;/b&gt; &amp; goat" in html
    first = chart.bars[0]
    assert (
        f'<rect class="bar goat" x="{first.x}" y="{first.y}" width="{first.width}" '
        f'height="{first.height}">'
    ) in html


@pytest.mark.parametrize(
    ("language", "in_words", "on_axis"),
    [
        ("en", "Dec 2025", "Dec 25"),
        ("de", "Dez 2025", "Dez 25"),
        ("uk", "Гру 2025", "Гру 25"),
        ("ja", "2025年12月", "25年12月"),
        ("ko", "2025년 12월", "25년 12월"),
        ("vi", "12/2025", "12/2025"),
    ],
)
def test_a_month_is_written_the_way_the_readers_language_writes_it(language, in_words, on_axis):
    # "12月 2025" (month before year) is how no Japanese writes a month.
    from django.utils import translation

    with translation.override(language):
        chart = bars([MonthResults(date(2025, 12, 1), 3, 1, 1)], labels=LABELS)
    assert chart.bars[0].label.startswith(f"{in_words}: ")
    assert [tick.label for tick in chart.frame.x_ticks] == [on_axis]
