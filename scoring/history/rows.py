"""A row of every list of series (the home page, the history, a league's series), from plain
values and one query for the seats: model instances cost more than the pages spend on anything
else."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext, ngettext

from scoring import rules
from scoring.core.modes import SHAPES, Mode
from scoring.core.rulesets import rules_label
from scoring.models import Ending, Seat

#: The series' columns a row is made of, in the order ``series_rows`` reads them.
ROW_FIELDS = (
    "pk",
    "created_at",
    "finished",
    "deal_count",
    "eggs",
    "mode",
    "rules",
    "totals",
    "goat_sides",
    "winner_side",
    "ending",
)


@dataclass(frozen=True)
class SeatRow:
    name: str  # the player's
    side: int
    is_goat: bool
    is_winner: bool


@dataclass(frozen=True)
class SideRow:
    name: str  # "Anna & Vera" for a team
    total: int
    goat: bool
    winner: bool


@dataclass(frozen=True)
class SeriesRow:
    pk: int
    created_at: datetime
    finished: bool
    deal_count: int
    eggs: int
    mode: str
    rules: Any  # the stored house rules (a dict)
    totals: list[int]
    goat_sides: list[int]
    winner_side: int | None
    ending: str  # how it ended (``Series.ending``: "" while it is played)
    seats: list[SeatRow]  # in seat order

    def get_absolute_url(self) -> str:
        return reverse("series_detail", args=[self.pk])

    @property
    def mode_label(self) -> str:
        return str(Mode(self.mode).label)

    @property
    def rules_label(self) -> str:
        try:
            return rules_label(rules.Ruleset.from_dict(self.rules))
        except (rules.InvalidRuleset, TypeError):
            return gettext("Custom rules")

    @property
    def sides(self) -> list[SideRow]:
        totals = self.totals or []
        return [
            SideRow(
                name=" & ".join(seat.name for seat in self.seats if seat.side == side),
                total=totals[side] if side < len(totals) else 0,
                goat=side in (self.goat_sides or []),
                winner=self.winner_side == side,
            )
            for side in range(SHAPES[self.mode].sides)
        ]

    @property
    def goats(self) -> str:
        return gettext(" and ").join(side.name for side in self.sides if side.goat)

    @property
    def result(self) -> str:
        """Who was the goat, or who won a game closed before its goat, in words; or that the
        series is still being played."""
        if not self.finished:
            return gettext("In progress")
        count = len(self.goat_sides or [])
        if self.ending == Ending.GOAT and self.eggs and count:
            text = ngettext("%(goats)s: goat with eggs", "%(goats)s: goats with eggs", count)
        elif self.ending == Ending.GOAT and count:
            text = ngettext("%(goats)s: the goat", "%(goats)s: the goats", count)
        elif self.ending == Ending.GOAT:
            return gettext("Finished")
        elif not self.deal_count:  # closed before its first deal: it counts nowhere
            return gettext("Closed before its first deal: not played")
        elif self.winner_side is not None:
            name = self.sides[self.winner_side].name
            return gettext("%(winner)s won: fewer defeat points") % {"winner": name}
        else:
            return gettext("Level: nobody won")
        return text % {"goats": self.goats}


def series_rows(values: Iterable[Sequence[Any]]) -> list[SeriesRow]:
    """The rows of the series whose ``ROW_FIELDS`` values are given; their seats in one query."""
    found = list(values)
    seats: dict[int, list[SeatRow]] = {}
    for series_id, name, side, is_goat, is_winner in (
        Seat.objects.filter(series_id__in=[row[0] for row in found])
        .order_by("series_id", "position")
        .values_list("series_id", "player__name", "side", "is_goat", "is_winner")
    ):
        seats.setdefault(series_id, []).append(SeatRow(name, side, is_goat, is_winner))
    return [
        SeriesRow(**dict(zip(ROW_FIELDS, row, strict=True)), seats=seats.get(row[0], []))
        for row in found
    ]
