"""Game modes: how many seats, which side each seat plays for, and what to call them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from scoring.rules.table import SEAT_SIDES

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class Mode(models.TextChoices):
    TEAMS = "teams", _("Two teams of two")
    DUEL = "duel", _("Two players")
    THREE = "three", _("Three players")


@dataclass(frozen=True)
class ModeShape:
    seats: int
    seat_sides: tuple[int, ...]
    seat_labels: tuple[StrOrPromise, ...]

    @property
    def sides(self) -> int:
        return len(set(self.seat_sides))


SHAPES: dict[str, ModeShape] = {
    Mode.TEAMS: ModeShape(
        seats=4,
        seat_sides=SEAT_SIDES[4],
        seat_labels=(
            pgettext_lazy("seat", "North"),
            pgettext_lazy("seat", "East"),
            pgettext_lazy("seat", "South"),
            pgettext_lazy("seat", "West"),
        ),
    ),
    Mode.DUEL: ModeShape(
        seats=2,
        seat_sides=SEAT_SIDES[2],
        seat_labels=(pgettext_lazy("seat", "Player 1"), pgettext_lazy("seat", "Player 2")),
    ),
    Mode.THREE: ModeShape(
        seats=3,
        seat_sides=SEAT_SIDES[3],
        seat_labels=(
            pgettext_lazy("seat", "Player 1"),
            pgettext_lazy("seat", "Player 2"),
            pgettext_lazy("seat", "Player 3"),
        ),
    ),
}
