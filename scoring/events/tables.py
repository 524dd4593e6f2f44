"""A club night's tables through the evening: the game a table plays in the round, where its
players sit next, and the number its phone polls for news.

A table's phone keeps one link all evening (``EventTableLink``); each round it shows that
round's game at its number (``EventTable``). Seats are numbered clockwise from North (seat 0):
partners sit opposite (``events.seating``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Protocol

from django.db import connection

from scoring.events.services import standing_winner
from scoring.models import Event, EventRound, EventTable, EventTableLink, Player, Series
from scoring.modes import SHAPES, Mode
from scoring.rules.table import SEAT_SIDES

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


@dataclass
class Evening:
    """A club-night game as its board shows it: the evening, the round, the table, and where
    the table's players go in the next round (empty after the last round)."""

    event: Event
    round: EventRound
    table: EventTable
    link: EventTableLink | None  # the table's link, when this phone holds it

    @cached_property
    def next_places(self) -> list[tuple[str, Place]]:
        """Where each player of this table sits in the next round, in seat order (asked for
        once the round is over at the table)."""
        following = self.round.number + 1
        if following > rounds_of(self.event):
            return []
        seats = sorted(self.table.series.seats.all(), key=lambda seat: seat.position)
        event = self.event
        return [(seat.player.name, place_in(event, following, seat.player_id)) for seat in seats]

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


@dataclass(frozen=True)
class Company:
    """Where a player sits in a round and with whom: partners (same side: opposite at a table
    of four) and opponents, as player ids in seat order."""

    place: Place
    partners: list[int]
    opponents: list[int]


def company_in(event: Event, round_number: int, player_id: int) -> Company:
    """``place_in`` with the player's partners and opponents at that table."""
    place = place_in(event, round_number, player_id)
    if place.table is None or place.seat is None:
        return Company(place, [], [])
    seats = event.plan[round_number - 1]["tables"][place.table - 1]
    sides = SEAT_SIDES[len(seats)]
    mine = sides[place.seat]
    others = [(sides[at], p) for at, p in enumerate(seats) if at != place.seat]
    return Company(
        place,
        partners=[p for side, p in others if side == mine],
        opponents=[p for side, p in others if side != mine],
    )


@dataclass(frozen=True)
class Seating:
    """A player's round in words: the table and seat, partners and opponents by name."""

    round: int
    table: int | None  # None: sits out
    seat: str
    partners: list[str]
    opponents: list[str]


def seatings(event: Event, player_id: int, names: dict[int, str], *, first: int) -> list[Seating]:
    """Where ``player_id`` sits in round ``first`` and the one after, as far as the evening
    goes (``names``: ``names_of``)."""
    found = []
    for number in range(max(first, 1), min(first + 1, rounds_of(event)) + 1):
        company = company_in(event, number, player_id)
        found.append(
            Seating(
                round=number,
                table=company.place.table,
                seat=company.place.seat_name,
                partners=[names.get(p, "?") for p in company.partners],
                opponents=[names.get(p, "?") for p in company.opponents],
            )
        )
    return found


def table_plan(event: Event, number: int) -> list[list[int] | None]:
    """Who sits at table ``number`` in each round of the plan, seat by seat from North (None:
    no game at it that round)."""
    rounds = event.plan[: event.rounds]
    return [
        list(planned["tables"][number - 1]) if number <= len(planned["tables"]) else None
        for planned in rounds
    ]


def rounds_of(event: Event) -> int:
    """How many rounds the evening plays: its rounds, as far as the plan seats them."""
    return min(event.rounds, len(event.plan))


class TableState(enum.StrEnum):
    """How a table of a round stands, as the organiser's screen and the big screen say it."""

    WAITING = "waiting"  # no deal yet
    PLAYING = "playing"
    LAST_DEAL = "last deal"  # the round's time is up: the deal in play is the table's last
    CLOSED = "closed"  # at its limit (its deals, or its time and last deal): waits for the round
    OVER = "over"  # a side is the goat
    SCORED = "scored"  # the round finished first: won on the standing defeat points

    @property
    def playing(self) -> bool:
        """Whether finishing the round now cuts the table short."""
        return self in (TableState.WAITING, TableState.PLAYING, TableState.LAST_DEAL)


class _Stands(Protocol):
    """What a table's state is read from: its series' stored fields (or a row of them)."""

    @property
    def finished(self) -> bool: ...
    @property
    def deal_count(self) -> int: ...
    @property
    def closes_at(self) -> datetime | None: ...
    @property
    def closed_at(self) -> datetime | None: ...


def state_of(series: _Stands, *, round_over: bool, now: datetime) -> TableState:
    """The state of a round's table from its series' stored fields."""
    if series.finished:
        return TableState.OVER
    if round_over:
        return TableState.SCORED
    if series.closed_at is not None:
        return TableState.CLOSED
    if series.closes_at is not None and now >= series.closes_at:
        return TableState.LAST_DEAL
    return TableState.PLAYING if series.deal_count else TableState.WAITING


def evening_of(series: Series, link: EventTableLink | None) -> Evening | None:
    """The club night a series is a table of (one query; none for a quick game), with the
    table's link when this phone opened it (``SeriesAccess.table_link``, whose club night is
    loaded already)."""
    if series.league_id is None:
        return None
    tables = EventTable.objects.filter(series=series)
    table = (
        tables.select_related("round").first()
        if link is not None
        else tables.select_related("round__event__league").first()
    )
    if table is None:
        return None
    if link is not None:
        table.round.event = link.event
    table.series = series  # with its seats, as the board loads them
    return Evening(table.round.event, table.round, table, link)


def link_for(token: str) -> EventTableLink | None:
    """A table's link for the evening, with its club night, league and the round's game."""
    links = EventTableLink.objects.select_related("event__league", "series__league")
    try:
        return links.get(token=token)  # unique: not .first(), whose ordering costs a poll 1 ms
    except EventTableLink.DoesNotExist:
        return None


def live_version(token: str) -> int | None:
    """What a table's phone would be shown now, as the number it polls with (one query); None
    for a link that names nothing. Every phone asks it every 2 s: written in SQL, it costs a
    worker 30–90 µs of CPU, built by the ORM 410–610 µs (docs/PERFORMANCE.md)."""
    quote = connection.ops.quote_name
    link, event, series = (quote(m._meta.db_table) for m in (EventTableLink, Event, Series))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT e.version, s.version FROM {link} l JOIN {event} e ON e.id = l.event_id "
            f"LEFT JOIN {series} s ON s.id = l.series_id WHERE l.token = %s",
            [token],
        )
        found = cursor.fetchone()
    if found is None:
        return None
    event_version, series_version = found
    return event_version * ROUND_STEP + (series_version or 0)


def names_of(event: Event) -> dict[int, str]:
    """Every planned player's name, by id."""
    ids = {p for planned in event.plan for seats in planned["tables"] for p in seats}
    ids |= {p for planned in event.plan for p in planned["out"]}
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
