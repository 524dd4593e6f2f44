"""A club night against what the ratings expected: for each player, the wins the league's
ratings from before the evening predicted (openskill's ``predict_win`` for each game's sides,
summed) beside the wins they had, and who beat expectation most.

The ratings are the running totals' right before the evening began (its ``created_at``); a
player new to the league starts where openskill starts everyone. A game counts once it has a
result (``Series.finished``, decided by ``table.life``); a tie is no win, as everywhere.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from scoring.lib.collation import sorted_by_name
from scoring.models import Event, Player, Seat
from scoring.standings.ratings import MODEL, MODEL_MU, MODEL_SIGMA, Rating
from scoring.standings.selectors import ratings_before

#: Beating expectation by less than this many wins is no story (a coin's luck).
BEAT_FROM = 0.25


@dataclass(frozen=True)
class GameSeat:
    series_id: int
    player_id: int
    side: int
    won: bool


@dataclass(frozen=True)
class ExpectedLine:
    player_id: int
    name: str
    games: int
    expected: float
    actual: int

    @property
    def beat_by(self) -> float:
        return self.actual - self.expected

    @property
    def beat_text(self) -> str:
        """The difference with its sign, one decimal: "+1.4", "−0.6"."""
        value = round(self.beat_by, 1)
        return f"+{value:.1f}" if value > 0 else f"−{-value:.1f}" if value < 0 else "0.0"


@dataclass(frozen=True)
class Evening:
    lines: list[ExpectedLine]  # the best against expectation first

    @property
    def beat_most(self) -> list[ExpectedLine]:
        """Who beat expectation most (level at the top: all of them), when anyone did by
        ``BEAT_FROM`` or more."""
        if not self.lines or self.lines[0].beat_by < BEAT_FROM:
            return []
        best = round(self.lines[0].beat_by, 1)
        return [line for line in self.lines if round(line.beat_by, 1) == best]

    @property
    def beat_names(self) -> str:
        return ", ".join(line.name for line in self.beat_most)


def expected_wins(
    games: list[list[GameSeat]], ratings: dict[int, Rating]
) -> dict[int, tuple[int, float, int]]:
    """Per player: games, expected wins (the win chance of their side in each game, from
    ``ratings``) and actual wins."""
    found: dict[int, list] = defaultdict(lambda: [0, 0.0, 0])
    for seats in games:
        sides = sorted({seat.side for seat in seats})
        if len(sides) < 2:
            continue
        teams = [
            [
                MODEL.rating(mu=rating.mu, sigma=rating.sigma)
                if (rating := ratings.get(seat.player_id))
                else MODEL.rating(mu=MODEL_MU, sigma=MODEL_SIGMA)
                for seat in seats
                if seat.side == side
            ]
            for side in sides
        ]
        chances = dict(zip(sides, MODEL.predict_win(teams), strict=True))
        for seat in seats:
            line = found[seat.player_id]
            line[0] += 1
            line[1] += chances[seat.side]
            line[2] += int(seat.won)
    return {pid: (games_, expected, actual) for pid, (games_, expected, actual) in found.items()}


def evening_expected(event: Event) -> Evening:
    """The evening's players against expectation: a query for its games, one for the ratings
    before it (two index seeks per player), one for the names."""
    seats = (
        Seat.objects.filter(series__event_table__round__event=event, series__finished=True)
        .order_by("series_id", "position")
        .values_list("series_id", "player_id", "side", "is_winner")
    )
    games = [
        list(group)
        for _id, group in groupby((GameSeat(*row) for row in seats), key=lambda s: s.series_id)
    ]
    figures = expected_wins(games, ratings_before(event.league, event.created_at))
    names = dict(Player.objects.filter(pk__in=list(figures)).values_list("pk", "name"))
    lines = [
        ExpectedLine(pid, names.get(pid, "?"), games_, expected, actual)
        for pid, (games_, expected, actual) in figures.items()
    ]
    lines = sorted_by_name(lines, lambda line: line.name)
    lines.sort(key=lambda line: -round(line.beat_by, 1))  # stable: names within
    return Evening(lines=lines)
