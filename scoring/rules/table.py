"""Who deals and who leads (RULES.md, "At the table").

Seats are numbered clockwise from 0; the player to a seat's left is the next seat clockwise.
The deal passes clockwise each deal, skipping the seats of players who are out (three players).
Who leads the first trick of the first deal is the player to the dealer's left; after that it is
whoever took the last trick of the previous deal, which the scorekeeper does not record, so
``first_leader_seat`` answers only for a deal that is the series' first.
"""

from __future__ import annotations

from collections.abc import Sequence

from .series import SeriesState

#: Which side each seat plays for, by number of seats: partners sit opposite (N+S against E+W).
SEAT_SIDES: dict[int, tuple[int, ...]] = {
    4: (0, 1, 0, 1),
    3: (0, 1, 2),
    2: (0, 1),
}


def _next_in_play(seat: int, seat_sides: Sequence[int], in_play: Sequence[int]) -> int:
    seats = len(seat_sides)
    for step in range(1, seats + 1):
        candidate = (seat + step) % seats
        if seat_sides[candidate] in in_play:
            return candidate
    return seat


def dealer_seat(first_dealer: int, seat_sides: Sequence[int], state: SeriesState) -> int:
    """The seat that deals the next deal of the series in ``state``."""
    dealer = first_dealer
    in_play: Sequence[int] = range(len(state.totals))
    for outcome in state.deals:
        in_play = tuple(side for side in outcome.in_play if side not in outcome.out)
        dealer = _next_in_play(dealer, seat_sides, in_play)
    return dealer


def first_leader_seat(dealer: int, seat_sides: Sequence[int], state: SeriesState) -> int | None:
    """The seat that leads the first trick of the next deal when the rules say without asking:
    the first deal's only (later, whoever took the last trick leads)."""
    if state.deals:
        return None
    return _next_in_play(dealer, seat_sides, state.in_play)
