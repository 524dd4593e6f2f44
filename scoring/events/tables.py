"""A club night's tables through the evening: the game a table plays in the round, where its
players sit next, and the number its phone polls for news.

A table's phone keeps one link all evening (``EventTableLink``); each round it shows that
round's game at its number (``EventTable``). Seats are numbered clockwise from North (seat 0):
partners sit opposite (``events.seating``).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.events.services import standing_winner
from scoring.models import Event, EventRound, EventTable, EventTableLink, Player, Series
from scoring.modes import SHAPES, Mode

#: A table's version for its phone's poll: the evening's (a round started or finished) before
#: its game's (a deal): one number that only grows, whatever the round's game.
ROUND_STEP = 1_000_000


@dataclass(frozen=True)
class Place:
    """Where a player sits in a round: a table and a seat (0 = North, clockwise), or out."""

    round: int
    table: int | None = None
    seat: int | None = None

    @property
    def seat_name(self) -> str:
        """North, East, South or West."""
        return "" if self.seat is None else str(SHAPES[Mode.TEAMS].seat_labels[self.seat])


@dataclass(frozen=True)
class Evening:
    """A club-night game as its board shows it: the evening, the round, the table, and where
    the table's players go in the next round (empty after the last round)."""

    event: Event
    round: EventRound
    table: EventTable
    link: EventTableLink | None  # the table's link, when this phone holds it
    next_places: list[tuple[str, Place]]

    @property
    def next_round(self) -> int | None:
        number = self.round.number + 1
        return number if number <= min(self.event.rounds, len(self.event.plan)) else None

    @property
    def version(self) -> int:
        """What the table's phone polls with (``table_version``)."""
        return table_version(self.event, self.table.series)

    @property
    def standing_winner(self) -> int | None:
        """The side the round's end makes the winner of a game not over: the fewest defeat
        points (None: level)."""
        return standing_winner(self.table.series.totals)


def table_version(event: Event, series: Series | None) -> int:
    """The number a table's phone polls with (``live_version``): the evening's version, then
    its game's."""
    return event.version * ROUND_STEP + (series.version if series is not None else 0)


def place_in(event: Event, round_number: int, player_id: int) -> Place:
    """Where ``player_id`` sits in round ``round_number`` of the plan (out if not seated)."""
    planned = event.plan[round_number - 1]
    for number, seats in enumerate(planned["tables"], start=1):
        if player_id in seats:
            return Place(round_number, number, seats.index(player_id))
    return Place(round_number)


def evening_of(series: Series, held: dict[str, tuple[int, int]]) -> Evening | None:
    """The club night a series is a table of (one query; none for a quick game), with the
    table's link when this phone holds it (``held``: ``access.held_tables``)."""
    if series.league_id is None:
        return None
    table = EventTable.objects.filter(series=series).select_related("round__event__league").first()
    if table is None:
        return None
    table.series = series  # with its seats, as the board loaded them
    event = table.round.event
    link = None
    tokens = [token for token, at in held.items() if at == (event.pk, table.number)]
    if tokens:
        link = EventTableLink.objects.filter(token__in=tokens).first()
    return Evening(event, table.round, table, link, _next_places(event, table))


def _next_places(event: Event, table: EventTable) -> list[tuple[str, Place]]:
    """Where each player of this table sits in the next round, in seat order."""
    following = table.round.number + 1
    if following > min(event.rounds, len(event.plan)):
        return []
    seats = table.series.seats.all()  # prefetched with the board
    ordered = sorted(seats, key=lambda seat: seat.position)
    return [(seat.player.name, place_in(event, following, seat.player_id)) for seat in ordered]


def link_for(token: str) -> EventTableLink | None:
    """A table's link for the evening, with its club night, league and the round's game."""
    return (
        EventTableLink.objects.select_related("event__league", "series").filter(token=token).first()
    )


def live_version(token: str) -> int | None:
    """What a table's phone would be shown now, as the number it polls with (one query); None
    for a link that names nothing."""
    found = EventTableLink.objects.filter(token=token).order_by()  # one row: no ordering
    versions = found.values_list("event__version", "series__version")[:1]
    if not versions:
        return None
    event_version, series_version = versions[0]
    return event_version * ROUND_STEP + (series_version or 0)


def names_of(event: Event) -> dict[int, str]:
    """Every planned player's name, by id."""
    ids = {p for planned in event.plan for seats in planned["tables"] for p in seats}
    ids |= {p for planned in event.plan for p in planned["out"]}
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
