"""The standings' rows, their own module so that ``standings`` (which counts them) and
``ranking`` (which orders them) both import them, and neither the other."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.formats import get_format

from scoring.standings.ratings import Rating


def one_decimal(value: float) -> str:
    """``value`` with one decimal, in the current language (``floatformat:1``, cheaper)."""
    return f"{value:.1f}".replace(".", get_format("DECIMAL_SEPARATOR"))


class PerSeries:
    """What a row of the table says per series: the share won, the defeat points on average."""

    played: int
    won: int
    defeat: int

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0

    @property
    def win_percent(self) -> int:
        return round(100 * self.win_rate)

    @property
    def average_defeat(self) -> float:
        return self.defeat / self.played if self.played else 0.0

    # Shown with one decimal: a table of many rows, so not through ``floatformat``.
    @property
    def average_text(self) -> str:
        return one_decimal(self.average_defeat)


@dataclass(frozen=True)
class PlayerRow(PerSeries):
    player_id: int
    name: str
    played: int
    won: int
    goats: int
    defeat: int  # defeat points summed over the series
    eggs: int  # 60:60 deals in their series
    naked: int  # deals in which their side was charged the naked defeat (engine's definition)
    rating: Rating | None


@dataclass(frozen=True)
class PairRow(PerSeries):
    first_id: int
    second_id: int
    first: str
    second: str
    played: int
    won: int
    goats: int
    defeat: int
