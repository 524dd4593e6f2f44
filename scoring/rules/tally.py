"""Deal-level figures of each side of a series: played, won, lost, naked, eggs, narrow saves.

What a player's record counts per deal, decided here from the engine's outcome of every deal
so that no other module has to know what 6 or 2 defeat points mean. The site
stores the figures on each seat (``services.series_refresh``) and adds them up with SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from .scoring import SAVED
from .series import SeriesState


@dataclass(frozen=True, slots=True)
class SideTally:
    """One side's deals in a series; only deals the side was in play for count.

    - ``played``: deals the side was in play for (a side that is out plays no more deals).
    - ``won``: played, not eggs, and no defeat points (with three sides, the top side alone).
    - ``lost``: defeat points charged, whatever the reason: a 60:60 under ``eggs="both-two"``
      and a top shared by three players count as lost too, since they cost 2.
    - ``naked``: charged the naked defeat (``DealOutcome.naked``).
    - ``eggs``: 60:60 deals played, whatever the eggs house rule does with them.
    - ``narrow_saves``: lost with the "saved" defeat and exactly the save line's card points
      (the two-side line when two sides were in play, the three-side line when three): one
      point fewer would have cost 4. A side level with the top (eggs, a shared top) was not
      saved by the line and is not counted.
    """

    played: int = 0
    won: int = 0
    lost: int = 0
    naked: int = 0
    eggs: int = 0
    narrow_saves: int = 0


def side_tallies(state: SeriesState) -> tuple[SideTally, ...]:
    """Per original side of the series, its deal-level figures over ``state.deals``."""
    sides = state.sides
    played = [0] * sides
    won = [0] * sides
    lost = [0] * sides
    naked = [0] * sides
    eggs = [0] * sides
    saves = [0] * sides
    rules = state.rules
    for outcome in state.deals:
        in_play = outcome.in_play
        defeat = outcome.defeat
        points = outcome.deal.points
        is_eggs = outcome.eggs
        bare = outcome.naked
        saved = SAVED * outcome.multiplier
        line = rules.save_line_for(len(in_play))
        top = max(points)
        for index, side in enumerate(in_play):
            played[side] += 1
            if is_eggs:
                eggs[side] += 1
            value = defeat[side]
            if not value:
                if not is_eggs:
                    won[side] += 1
                continue
            lost[side] += 1
            if side in bare:
                naked[side] += 1
            elif value == saved and points[index] == line and points[index] < top:
                saves[side] += 1
    return tuple(
        SideTally(played[side], won[side], lost[side], naked[side], eggs[side], saves[side])
        for side in range(sides)
    )
