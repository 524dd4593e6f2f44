"""House rules (RULES.md, "House rules"): one frozen value per series, and the named presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from .cards import DEAL_TOTAL
from .errors import InvalidRuleset

NAKED_CHOICES = ("tricks", "points")
EGGS_CHOICES = ("none", "both-two", "double-next", "stacking")
ENDING_CHOICES = ("last-standing", "first-out")

#: A side at or above the target is out; beyond this the game would never end in an evening.
MAX_TARGET = 999
#: The loser of a two-side deal has at most 59 points, so a save line above 60 could never save.
MAX_SAVE_LINE = DEAL_TOTAL // 2


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The house rules frozen into a series when it starts.

    - ``target``: a side with this many defeat points or more is out (default 12).
    - ``save_line``: two sides, the loser at or above it scores 2, below it 4 (default 31).
    - ``save_line_three``: the same for three players (default 21).
    - ``naked``: ``"tricks"`` (6 only without a trick) or ``"points"`` (6 for 0 card points).
    - ``eggs``: what 60:60 does: ``"none"``, ``"both-two"``, ``"double-next"`` or ``"stacking"``.
    - ``ending``: three players, ``"last-standing"`` or ``"first-out"``.
    """

    target: int = 12
    save_line: int = 31
    save_line_three: int = 21
    naked: str = "tricks"
    eggs: str = "none"
    ending: str = "last-standing"

    def __post_init__(self) -> None:
        _check_whole("target", self.target, 1, MAX_TARGET)
        _check_whole("save_line", self.save_line, 1, MAX_SAVE_LINE)
        _check_whole("save_line_three", self.save_line_three, 1, MAX_SAVE_LINE)
        _check_choice("naked", self.naked, NAKED_CHOICES)
        _check_choice("eggs", self.eggs, EGGS_CHOICES)
        _check_choice("ending", self.ending, ENDING_CHOICES)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for freezing the rules into a stored series."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """The ruleset stored by ``to_dict``; unknown keys are refused, missing ones default."""
        if not isinstance(data, dict):
            raise InvalidRuleset("house rules must be a mapping of setting names to values")
        unknown = set(data) - {field.name for field in dataclasses.fields(cls)}
        if unknown:
            raise InvalidRuleset(f"unknown house-rule setting(s): {', '.join(sorted(unknown))}")
        return cls(**data)

    def save_line_for(self, sides: int) -> int:
        """The save line of a deal with ``sides`` sides in play (two or three)."""
        return self.save_line if sides == 2 else self.save_line_three

    @property
    def preset_name(self) -> str | None:
        """The name of the preset these rules equal, or None for custom rules."""
        return next((name for name, preset in PRESETS.items() if preset == self), None)


def _check_whole(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRuleset(f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise InvalidRuleset(f"{name} must be between {low} and {high}, not {value}")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InvalidRuleset(f"{name} must be one of {', '.join(choices)}, not {value!r}")


CLASSIC = Ruleset()

#: Named presets (RULES.md, "Named presets").
PRESETS: dict[str, Ruleset] = {
    # The seeds' 4-card yard rules.
    "classic": CLASSIC,
    # Classic, but eggs double the next scoring deal.
    "eggs-double": Ruleset(eggs="double-next"),
    # Classic, but consecutive eggs stack the multiplier.
    "eggs-stacking": Ruleset(eggs="stacking"),
    # Seed 003: eggs give both sides 2; three players play to the last one standing.
    "tie-penalty": Ruleset(eggs="both-two", ending="last-standing"),
}
