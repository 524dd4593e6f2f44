"""The 36-card deck and which card-point sums it makes possible (RULES.md, "The deck").

Everything here is computed from the real card multiset at import, never from a hand-made list
of "allowed" numbers: a side's points are possible only if some set of cards is worth them.
"""

from __future__ import annotations

from collections import Counter

#: Card points by rank, in rank order within a suit: J = 2, Q = 3, K = 4, 10 = 10, A = 11.
CARD_POINTS: dict[str, int] = {
    "6": 0,
    "7": 0,
    "8": 0,
    "9": 0,
    "J": 2,
    "Q": 3,
    "K": 4,
    "10": 10,
    "A": 11,
}
SUITS = 4

#: The point value of every one of the 36 cards.
DECK: tuple[int, ...] = tuple(value for value in CARD_POINTS.values() for _ in range(SUITS))

#: What one deal hands out in total: every card ends in some trick pile.
DEAL_TOTAL: int = sum(DECK)

#: Ranks a card counter can count (the ones worth points), highest first.
COUNTED_RANKS: tuple[str, ...] = ("A", "10", "K", "Q", "J")


def _reachable_pairs() -> list[int]:
    """Bitmask per points of side A: bit b is set when A and B can hold a and b points at once.

    The third pile (side C) holds the rest, so this answers "can the deck be split into
    three piles worth a, b and 120 - a - b?"; a two-way split is the same question with b = 0
    allowed for any a, and is read off the same table.
    """
    masks = [0] * (DEAL_TOTAL + 1)
    masks[0] = 1  # nothing dealt yet: A = 0, B = 0
    for value in (v for v in DECK if v):
        new = masks[:]
        for a in range(DEAL_TOTAL + 1):
            if masks[a]:
                new[a] |= masks[a] << value  # the card goes to B
                if a + value <= DEAL_TOTAL:
                    new[a + value] |= masks[a]  # the card goes to A
        masks = new  # otherwise the card goes to C: the mask stays as it was
    return masks


_PAIRS = _reachable_pairs()

#: Every total one side's trick pile can be worth (0..120 without 1 and 119).
POSSIBLE_SIDE_POINTS: frozenset[int] = frozenset(a for a in range(DEAL_TOTAL + 1) if _PAIRS[a] & 1)


def is_possible_split(points: tuple[int, ...]) -> bool:
    """Whether the 36 cards can be split into piles worth exactly these points (2 or 3 piles)."""
    if sum(points) != DEAL_TOTAL:
        return False
    if len(points) == 2:
        return points[0] in POSSIBLE_SIDE_POINTS
    a, b = points[0], points[1]
    return bool(_PAIRS[a] >> b & 1)


def count_points(counts: dict[str, int] | Counter[str]) -> int:
    """Card points of a pile given how many cards of each rank it holds (the card counter)."""
    return sum(CARD_POINTS[rank] * number for rank, number in counts.items())
