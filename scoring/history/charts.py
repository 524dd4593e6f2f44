"""Charts drawn on the server as inline SVG: pure functions from numbers to coordinates, which
the templates ``scoring/history/_*_chart.html`` draw (names escaped by the template engine,
colours from CSS classes, dark mode included)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from django.utils.formats import date_format
from django.utils.translation import get_language

WIDTH = 360
HEIGHT = 220
LEFT = 40  # room for the y axis' numbers and label
RIGHT = 14
TOP = 14
BOTTOM = 44  # room for the x axis' numbers and label
STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000)
#: How each language writes a month (in a bar's words, under the axis): "M Y" / "M y" where it
#: reads well; Japanese and Korean put the year first with its counter ("2026年12月"), Vietnamese
#: writes the month as a number ("12/2026"; under the axis "12/26" would read as a day).
MONTH_FORMATS = {
    "ja": ("Y年n月", "y年n月"),
    "ko": ("Y년 n월", "y년 n월"),
    "vi": ("n/Y", "n/Y"),
}
MONTH_FORMAT = ("M Y", "M y")


@dataclass(frozen=True)
class Tick:
    at: float  # x or y in the SVG's coordinates
    label: str


@dataclass(frozen=True)
class Line:
    side: int
    name: str
    points: str  # "x,y x,y ..." for <polyline points>
    end_x: float
    end_y: float
    total: int
    role: str = ""  # CSS class: "is-goat" (red) or "is-winner" (green); other sides keep theirs


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    kind: str  # CSS class: "won", "goat" or "other"
    label: str  # what the bar means, in words (the SVG <title> of the bar)


@dataclass(frozen=True)
class Frame:
    """The plot area and its axes."""

    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    x_ticks: list[Tick]
    y_ticks: list[Tick]

    @property
    def x_label_y(self) -> float:
        return self.height - 6

    @property
    def y_label_x(self) -> float:
        return 12

    @property
    def middle_x(self) -> float:
        return (self.left + self.right) / 2

    @property
    def middle_y(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class LineChart:
    frame: Frame
    lines: list[Line]
    target_y: float | None
    target: int


@dataclass(frozen=True)
class BarChart:
    frame: Frame
    bars: list[Bar]


def nice_step(largest: int, ticks: int = 6) -> int:
    """A round step (1, 2, 5, 10, 20, 25, 50, ...): at most ``ticks`` steps up to ``largest``."""
    for step in STEPS:
        if largest / step <= ticks:
            return step
    return STEPS[-1] * (1 + largest // (STEPS[-1] * ticks))


def _round(value: float) -> float:
    return round(value, 1)


def _frame(x_ticks: list[Tick], y_ticks: list[Tick]) -> Frame:
    return Frame(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=WIDTH - RIGHT,
        top=TOP,
        bottom=HEIGHT - BOTTOM,
        x_ticks=x_ticks,
        y_ticks=y_ticks,
    )


def defeat_chart(
    names: Sequence[str],
    totals: Sequence[Sequence[int]],
    target: int,
    *,
    goats: Collection[int] = (),
    winner: int | None = None,
) -> LineChart:
    """Each side's defeat points after every deal (``totals[k]`` after deal k + 1), from 0; the
    y axis reaches at least the target, drawn dashed, the goats' lines red, the winner's green."""
    deals = len(totals)
    top_value = max([target, *(max(row) for row in totals if row)])
    y_step = nice_step(top_value)
    y_max = y_step * -(-top_value // y_step)
    x_max = max(deals, 1)
    x_step = nice_step(x_max, ticks=8)
    left, right, top, bottom = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM

    def x_at(deal: int) -> float:
        return _round(left + (right - left) * deal / x_max)

    def y_at(value: int) -> float:
        return _round(bottom - (bottom - top) * value / y_max)

    lines = []
    for side, name in enumerate(names):
        values = [0, *(row[side] for row in totals)]
        coords = [(x_at(deal), y_at(value)) for deal, value in enumerate(values)]
        lines.append(
            Line(
                side=side,
                name=name,
                points=" ".join(f"{x:g},{y:g}" for x, y in coords),
                end_x=coords[-1][0],
                end_y=coords[-1][1],
                total=values[-1],
                role="is-goat" if side in goats else "is-winner" if side == winner else "",
            )
        )
    x_ticks = [Tick(x_at(deal), str(deal)) for deal in range(0, x_max + 1, x_step)]
    y_ticks = [Tick(y_at(value), str(value)) for value in range(0, y_max + 1, y_step)]
    return LineChart(
        frame=_frame(x_ticks, y_ticks), lines=lines, target_y=y_at(target), target=target
    )


class Month(Protocol):
    """One month of a player's results (``records.MonthResults`` is one)."""

    @property
    def month(self) -> date: ...
    @property
    def played(self) -> int: ...
    @property
    def won(self) -> int: ...
    @property
    def goat(self) -> int: ...


def results_chart(months: Sequence[Month], *, labels: dict[str, str]) -> BarChart:
    """Per month, the series won, lost as the goat, and the rest, as stacked bars; ``labels``
    words each kind (``"won"``, ``"goat"``, ``"other"``) with ``%(month)s`` and ``%(count)s``."""
    largest = max([1, *(month.played for month in months)])
    y_step = nice_step(largest, ticks=5)
    y_max = y_step * -(-largest // y_step)
    left, right, top, bottom = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM
    slot = (right - left) / max(len(months), 1)
    width = _round(max(slot * 0.7, 1))

    def height(count: int) -> float:
        return (bottom - top) * count / y_max

    bars = []
    x_ticks = []
    every = max(1, -(-len(months) // 5))  # at most five month labels: they must not touch
    in_words, on_axis = MONTH_FORMATS.get(get_language() or "", MONTH_FORMAT)
    for index, month in enumerate(months):
        x = left + slot * index + (slot - width) / 2
        name = date_format(month.month, in_words)
        base: float = bottom
        other = month.played - month.won - month.goat
        for kind, count in (("goat", month.goat), ("won", month.won), ("other", other)):
            if count <= 0:
                continue
            size = height(count)
            base -= size
            text = labels[kind] % {"month": name, "count": count}
            bars.append(Bar(_round(x), _round(base), width, _round(size), kind, text))
        if index % every == 0:
            x_ticks.append(Tick(_round(x + width / 2), date_format(month.month, on_axis)))
    y_ticks = [
        Tick(_round(bottom - height(value)), str(value)) for value in range(0, y_max + 1, y_step)
    ]
    return BarChart(frame=_frame(x_ticks, y_ticks), bars=bars)
