"""How the standings' players are ranked and sorted, once their rows are counted.

Ranked by what everyone at the table understands: series won, then fewer goats, then the rating:
openskill's cautious μ − 3σ as ``RATING_BASE`` + ``RATING_SCALE`` × (μ − 3σ), so a newcomer
starts at 1000 and a settled player's rating is in a chess club's range (400 points are odds
of about 10 to 1). Sorting by another column (``?sort=``) keeps the rank as the place shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scoring.lib.collation import name_sort_key
from scoring.standings.rows import PlayerRow

RATING_BASE = 1000
RATING_SCALE = 25

ASCENDING, DESCENDING = "ascending", "descending"  # the values of aria-sort

DEFAULT_SORT = "won"


def rating_points(mu: float, sigma: float) -> int:
    """The rating shown for openskill's (μ, σ)."""
    return round(RATING_BASE + RATING_SCALE * (mu - 3 * sigma))


def rank_key(*, won: int, goats: int, mu: float | None, sigma: float | None, player_id: int):
    """The standings' order: more series won, fewer goats, the higher rating, the older player."""
    if mu is None or sigma is None:
        return (-won, goats, 1, 0.0, player_id)  # no rating yet: after the rated
    return (-won, goats, 0, -(mu - 3 * sigma), player_id)


def _row_rank(row: PlayerRow) -> tuple:
    rating = row.rating
    return rank_key(
        won=row.won,
        goats=row.goats,
        mu=rating.mu if rating else None,
        sigma=rating.sigma if rating else None,
        player_id=row.player_id,
    )


def _rating_first(row: PlayerRow) -> tuple:
    if row.rating is None:
        return (1, 0.0)
    return (0, -row.rating.ordinal)


#: Each sort a reader may pick: the key that comes before the rank, and its direction.
SORTS: dict[str, tuple[Callable[[PlayerRow], tuple], str]] = {
    "won": (lambda row: (), DESCENDING),
    "goats": (lambda row: (row.goats,), ASCENDING),
    "rate": (lambda row: (-row.win_rate, -row.played), DESCENDING),
    "rating": (_rating_first, DESCENDING),
    "played": (lambda row: (-row.played,), DESCENDING),
    "name": (lambda row: (name_sort_key(row.name),), ASCENDING),
}


def sort_param(value: str | None) -> str:
    """The sort asked for in the query string; the default for anything unknown."""
    return value if value in SORTS else DEFAULT_SORT


@dataclass(frozen=True)
class RankedRow:
    place: int  # the rank, shared by players level on series won, goats and the rating shown
    row: PlayerRow

    @property
    def rating(self) -> int | None:
        rating = self.row.rating
        return rating_points(rating.mu, rating.sigma) if rating else None


@dataclass(frozen=True)
class Ranking:
    rows: list[RankedRow]
    hidden: int  # players not shown (offered with "show everyone")
    sort: str

    @property
    def direction(self) -> str:
        return SORTS[self.sort][1]

    @property
    def cells(self) -> list[tuple]:
        """Each row's cells in the table's order: place, name, won, goats, rating (None: none
        yet), played, win percent, average defeat points (as text), eggs, naked deals."""
        return [
            (
                entry.place,
                entry.row.name,
                entry.row.won,
                entry.row.goats,
                entry.rating,
                entry.row.played,
                entry.row.win_percent,
                entry.row.average_text,
                entry.row.eggs,
                entry.row.naked,
            )
            for entry in self.rows
        ]


def ranking(rows: Sequence[PlayerRow], *, sort: str, count: int, limit: int | None) -> Ranking:
    """``rows`` ranked, sorted by ``sort`` and cut to the first ``limit`` (None: all of them);
    of ``count`` players in all, those not shown are counted as hidden."""
    ranked: list[RankedRow] = []
    previous = None
    for index, row in enumerate(sorted(rows, key=_row_rank), start=1):
        entry = RankedRow(place=index, row=row)
        level = (row.won, row.goats, entry.rating)
        if ranked and level == previous:
            entry = RankedRow(place=ranked[-1].place, row=row)
        ranked.append(entry)
        previous = level
    key = SORTS[sort][0]
    ranked.sort(key=lambda entry: (*key(entry.row), entry.place))  # stable: ties keep the rank
    shown = ranked if limit is None else ranked[:limit]
    return Ranking(rows=shown, hidden=count - len(shown), sort=sort)
