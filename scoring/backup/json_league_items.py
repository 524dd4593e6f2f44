"""A document's club nights and league changes, for the JSON import: read and checked against
the leagues, players and series it holds (read first by ``json_import``), then written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from django.utils.translation import gettext as _

from scoring import rules
from scoring.backup.json_checks import MAX_KEY, MAX_SMALL, Check, chunks, tv_code
from scoring.events.services import MAX_ROUNDS
from scoring.lib.ids import MAX_ID
from scoring.models import (
    MAX_LEAGUE_NAME,
    MAX_NAME,
    Event,
    EventRound,
    EventTable,
    LeagueEvent,
    Seat,
)


class Document(Protocol):
    """What the club nights and changes read of the document around them (``json_import``'s
    ``Importer``, which reads its leagues, players and series first)."""

    version: int
    secrets: bool
    league_ids: set[int]
    player_leagues: dict[int, int | None]
    series_seats: dict[int, tuple[int | None, int]]

    def user(self, check: Check, key: str) -> str | None: ...

    def token(self, check: Check, key: str) -> str | None: ...


@dataclass
class EventRows:
    """One club night of the document, read and checked: its rows, ready to be written."""

    event: Event
    created_by: str | None
    rounds: list[tuple[EventRound, list[EventTable]]]


@dataclass
class ChangeRows:
    """One league change of the document, read and checked (player references checked later,
    once every change is read: a rename may name a player a later merge removed)."""

    change: LeagueEvent
    actor: str | None
    players: list[int]  # the player ids its data names
    seats: list[tuple[int, int]]  # a merge's moved seats, (series, position)
    source_user: str | None  # a merge's merged player's account


class LeagueItems:
    """The club nights and league changes of one document (``Importer.items``)."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.changes: list[ChangeRows] = []
        self.change_ids: set[int] = set()
        self.merges: dict[int, int] = {}  # the league of each merge change
        self.merged_away: dict[int, int] = {}  # the league of each player a merge removed
        self.events: list[EventRows] = []
        self.event_ids: set[int] = set()
        self.table_series: set[int] = set()
        #: Before version 4: the series of tables a round's end scored, and when it ended.
        self.closed_by_rounds: dict[int, datetime] = {}

    def read(self, *, changes: list, events: list) -> None:
        for raw in changes:
            self.read_change(raw)
        for change in self.changes:
            self.check_change(change)
        for raw in events:
            self.read_event(raw)

    def player_ref(self, check: Check, value: Any, league: int, key: str) -> int:
        """A player the document names in a league's club night or change: one of the league's
        players in the file, or one a merge in the league's changes removed."""
        known = isinstance(value, int) and not isinstance(value, bool)
        if not known or league not in (
            self.document.player_leagues.get(value),
            self.merged_away.get(value),
        ):
            raise check.refuse(
                _("%(key)s names a player who is not in its league in the file.") % {"key": key}
            )
        return value

    def _league_item(
        self, raw: Any, what: str, named: str, seen: set[int]
    ) -> tuple[Check, int, int]:
        """A league's club night or change: its check, id (once) and league (in the file)."""
        check = Check(raw, what)
        pk = check.integer("id", low=1, high=MAX_ID)
        check = Check(raw, named % {"id": pk})
        if pk in seen:
            raise check.refuse(_("the id appears twice."))
        seen.add(pk)
        league = check.integer("league", low=1, high=MAX_ID)
        if league not in self.document.league_ids:
            raise check.refuse(_("its league is not in the file."))
        return check, pk, league

    def read_change(self, raw: Any) -> None:
        check, pk, league = self._league_item(
            raw, _("a league change"), _("league change %(id)s"), self.change_ids
        )
        action = raw.get("action")
        if action not in LeagueEvent.Action.values:
            raise check.refuse(_("action is not a change this site knows."))
        undone_at = check.when("undone_at", null=True)
        if undone_at is not None and action != LeagueEvent.Action.MERGED:
            raise check.refuse(_("only a merge can be undone."))
        rows = ChangeRows(
            change=LeagueEvent(
                pk=pk,
                league_id=league,
                action=action,
                undone_at=undone_at,
                created_at=check.when("created_at"),
            ),
            actor=self.document.user(check, "actor"),
            players=[],
            seats=[],
            source_user=None,
        )
        rows.change.data = self.read_change_data(Check(raw.get("data"), check.where), rows)
        self.changes.append(rows)

    def read_change_data(self, check: Check, rows: ChangeRows) -> dict[str, Any]:
        """A change's data as its action's undo and its page read it, nothing else kept."""
        action, league = rows.change.action, rows.change.league_id
        if action == LeagueEvent.Action.RENAMED:
            player = check.integer("player", low=1, high=MAX_ID)
            rows.players.append(player)
            return {
                "player": player,
                "before": check.text("before", longest=MAX_NAME),
                "after": check.text("after", longest=MAX_NAME),
            }
        if action in (LeagueEvent.Action.MERGED, LeagueEvent.Action.UNMERGED):
            source = Check(check.data.get("source"), check.where)
            target = Check(check.data.get("target"), check.where)
            ids = source.integer("id", low=1, high=MAX_ID), target.integer("id", low=1, high=MAX_ID)
            names = source.text("name", longest=MAX_NAME), target.text("name", longest=MAX_NAME)
            rows.players += ids
            if action == LeagueEvent.Action.UNMERGED:
                return {
                    "merge": check.integer("merge", low=1, high=MAX_ID),
                    "source": {"id": ids[0], "name": names[0]},
                    "target": {"id": ids[1], "name": names[1]},
                }
            # Merged, brought back by an undo, merged again: one player of the league each time.
            known = self.document.player_leagues.get(ids[0], self.merged_away.get(ids[0], league))
            if league != known:
                raise check.refuse(_("the merged player has the id of another league's player."))
            self.merged_away[ids[0]] = league
            self.merges[rows.change.pk] = league
            rows.source_user = self.document.user(source, "user")
            source.when("created_at")  # kept as written: the undo stores it as it is
            for item in check.items("seats"):
                if not (
                    isinstance(item, list) and len(item) == 2 and all(type(v) is int for v in item)
                ):
                    raise check.refuse(_("a moved seat is not a series and a position."))
                series, position = item
                seat_league, seats = self.document.series_seats.get(series, (None, 0))
                if seat_league != league or not 0 <= position < seats:
                    raise check.refuse(
                        _("a moved seat is not a seat of its league's series in the file.")
                    )
                rows.seats.append((series, position))
            series_ids = check.items("series")
            if not all(type(pk) is int and 1 <= pk <= MAX_ID for pk in series_ids):
                raise check.refuse(_("series must be a list of series ids."))
            nights = check.data.get("nights", [])
            if not isinstance(nights, list) or not all(
                type(pk) is int and 1 <= pk <= MAX_ID for pk in nights
            ):
                raise check.refuse(_("nights must be a list of club night ids."))
            merged: dict[str, Any] = {
                "source": {
                    "id": ids[0],
                    "name": names[0],
                    "name_key": source.text("name_key", longest=MAX_KEY),
                    "user": None,  # the account's id, once the accounts exist
                    "created_at": source.data["created_at"],
                },
                "target": {
                    "id": ids[1],
                    "name": names[1],
                    "user_moved": target.boolean("user_moved"),
                },
                "seats": [],  # the seats' ids, once the seats exist
                "series": series_ids,
            }
            if "nights" in check.data:  # the club nights it rewrote (older merges have none)
                merged["nights"] = nights
            return merged
        if check.data:  # archived, restored: nothing to keep
            raise check.refuse(_("the change holds data its action does not have."))
        return {}

    def check_change(self, rows: ChangeRows) -> None:
        """What a change names, once every change is read: players, the merge an undo takes back."""
        change = rows.change
        check = Check(change.data, _("league change %(id)s") % {"id": change.pk})
        for player in rows.players:
            self.player_ref(check, player, change.league_id, "data")
        unmerged = change.action == LeagueEvent.Action.UNMERGED
        if unmerged and self.merges.get(change.data["merge"]) != change.league_id:
            raise check.refuse(_("the merge it takes back is not in its league in the file."))

    def read_event(self, raw: Any) -> None:
        check, pk, league = self._league_item(
            raw, _("a club night"), _("club night %(id)s"), self.event_ids
        )
        length = raw.get("length")
        if length not in Event.Length.values:
            raise check.refuse(_("length is not a round length this site knows."))
        length_value = check.integer("length_value", low=1, high=MAX_SMALL, null=True)
        if (length_value is None) != (length == Event.Length.GOAT):
            raise check.refuse(_("length_value must be given for deals or minutes, and only then."))
        tie_break = raw.get("tie_break")
        if tie_break not in Event.TieBreak.values:
            raise check.refuse(_("tie_break is not a tie-break this site knows."))

        def players(value: Any, key: str) -> list[int]:
            if not isinstance(value, list):
                raise check.refuse(_("%(key)s must be a list.") % {"key": key})
            found = [self.player_ref(check, item, league, key) for item in value]
            if len(set(found)) != len(found):
                raise check.refuse(_("%(key)s names a player twice.") % {"key": key})
            return found

        rounds = check.integer("rounds", low=1, high=MAX_ROUNDS)
        present = players(raw.get("present"), "present")
        plan = []
        if len(check.items("plan")) > MAX_ROUNDS:
            raise check.refuse(_("its plan has more rounds than a club night can."))
        for item in check.items("plan"):
            inner = Check(item, check.where)
            tables = inner.items("tables")
            if not all(isinstance(t, list) and 3 <= len(t) <= 4 for t in tables):
                raise check.refuse(_("a planned table does not seat three or four players."))
            players([p for t in tables for p in t] + inner.items("out"), "plan")
            plan.append({"tables": tables, "out": inner.data["out"]})
        event = Event(
            pk=pk,
            league_id=league,
            name=check.text("name", longest=MAX_LEAGUE_NAME),
            rules=check.ruleset("rules").to_dict(),
            rounds=rounds,
            length=length,
            length_value=length_value,
            three_player_tables=check.boolean("three_player_tables"),
            tie_break=tie_break,
            seed=check.integer("seed"),
            present=present,
            plan=plan,
            created_at=check.when("created_at"),
            version=check.integer("version"),
            # Since the seating's number and the big screen's code (older files have neither).
            seating=check.integer("seating", low=1) if check.has("seating") else 1,
        )
        if self.document.secrets:
            event.share_token = self.document.token(check, "share_token")
            event.tv_code = tv_code(check) if event.share_token else None
        played = []
        listed = check.items("played_rounds")
        if len(listed) > min(rounds, len(plan)):
            raise check.refuse(_("it has played more rounds than its plan."))
        for number, item in enumerate(listed, start=1):
            inner = Check(item, _("club night %(id)s, round %(n)s") % {"id": pk, "n": number})
            if inner.integer("number", low=1) != number:
                raise inner.refuse(_("rounds must be numbered 1, 2, 3, … in order."))
            finished_at = inner.when("finished_at", null=True)
            if finished_at is None and number < len(listed):
                raise inner.refuse(_("only the last round can be in play."))
            row = EventRound(
                event_id=pk,
                number=number,
                out=players(item.get("out"), "out"),
                started_at=inner.when("started_at"),
                finished_at=finished_at,
            )
            played.append((row, self.read_tables(inner, item, league, finished_at)))
        created_by = self.document.user(check, "created_by")
        self.events.append(EventRows(event=event, created_by=created_by, rounds=played))

    def read_tables(
        self, check: Check, raw: dict, league: int, finished_at: datetime | None
    ) -> list[EventTable]:
        """A round's tables, each a series of the league in the file, one table per series.
        Before version 4 a table the round's end scored said so ("adjudicated"): its series was
        closed then (``closed_by_rounds``)."""
        tables = []
        for number, item in enumerate(check.items("tables"), start=1):
            inner = Check(item, check.where)
            if inner.integer("number", low=1) != number:
                raise check.refuse(_("tables must be numbered 1, 2, 3, … in order."))
            series = inner.integer("series", low=1, high=MAX_ID)
            if self.document.series_seats.get(series, (None, 0))[0] != league:
                raise check.refuse(_("a table's series is not a series of its league in the file."))
            if series in self.table_series:
                raise check.refuse(_("a series is the table of two rounds."))
            self.table_series.add(series)
            if self.document.version < 4:
                adjudicated = inner.boolean("adjudicated")
                winner = inner.integer("adjudicated_winner", high=rules.MAX_SIDES - 1, null=True)
                if winner is not None and not adjudicated:
                    raise check.refuse(
                        _("a table that was not adjudicated has an adjudicated winner.")
                    )
                if adjudicated and finished_at is not None:
                    self.closed_by_rounds[series] = finished_at
            tables.append(EventTable(number=number, series_id=series))
        return tables

    def write(self, user_id: Callable[[str | None], int | None]) -> None:
        """Written after the series (tables name them) and their seats (a merge names them)."""
        self.write_events(user_id)
        self.write_changes(user_id)

    def write_events(self, user_id: Callable[[str | None], int | None]) -> None:
        for item in self.events:
            item.event.created_by_id = user_id(item.created_by)
        Event.objects.bulk_create(item.event for item in self.events)
        EventRound.objects.bulk_create(row for item in self.events for row, _t in item.rounds)
        # The rounds' new ids (not every database gives them back from a bulk insert).
        rounds: dict[tuple[int, int], int] = {}
        for chunk in chunks(self.event_ids):
            for event, number, pk in EventRound.objects.filter(event_id__in=chunk).values_list(
                "event_id", "number", "pk"
            ):
                rounds[event, number] = pk
        tables = []
        for item in self.events:
            for row, round_tables in item.rounds:
                for table in round_tables:
                    table.round_id = rounds[item.event.pk, row.number]
                    tables.append(table)
        EventTable.objects.bulk_create(tables)

    def club_tables(self) -> dict[int, tuple[int, int]]:
        """Each club night's game of the document: its series id → its evening and table."""
        return {
            table.series_id: (item.event.pk, table.number)
            for item in self.events
            for _row, round_tables in item.rounds
            for table in round_tables
        }

    def write_changes(self, user_id: Callable[[str | None], int | None]) -> None:
        """The league changes, a merge's moved seats named by the ids the seats have now."""
        wanted = {series for item in self.changes for series, _position in item.seats}
        seats: dict[tuple[int, int], int] = {}
        for chunk in chunks(wanted):
            for series, position, pk in Seat.objects.filter(series_id__in=chunk).values_list(
                "series_id", "position", "pk"
            ):
                seats[series, position] = pk
        for item in self.changes:
            item.change.actor_id = user_id(item.actor)
            if item.change.action == LeagueEvent.Action.MERGED:
                item.change.data["source"]["user"] = user_id(item.source_user)
                item.change.data["seats"] = sorted(seats[seat] for seat in set(item.seats))
        LeagueEvent.objects.bulk_create(item.change for item in self.changes)
