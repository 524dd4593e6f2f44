"""Skill ratings: openskill's Plackett-Luce model over a league's finished series, in order.

Partners in two teams form a team (a rating moves with who one played beside); two and three
players are teams of one. A side's rank is the stored result: the winner first, the goats last,
the rest by defeat points. Series are taken in finishing order ``(finished_at, pk)``, so the
same series always give the same ratings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from openskill.models import PlackettLuce

# Plackett-Luce's defaults: a newcomer is 25 ± 25/3.
MODEL_MU = 25.0
MODEL_SIGMA = 25.0 / 3


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    series: int  # how many rated series it comes from

    @property
    def ordinal(self) -> float:
        """A conservative skill estimate (μ − 3σ): the rating shown (``ranking.rating_points``)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class SeatResult:
    player_id: int
    side: int
    total: int
    is_winner: bool
    is_goat: bool


def side_ranks(seats: Iterable[SeatResult]) -> dict[int, int]:
    """Each side's rank (1 is best): the winner, then the others by total, then the goat(s)."""
    keys: dict[int, tuple[int, int]] = {}
    for seat in seats:
        group = 0 if seat.is_winner else 2 if seat.is_goat else 1
        keys[seat.side] = (group, seat.total if group == 1 else 0)
    ordered = sorted(set(keys.values()))
    return {side: ordered.index(key) + 1 for side, key in keys.items()}


#: Plackett-Luce holds only its parameters: one model serves every league.
MODEL = PlackettLuce(mu=MODEL_MU, sigma=MODEL_SIGMA)

#: A player's running rating: (μ, σ, rated series).
RatingState = dict[int, tuple[float, float, int]]


def rate_match(current: RatingState, seats: list[SeatResult]) -> None:
    """Move the ratings in ``current`` by one match (a series' seats), in place."""
    ranks = side_ranks(seats)
    if len(ranks) < 2:
        return  # nothing to compare
    sides = sorted(ranks)
    teams_ids = [[s.player_id for s in seats if s.side == side] for side in sides]
    teams = [
        [MODEL.rating(*current.get(pid, (MODEL_MU, MODEL_SIGMA, 0))[:2]) for pid in team]
        for team in teams_ids
    ]
    rated = MODEL.rate(teams, ranks=[ranks[side] for side in sides])
    for team_ids, team in zip(teams_ids, rated, strict=True):
        for pid, rating in zip(team_ids, team, strict=True):
            played = current.get(pid, (0.0, 0.0, 0))[2]
            current[pid] = (rating.mu, rating.sigma, played + 1)


def ratings_of(current: RatingState) -> dict[int, Rating]:
    return {pid: Rating(mu=mu, sigma=sigma, series=n) for pid, (mu, sigma, n) in current.items()}


def rate(matches: Iterable[list[SeatResult]]) -> dict[int, Rating]:
    """Ratings after the matches in the order given, by player id."""
    current: RatingState = {}
    for seats in matches:
        rate_match(current, seats)
    return ratings_of(current)
