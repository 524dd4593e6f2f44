"""A club night's tables through the evening: the game a table plays in the round, where its
players sit next, and the number its phone polls for news.

A table's phone keeps one link all evening (its ``Table``'s); each round it shows that round's
game at its number (``EventTable``). Seats are numbered clockwise from North (seat 0):
partners sit opposite (``events.seating``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import NamedTuple

from scoring.core.modes import SHAPES, Mode
from scoring.models import (
    DealEvent,
    DealProposal,
    Event,
    EventRound,
    EventTable,
    Player,
    Seat,
    Series,
    Table,
)
from scoring.rules.table import SEAT_SIDES
from scoring.table import life
from scoring.table.live import version_of


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
    link: Table | None  # the table, when this phone is at its page (it follows round to round)

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
    def version(self) -> str:
        """What the table's phone polls with (``table.live``)."""
        return version_of(self.event, self.table.series)

    @property
    def provisional(self) -> bool:
        """Whether the table's result is provisional: its game has ended, its round has not (the
        organiser may still correct it)."""
        return life.provisional(self.table.series, round_open=self.round.finished_at is None)

    @cached_property
    def next_round_started(self) -> bool:
        """Whether the round after this one has started (an older round's board then says where
        its players went, not that they wait for it); asked once the round is over here."""
        following = self.round.number + 1
        return EventRound.objects.filter(event=self.event, number=following).exists()


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


def evening_of(series: Series, at_table: Table | None) -> Evening | None:
    """The club night a series is a table of (one query; none for a quick game), with the
    table when this phone is at its page (``SeriesAccess.token``: its club night is loaded
    already)."""
    if series.league_id is None:
        return None
    tables = EventTable.objects.filter(series=series)
    table = (
        tables.select_related("round").first()
        if at_table is not None
        else tables.select_related("round__event__league").first()
    )
    if table is None:
        return None
    if at_table is not None and at_table.event is not None:
        table.round.event = at_table.event
    table.series = series  # with its seats, as the board loads them
    return Evening(table.round.event, table.round, table, at_table)


@dataclass(frozen=True)
class SeatNow:
    """A player's seat in the round in play: the table, the game, and whether it still takes a
    deal (``life.deal_refusal``): a substitute can take only such a seat."""

    player_id: int
    name: str
    table: int
    plays: bool
    next_deal: int


class _GameNow(NamedTuple):
    """What ``life`` reads of a game to say whether it takes a deal."""

    finished: bool
    ending: str
    deal_count: int
    deal_limit: int | None
    closes_at: datetime | None
    closed_at: datetime | None


def seated_now(event: Event) -> dict[int, SeatNow]:
    """Who sits at a table of the round in play, by player id (nobody between rounds): one
    query."""
    rows = (
        Seat.objects.filter(
            series__event_table__round__event=event,
            series__event_table__round__finished_at__isnull=True,
        )
        .order_by("series__event_table__number", "position")
        .values_list(
            "player_id",
            "player__name",
            "series__event_table__number",
            "series__finished",
            "series__ending",
            "series__deal_count",
            "series__deal_limit",
            "series__closes_at",
            "series__closed_at",
        )
    )
    found = {}
    for player_id, name, table, *game in rows:
        now = _GameNow(*game)  # type: ignore[arg-type]  # the columns, in its fields' order
        plays = life.deal_refusal(now) is None
        found[player_id] = SeatNow(player_id, name, table, plays, now.deal_count + 1)
    return found


@dataclass(frozen=True)
class Substitution:
    """A substitute who took a seat: in which round and at which table, from which deal of its
    game on, in whose place (names as they were then, from the game's change log)."""

    round: int
    table: int
    from_deal: int
    left: str
    joined: str


def substitutions_of(event: Event) -> list[Substitution]:
    """The evening's substitutes, as its games' change logs keep them (one query)."""
    rows = (
        DealEvent.objects.filter(
            series__event_table__round__event=event, action=DealEvent.Action.SUBSTITUTE
        )
        .order_by("series__event_table__round__number", "series__event_table__number", "pk")
        .values_list(
            "series__event_table__round__number",
            "series__event_table__number",
            "number",
            "before",
            "after",
        )
    )
    return [
        Substitution(
            round_, table, number, (left or {}).get("name", "?"), (joined or {}).get("name", "?")
        )
        for round_, table, number, left, joined in rows
    ]


def tv_code_token(code: str) -> str | None:
    """The public link of the evening whose big-screen code this is (None: no evening has it;
    a code ends with the public link)."""
    return (
        Event.objects.filter(tv_code=code, share_token__isnull=False)
        .values_list("share_token", flat=True)
        .first()
    )


def names_of(event: Event) -> dict[int, str]:
    """Every planned or present player's name, by id (a late arrival in the last round is
    present, in no round's plan)."""
    ids = {p for planned in event.plan for seats in planned["tables"] for p in seats}
    ids |= {p for planned in event.plan for p in planned["out"]}
    ids |= set(event.present)
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))


@dataclass(frozen=True)
class Proposed:
    """A deal a table's phone proposed after its game closed, as the organiser's screen says
    it: the round and table, the deal number it was typed as, its card points per side."""

    pk: int
    round: int
    table: int
    number: int
    points: str  # "Anna & Vera 70, Boris & Gleb 50"


def proposals_of(event: Event) -> list[Proposed]:
    """The deals the evening's tables proposed that wait for the organiser (two queries)."""
    pending = (
        DealProposal.objects.filter(
            series__event_table__round__event=event, state=DealProposal.State.PENDING
        )
        .order_by("series__event_table__round__number", "series__event_table__number", "pk")
        .values_list(
            "pk",
            "series_id",
            "series__event_table__round__number",
            "series__event_table__number",
            "number",
            "points",
        )
    )
    rows = list(pending)
    sides: dict[int, dict[int, list[str]]] = {}
    seats = Seat.objects.filter(series_id__in={row[1] for row in rows}).order_by("position")
    for series_id, side, name in seats.values_list("series_id", "side", "player__name"):
        sides.setdefault(series_id, {}).setdefault(side, []).append(name)
    found = []
    for pk, series_id, number, table, deal, points in rows:
        names = sides.get(series_id, {})
        text = ", ".join(
            f"{' & '.join(names.get(side, []))} {value}"
            for side, value in enumerate(points)
            if value is not None
        )
        found.append(Proposed(pk, number, table, deal, text))
    return found
