"""Seating for a club night: who sits where in each round (pure Python, no Django).

A table of four lists its seats clockwise, so seats 1 and 3 are partners, as are 2 and 4; a
table of three plays the three-player rules (everyone for themselves). Over an evening the
schedule keeps partners from repeating first, then spreads the opponents evenly, and rotates
who sits out (or who plays at a table of three) fairly.

For 4k players (4k - 1 rounds) and 4k + 1 players (4k + 1 rounds, one out each round) a whist
tournament exists: each pair partners exactly once and opposes exactly twice. Where a cyclic one
is known (below) the evening starts from it, taking the rounds that repeat the fewest opponents
when it is shorter than the design; everything else, and the rounds left after someone arrives
or leaves, comes from a seeded simulated annealing over the rounds not yet played, which counts
the played ones. The annealing starts over a few times from its best, leans on players who meet
someone twice, and lets two players trade a sit-out or a three-handed turn across two rounds, so
everyone keeps their number of each.

Repeated opponents, 13 players x 6 rounds, seeds 0-9 (before this search -> now): sitting out
2-5 -> 0-4 (0 is reached, e.g. seed 2); tables of three 5-12 -> 3-5 (0 would need every pair to
oppose exactly once; not found). 12 x 6: 9-10 -> 7-9 (at least 6 by counting).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Table = tuple[int, ...]

#: A whist-tournament design's point at infinity in the base tables below.
INF = -1

#: Initial rounds of Z-cyclic whist tournaments Wh(v), found by a search (up to 24) or by the
#: patterned-starter construction (below), and checked by tests/events/test_seating.py. For
#: v = 4k the points are Z_(v-1) and INF (INF stays put as the rounds develop: round i adds i
#: to every other point); for v = 4k + 1 the points are Z_v and the point i sits out round i.
#: Partners sit opposite (positions 1 & 3, 2 & 4).
WHIST_BASES: dict[int, tuple[Table, ...]] = {
    4: ((INF, 0, 2, 1),),
    5: ((1, 3, 4, 2),),
    8: ((0, 2, 6, 5), (INF, 3, 4, 1)),
    12: ((3, INF, 10, 0), (7, 5, 1, 2), (6, 9, 4, 8)),
    13: ((3, 12, 5, 8), (2, 11, 9, 10), (1, 4, 6, 7)),
    16: ((7, 14, 1, INF), (2, 10, 13, 12), (9, 3, 8, 6), (5, 4, 0, 11)),
    20: ((INF, 8, 3, 6), (5, 15, 10, 16), (2, 1, 14, 17), (12, 0, 4, 13), (18, 11, 9, 7)),
    24: (
        (INF, 6, 0, 20),
        (2, 3, 8, 7),
        (9, 19, 4, 16),
        (12, 22, 5, 14),
        (10, 17, 21, 18),
        (11, 15, 1, 13),
    ),
    # The patterned starter: partners i and -i (and INF with 0); each table's two partnerships
    # {i, -i}, {j, -j} oppose at the differences i - j and i + j, all distinct over the tables.
    17: ((1, 4, 16, 13), (2, 8, 15, 9), (3, 5, 14, 12), (6, 7, 11, 10)),
    25: (
        (1, 2, 24, 23),
        (3, 9, 22, 16),
        (4, 12, 21, 13),
        (5, 10, 20, 15),
        (6, 8, 19, 17),
        (7, 11, 18, 14),
    ),
    28: (
        (INF, 3, 0, 24),
        (1, 6, 26, 21),
        (2, 12, 25, 15),
        (4, 8, 23, 19),
        (5, 13, 22, 14),
        (7, 9, 20, 18),
        (10, 11, 17, 16),
    ),
    29: (
        (1, 2, 28, 27),
        (3, 13, 26, 16),
        (4, 8, 25, 21),
        (5, 10, 24, 19),
        (6, 12, 23, 17),
        (7, 14, 22, 15),
        (9, 11, 20, 18),
    ),
    37: (
        (1, 2, 36, 35),
        (3, 7, 34, 30),
        (4, 15, 33, 22),
        (5, 18, 32, 19),
        (6, 14, 31, 23),
        (8, 13, 29, 24),
        (9, 16, 28, 21),
        (10, 12, 27, 25),
        (11, 17, 26, 20),
    ),
    40: (
        (INF, 13, 0, 26),
        (1, 2, 38, 37),
        (3, 5, 36, 34),
        (4, 18, 35, 21),
        (6, 17, 33, 22),
        (7, 14, 32, 25),
        (8, 12, 31, 27),
        (9, 15, 30, 24),
        (10, 19, 29, 20),
        (11, 16, 28, 23),
    ),
    41: (
        (1, 2, 40, 39),
        (3, 8, 38, 33),
        (4, 14, 37, 27),
        (5, 20, 36, 21),
        (6, 18, 35, 23),
        (7, 15, 34, 26),
        (9, 11, 32, 30),
        (10, 17, 31, 24),
        (12, 16, 29, 25),
        (13, 19, 28, 22),
    ),
}

#: The annealing's weights: a repeated partnership outweighs any spread of opponents.
PARTNER_WEIGHT = 10_000
#: Partners opposite, opponents beside: the pairs a table of four makes.
_PARTNERS = ((0, 2), (1, 3))
_OPPONENTS: tuple[tuple[int, int], ...] = ((0, 1), (0, 3), (2, 1), (2, 3))
_TRIO: tuple[tuple[int, int], ...] = ((0, 1), (0, 2), (1, 2))


@dataclass(frozen=True)
class Round:
    tables: tuple[Table, ...]
    out: tuple[int, ...] = ()

    def seated(self) -> list[int]:
        return [player for table in self.tables for player in table]

    def as_json(self) -> dict[str, list]:
        return {"tables": [list(table) for table in self.tables], "out": list(self.out)}


@dataclass(frozen=True)
class Figures:
    """How fair a schedule is, counted over the pairs of players it seats."""

    repeated_partners: int
    repeated_opponents: int
    most_partnered: int
    opponent_meetings: dict[int, int]
    sit_outs: dict[int, int]
    three_player_seats: dict[int, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {
            "repeated_partners": self.repeated_partners,
            "repeated_opponents": self.repeated_opponents,
            "most_partnered": self.most_partnered,
            "opponent_meetings": {str(k): v for k, v in sorted(self.opponent_meetings.items())},
            "sit_outs": {str(k): v for k, v in sorted(self.sit_outs.items())},
            "three_player_seats": {str(k): v for k, v in sorted(self.three_player_seats.items())},
        }


def table_relations(table: Table) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The partner pairs and the opponent pairs of one table."""
    if len(table) == 4:
        partners = [(table[i], table[j]) for i, j in _PARTNERS]
        return partners, [(table[i], table[j]) for i, j in _OPPONENTS]
    if len(table) == 3:
        return [], [(table[i], table[j]) for i, j in _TRIO]
    raise ValueError("a table seats three or four players")


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def figures(rounds: Sequence[Round], players: Iterable[int] | None = None) -> Figures:
    """Repeated partners and opponents, the opponents' spread, sit-outs per player."""
    partners: Counter[tuple[int, int]] = Counter()
    opponents: Counter[tuple[int, int]] = Counter()
    everyone = set(players or ())
    sit_outs: Counter[int] = Counter()
    trios: Counter[int] = Counter()
    for rnd in rounds:
        everyone.update(rnd.seated())
        everyone.update(rnd.out)
        sit_outs.update(rnd.out)
        for table in rnd.tables:
            if len(table) == 3:
                trios.update(table)
            mates, rivals = table_relations(table)
            partners.update(_pair(a, b) for a, b in mates)
            opponents.update(_pair(a, b) for a, b in rivals)
    ordered = sorted(everyone)
    meetings: Counter[int] = Counter()
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            meetings[opponents[(a, b)]] += 1
    return Figures(
        repeated_partners=sum(c - 1 for c in partners.values() if c > 1),
        repeated_opponents=sum(c - 1 for c in opponents.values() if c > 1),
        most_partnered=max(partners.values(), default=0),
        opponent_meetings=dict(meetings),
        sit_outs={p: sit_outs[p] for p in ordered},
        three_player_seats={p: trios[p] for p in ordered} if trios else {},
    )


def table_sizes(count: int, *, three_player_tables: bool) -> tuple[list[int], int]:
    """The tables' sizes for ``count`` players, and how many sit out."""
    if count < 3 or (count < 4 and not three_player_tables):
        raise ValueError("too few players for a table")
    if not three_player_tables:
        return [4] * (count // 4), count % 4
    best: tuple[int, int, list[int]] | None = None
    for trios in range(0, count // 3 + 1):
        fours = (count - 3 * trios) // 4
        out = count - 3 * trios - 4 * fours
        key = (out, trios, [4] * fours + [3] * trios)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None
    return best[2], best[0]


def whist_rounds(count: int) -> list[Round] | None:
    """The rounds of the cyclic whist tournament on players 1..count, if one is known."""
    base = WHIST_BASES.get(count)
    if base is None:
        return None
    infinite = count % 4 == 0
    modulus = count - 1 if infinite else count

    def label(point: int, shift: int) -> int:
        return count if point == INF else (point + shift) % modulus + 1

    return [
        Round(
            tables=tuple(tuple(label(p, shift) for p in table) for table in base),
            out=() if infinite else (shift + 1,),
        )
        for shift in range(modulus)
    ]


class _Counts:
    """Partner and opponent counts of every pair, with the annealing's cost of a change."""

    def __init__(self) -> None:
        self.partners: Counter[tuple[int, int]] = Counter()
        self.opponents: Counter[tuple[int, int]] = Counter()
        #: The partners' share of the cost, before the weight.
        self.partner_cost = 0

    def cost(self, present: Sequence[int]) -> int:
        """The cost over the pairs of ``present`` players."""
        total = 0
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                p, o = self.partners[(a, b)], self.opponents[(a, b)]
                total += PARTNER_WEIGHT * p * (p - 1) // 2 + o * o
        return total

    def floor(self, present: Sequence[int]) -> int:
        """No seating costs less: the same meetings spread as evenly as the pairs allow."""
        pairs = len(present) * (len(present) - 1) // 2
        wanted = set(present)

        def even(meetings: int, cost_of) -> int:
            each, rest = divmod(meetings, pairs)
            return (pairs - rest) * cost_of(each) + rest * cost_of(each + 1)

        mates = sum(c for k, c in self.partners.items() if k[0] in wanted and k[1] in wanted)
        rivals = sum(c for k, c in self.opponents.items() if k[0] in wanted and k[1] in wanted)
        return PARTNER_WEIGHT * even(mates, lambda c: c * (c - 1) // 2) + even(
            rivals, lambda c: c * c
        )

    def apply(self, table: Sequence[int], sign: int) -> int:
        """Add (sign 1) or take away (sign -1) one table; the cost's change."""
        delta = 0
        n = len(table)
        if n == 4:
            for i, j in _PARTNERS:
                key = _pair(table[i], table[j])
                c = self.partners[key]
                # cost of a pair met c times as partners: c(c-1)/2, times the weight
                step = c if sign > 0 else -(c - 1)
                delta += PARTNER_WEIGHT * step
                self.partner_cost += step
                self.partners[key] = c + sign
            pairs = _OPPONENTS
        else:
            pairs = _TRIO
        for i, j in pairs:
            key = _pair(table[i], table[j])
            c = self.opponents[key]
            # cost of a pair met c times as opponents: c squared (an even spread is cheapest)
            delta += 2 * c + 1 if sign > 0 else -(2 * c - 1)
            self.opponents[key] = c + sign
        return delta


def _rotation(
    players: Sequence[int], counts: Counter[int], how_many: int, rnd: random.Random
) -> list[int]:
    """The ``how_many`` players who have had the fewest turns (ties drawn by the seed)."""
    if how_many <= 0:
        return []
    draw = {p: rnd.random() for p in players}
    chosen = sorted(players, key=lambda p: (counts[p], draw[p]))[:how_many]
    counts.update(chosen)
    return chosen


#: Up to this many subsets of a design's rounds are all tried; beyond, a local search picks.
EXHAUSTIVE_SUBSETS = 5_000


def _opposing(rnd: Round) -> list[tuple[int, int]]:
    return [_pair(a, b) for table in rnd.tables for a, b in table_relations(table)[1]]


def _subset_key(design: Sequence[Round], chosen: Iterable[int]) -> tuple[int, int]:
    """Repeated opponents of the chosen rounds, then the spread of their sit-outs."""
    met: Counter[tuple[int, int]] = Counter()
    out: Counter[int] = Counter()
    for r in chosen:
        met.update(_opposing(design[r]))
        out.update(design[r].out)
    spread = max(out.values()) - min(out.values()) if out else 0
    return sum(c - 1 for c in met.values() if c > 1), spread


def design_rounds(design: Sequence[Round], rounds: int) -> list[int]:
    """The ``rounds`` of a design (indices, in order) that repeat the fewest opponents.

    Every subset when there are few, else a greedy pick improved by exchanging one round at a
    time. In a cyclic design on Z_v (v = 4k + 1) every subset repeats as many opponents: each
    difference opposes twice, at shifts whose gaps cover every class, so only the annealing
    that follows can do better there.
    """
    v = len(design)
    if rounds >= v:
        return list(range(v))
    if math.comb(v, rounds) <= EXHAUSTIVE_SUBSETS:
        subsets = itertools.combinations(range(v), rounds)
        return list(min(subsets, key=lambda chosen: _subset_key(design, chosen)))
    chosen: list[int] = []
    for _ in range(rounds):
        rest = [r for r in range(v) if r not in chosen]
        chosen.append(min(rest, key=lambda r: _subset_key(design, [*chosen, r])))
    best = _subset_key(design, chosen)
    better = True
    while better:
        better = False
        for i in range(rounds):
            for r in range(v):
                if r in chosen:
                    continue
                trial = [*chosen[:i], r, *chosen[i + 1 :]]
                key = _subset_key(design, trial)
                if key < best:
                    chosen, best, better = trial, key, True
    return sorted(chosen)


def schedule(
    players: Sequence[int],
    rounds: int,
    *,
    seed: int = 0,
    three_player_tables: bool = False,
    played: Sequence[Round] = (),
    steps: int | None = None,
) -> list[Round]:
    """The ``played`` rounds, then ``rounds`` more seating ``players``.

    The played rounds are kept as they are and counted: a late arrival or an early leaver
    re-seats only what is left.
    """
    if rounds < 0:
        raise ValueError("the number of rounds cannot be negative")
    present = sorted(set(players))
    sizes, out = table_sizes(len(present), three_player_tables=three_player_tables)
    rnd = random.Random(seed)
    fresh: list[Round] = []
    design = None
    if not played and 3 not in sizes:
        design = whist_rounds(len(present))
        if design is not None:
            labels = present[:]
            rnd.shuffle(labels)
            fresh = [
                Round(
                    tables=tuple(tuple(labels[p - 1] for p in t) for t in r.tables),
                    out=tuple(labels[p - 1] for p in r.out),
                )
                for r in (design[k] for k in design_rounds(design, min(rounds, len(design))))
            ]
    if 0 < len(fresh) < len(design or ()):
        # A part of a design: no partner repeats, but its opponents can be spread better.
        return list(played) + _anneal(present, sizes, out, rounds, played, rnd, steps, fresh)
    history = list(played) + fresh
    more = rounds - len(fresh)
    if more == 0:
        return history
    return history + _anneal(present, sizes, out, more, history, rnd, steps)


#: The annealing starts over this many times (from the best seating so far, warm again),
#: sharing its steps, unless it reaches the floor first.
RESTARTS = 4
#: Share of moves that start from a player who meets someone once too often.
FOCUS = 0.5


def _anneal(
    present: list[int],
    sizes: list[int],
    out: int,
    rounds: int,
    history: Sequence[Round],
    rnd: random.Random,
    steps: int | None,
    start: Sequence[Round] = (),
) -> list[Round]:
    counts = _Counts()
    sat_out: Counter[int] = Counter()
    at_trio: Counter[int] = Counter()
    for played in history:
        sat_out.update(p for p in played.out if p in present)
        for table in played.tables:
            counts.apply(table, 1)
            if len(table) == 3:
                at_trio.update(table)
    fours = sum(1 for s in sizes if s == 4)
    trios = len(sizes) - fours
    # Each round's seats: the players at tables of four, then those at tables of three, then
    # those sitting out. Turns to sit out or play three-handed are dealt before the search;
    # a move keeps every player's count of each: two players trade places of different kinds
    # only in two rounds at once, the second undoing the first's trade.
    seatings: list[list[int]] = []
    for begun in start:
        seatings.append(begun.seated() + sorted(begun.out))
    for _ in range(rounds - len(start)):
        resting = _rotation(present, sat_out, out, rnd)
        playing = [p for p in present if p not in resting]
        three = _rotation(playing, at_trio, 3 * trios, rnd)
        four = [p for p in playing if p not in three]
        rnd.shuffle(four)
        rnd.shuffle(three)
        seatings.append(four + three + sorted(resting))
    starts = [0]
    for s in sizes:
        starts.append(starts[-1] + s)
    boundary, seated = 4 * fours, starts[-1]
    total = len(present)
    table_of = [t for t, s in enumerate(sizes) for _ in range(s)] + [-1] * (total - seated)
    kind = [0] * boundary + [1] * (seated - boundary) + [2] * (total - seated)
    for seats in seatings:
        for t in range(len(sizes)):
            counts.apply(seats[starts[t] : starts[t + 1]], 1)
    where = [{p: i for i, p in enumerate(seats)} for seats in seatings]

    def turn(swaps: list[tuple[int, int, int]]) -> int:
        """Take away the touched tables, swap, put them back: the cost's change."""
        delta = 0
        for q, i, j in swaps:
            seats = seatings[q]
            touched = {table_of[i], table_of[j]} - {-1}
            for t in touched:
                delta += counts.apply(seats[starts[t] : starts[t + 1]], -1)
            a, b = seats[i], seats[j]
            seats[i], seats[j] = b, a
            where[q][a], where[q][b] = j, i
            for t in touched:
                delta += counts.apply(seats[starts[t] : starts[t + 1]], 1)
        return delta

    def crowded(seats: list[int], i: int) -> bool:
        """Whether the player in seat ``i`` meets a table-mate once too often."""
        t = table_of[i]
        player = seats[i]
        for k in range(starts[t], starts[t + 1]):
            if k == i:
                continue
            key = _pair(player, seats[k])
            if t < fours and (k - i) % 2 == 0:
                if counts.partners[key] > 1:
                    return True
            elif counts.opponents[key] > 1:
                return True
        return False

    if steps is None:
        steps = min(60_000, 800 * rounds * max(1, total))
    cost, floor = counts.cost(present), counts.floor(present)

    def key() -> tuple[int, int]:
        return counts.partner_cost, cost - PARTNER_WEIGHT * counts.partner_cost

    best_key, best = key(), [seats[:] for seats in seatings]
    unsaved = False
    movable = seated > 4 or trios or out
    # A large evening spends its steps on one long run rather than several short ones.
    restarts = min(RESTARTS, max(1, steps // (100 * rounds * total))) if movable and rounds else 0
    for attempt in range(restarts):
        if cost <= floor:
            break
        if attempt:
            # Warm again from the best seating found so far.
            seatings[:] = [seats[:] for seats in best]
            where[:] = [{p: i for i, p in enumerate(seats)} for seats in seatings]
            counts = _Counts()
            for played in history:
                for table in played.tables:
                    counts.apply(table, 1)
            for seats in seatings:
                for t in range(len(sizes)):
                    counts.apply(seats[starts[t] : starts[t + 1]], 1)
            cost = counts.cost(present)
        run = steps // restarts
        temperature = 1.5
        cooling = (0.05 / temperature) ** (1 / max(1, run))
        for _ in range(run):
            temperature *= cooling
            r = rnd.randrange(rounds)
            seats = seatings[r]
            if rnd.random() < FOCUS:
                for _ in range(4):
                    i = rnd.randrange(seated)
                    if crowded(seats, i):
                        break
            else:
                i = rnd.randrange(total)
            j = rnd.randrange(total)
            ki, kj = kind[i], kind[j]
            if i == j or (ki == kj and (ki == 2 or (ki == 1 and table_of[i] == table_of[j]))):
                continue
            swaps = [(r, i, j)]
            if ki != kj:
                a, b = seats[i], seats[j]
                others = [
                    q
                    for q in range(rounds)
                    if kind[where[q][a]] == kj and kind[where[q][b]] == ki and q != r
                ]
                if not others:
                    continue
                q = rnd.choice(others)
                swaps.append((q, where[q][a], where[q][b]))
            delta = turn(swaps)
            if delta <= 0 or rnd.random() < math.exp(-delta / temperature):
                cost += delta
                if key() < best_key:
                    best_key, unsaved = key(), True
                elif unsaved:
                    # Leaving the best seating so far: copy it now, not at every step down.
                    turn(swaps[::-1])
                    best, unsaved = [s[:] for s in seatings], False
                    turn(swaps)
                if cost <= floor:
                    break
            else:
                turn(swaps[::-1])
        if unsaved:
            best, unsaved = [s[:] for s in seatings], False
    return [
        Round(
            tables=tuple(tuple(seats[starts[t] : starts[t + 1]]) for t in range(len(sizes))),
            out=tuple(sorted(seats[seated:])),
        )
        for seats in best
    ]
