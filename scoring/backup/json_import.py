"""The JSON import: restore a document the JSON export wrote (``json_export``).

``history_import`` restores a document into a database that does not hold any of its leagues,
players, series, club nights or league changes yet (a fresh database, or after removing them):
it keeps their ids, so links to them stay valid (and an undo of a merge finds its change), and
it refuses, changing nothing, when an id is already taken. A club night's rounds and tables, and
the seats a merge moved, get new ids, tied to their event and series as in the document.
Every series is replayed by the engine on the way in; a deal the rules refuse, or stored totals
that disagree with the deals, refuse the file. A seat's deal figures (deals played, won, naked,
...) are not in the document: the import stores what the replay says, as ``series_refresh``
does. Usernames that do not exist become accounts without a usable password (nobody can log in
as them until an administrator sets one), so the audit trail still says who recorded what.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, overload

from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from scoring import rules
from scoring.backup.json_export import COMPLETE, FORMAT, SEAT_DERIVED, VERSION
from scoring.events.services import MAX_ROUNDS
from scoring.middleware import MAX_ID
from scoring.models import (
    MAX_DEALS,
    MAX_LEAGUE_NAME,
    MAX_NAME,
    Deal,
    DealEvent,
    Event,
    EventRound,
    EventTable,
    League,
    LeagueEvent,
    Membership,
    Player,
    Role,
    Seat,
    Series,
    new_token,
)
from scoring.modes import SHAPES
from scoring.names import league_keys
from scoring.running_totals import totals_fold
from scoring.table.derived import Derived, derived_values, kept_timestamps
from scoring.table.forms import engine_message
from scoring.table.replays import engine_deal, row_values

MAX_INTEGER = 2_147_483_647  # the largest value every database stores in an integer column
MAX_SMALL = 32_767  # ... and in a small integer column
MAX_KEY = 1_000  # a name key is a name folded: longer than the name at most a few times over


#: The document versions this site restores: 1 (no closing mark), 2 (``COMPLETE``) and 3 (club
#: nights, league changes, ``archived_at``; absent from older documents, so none are restored).
READS = (1, 2, VERSION)


class ImportRefused(Exception):
    """The document cannot be imported; the message says why, and nothing was changed."""


@dataclass(frozen=True)
class ImportSummary:
    leagues: int
    players: int
    series: int
    deals: int
    events: int
    new_users: int
    club_nights: int = 0
    changes: int = 0


class _Check:
    """Reads one object of the document, refusing it with a message naming where it is."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ImportRefused(_("%(where)s: expected an object.") % {"where": where})
        self.data = data
        self.where = where

    def refuse(self, message: str) -> ImportRefused:
        return ImportRefused(f"{self.where}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    @overload
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: Literal[False] = False
    ) -> int: ...
    @overload
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: Literal[True]
    ) -> int | None: ...
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: bool = False
    ) -> int | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.refuse(
                _("%(key)s must be a whole number from %(low)s.") % {"key": key, "low": low}
            )
        if value > high:
            raise self.refuse(_("%(key)s must be at most %(high)s.") % {"key": key, "high": high})
        return value

    @overload
    def text(
        self, key: str, *, longest: int, null: Literal[False] = False, empty: bool = False
    ) -> str: ...
    @overload
    def text(
        self, key: str, *, longest: int, null: Literal[True], empty: bool = False
    ) -> str | None: ...
    def text(
        self, key: str, *, longest: int, null: bool = False, empty: bool = False
    ) -> str | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        if not isinstance(value, str) or len(value) > longest or (not empty and not value.strip()):
            raise self.refuse(
                _("%(key)s must be a text of at most %(n)s characters.")
                % {"key": key, "n": longest}
            )
        return value

    def boolean(self, key: str) -> bool:
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self.refuse(_("%(key)s must be true or false.") % {"key": key})
        return value

    @overload
    def when(self, key: str, *, null: Literal[False] = False) -> datetime: ...
    @overload
    def when(self, key: str, *, null: Literal[True]) -> datetime | None: ...
    def when(self, key: str, *, null: bool = False) -> datetime | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise self.refuse(
                _("%(key)s must be a date and time with its time zone.") % {"key": key}
            )
        return moment

    def items(self, key: str) -> list:
        value = self.data.get(key)
        if not isinstance(value, list):
            raise self.refuse(_("%(key)s must be a list.") % {"key": key})
        return value

    def ruleset(self, key: str) -> rules.Ruleset:
        try:
            return rules.Ruleset.from_dict(self.data.get(key))  # type: ignore[arg-type]
        except (rules.InvalidRuleset, TypeError) as error:  # not a dict, or not valid rules
            raise self.refuse(
                _("the house rules are not valid (%(error)s).") % {"error": error}
            ) from None


def _entry_key(value: Any, check: _Check) -> uuid.UUID | None:
    """A deal's (or a removed deal's event's) one-time key: a UUID, or nothing."""
    try:
        return None if value is None else uuid.UUID(value)
    except (TypeError, ValueError, AttributeError):
        raise check.refuse(_("entry_key is not a UUID.")) from None


@overload
def _snapshot(value: dict, check: _Check, key: str) -> dict: ...
@overload
def _snapshot(value: Any, check: _Check, key: str) -> dict | None: ...
def _snapshot(value: Any, check: _Check, key: str) -> dict | None:
    """An audit event's deal values: points and tricks per original side, or nothing."""
    if value is None:
        return None
    ok = (
        isinstance(value, dict)
        and set(value) == {"points", "tricks"}
        and isinstance(value["points"], list)
        and isinstance(value["tricks"], list)
        and len(value["points"]) == len(value["tricks"]) == rules.MAX_SIDES
        and all(
            p is None or (type(p) is int and 0 <= p <= rules.DEAL_TOTAL) for p in value["points"]
        )
        and all(t is None or type(t) is bool for t in value["tricks"])
    )
    if not ok:
        raise check.refuse(_("%(key)s is not a deal's points and tricks.") % {"key": key})
    return value


@dataclass
class _SeriesRows:
    """One series of the document, read and checked: its rows, ready to be written."""

    series: Series
    rematch_of: int | None
    created_by: str | None  # usernames, turned into ids when the accounts exist
    seats: list[Seat]
    deals: list[tuple[Deal, str | None]]
    events: list[tuple[DealEvent, str | None]]


@dataclass
class _EventRows:
    """One club night of the document, read and checked: its rows, ready to be written."""

    event: Event
    created_by: str | None
    rounds: list[tuple[EventRound, list[EventTable]]]


@dataclass
class _ChangeRows:
    """One league change of the document, read and checked (player references checked later,
    once every change is read: a rename may name a player a later merge removed)."""

    change: LeagueEvent
    actor: str | None
    players: list[int]  # the player ids its data names
    seats: list[tuple[int, int]]  # a merge's moved seats, (series, position)
    source_user: str | None  # a merge's merged player's account


class _Importer:
    """Reads a whole document first (refusing it at the first problem), then writes it."""

    def __init__(self, document: Any) -> None:
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ImportRefused(_("This is not a Kozel scores export."))
        top = _Check(document, _("the file"))
        version = top.data.get("version")
        if version not in READS or isinstance(version, bool):
            raise ImportRefused(
                _("This export has version %(found)s; this site reads version %(version)s.")
                % {"found": version, "version": ", ".join(map(str, READS))}
            )
        if version >= 2 and top.data.get(COMPLETE) is not True:
            raise ImportRefused(
                _(
                    "This export is incomplete: it lacks the closing mark of a finished export "
                    "(cut short while it was written or downloaded). Export it again; nothing "
                    "was imported."
                )
            )
        self.top = top
        self.version: int = version
        self.secrets = top.boolean("secrets")
        self.usernames: set[str] = set()
        for name in top.items("users"):
            if not isinstance(name, str) or not name or len(name) > 150:
                raise ImportRefused(_("users must be a list of usernames."))
            self.usernames.add(name)
        # What ``read`` fills in, in the document's order.
        self.leagues: list[League] = []
        self.league_ids: set[int] = set()
        self.members: list[tuple[int, str, str, datetime]] = []
        self.players: list[tuple[Player, str | None]] = []
        self.player_leagues: dict[int, int | None] = {}  # the league of each player id
        self.series: list[_SeriesRows] = []
        self.series_ids: set[int] = set()
        self.series_seats: dict[int, tuple[int | None, int]] = {}  # league and number of seats
        self.changes: list[_ChangeRows] = []
        self.change_ids: set[int] = set()
        self.merges: dict[int, int] = {}  # the league of each merge change
        self.merged_away: dict[int, int] = {}  # the league of each player a merge removed
        self.events: list[_EventRows] = []
        self.event_ids: set[int] = set()
        self.table_series: set[int] = set()

    @property
    def player_ids(self) -> set[int]:
        return set(self.player_leagues)

    def user(self, check: _Check, key: str) -> str | None:
        name = check.data.get(key)
        if name is None:
            return None
        if not isinstance(name, str) or name not in self.usernames:
            raise check.refuse(
                _("%(key)s names a user missing from the users list.") % {"key": key}
            )
        return name

    def read(self) -> None:
        for raw in self.top.items("leagues"):
            self.read_league(raw)
        for raw in self.top.items("players"):
            self.read_player(raw)
        # A league may hold names with one key, stored before keys were: they stay apart as the
        # migration that brought the keys kept them.
        keys = league_keys((p.pk, p.league_id, p.name) for p, _user in self.players)
        for player, _user in self.players:
            player.name_key = keys[player.pk]
        listed = self.top.items("series")
        count = self.top.data.get("series_count", len(listed))
        if count != len(listed):
            raise ImportRefused(
                _(
                    "This export is incomplete: it announces %(count)s series but holds "
                    "%(found)s. Export it again; nothing was imported."
                )
                % {"count": count, "found": len(listed)}
            )
        for raw in listed:
            check = _Check(raw, _("a series"))
            pk = check.integer("id", low=1, high=MAX_ID)
            if pk in self.series_ids:
                raise ImportRefused(_("series %(id)s: the id appears twice.") % {"id": pk})
            self.series_ids.add(pk)
            self.series.append(self.read_series(raw, pk))
        # Changes before club nights: a player a merge removed is still named by the nights
        # they played (and by the changes before the merge).
        for raw in self.section("changes"):
            self.read_change(raw)
        for change in self.changes:
            self.check_change(change)
        for raw in self.section("events"):
            self.read_event(raw)

    def section(self, key: str) -> list:
        """A list of the document's that version 3 brought: absent from older documents."""
        if self.version < 3 and key not in self.top.data:
            return []
        return self.top.items(key)

    def player_ref(self, check: _Check, value: Any, league: int, key: str) -> int:
        """A player the document names in a league's club night or change: one of the league's
        players in the file, or one a merge in the league's changes removed."""
        known = isinstance(value, int) and not isinstance(value, bool)
        if not known or league not in (self.player_leagues.get(value), self.merged_away.get(value)):
            raise check.refuse(
                _("%(key)s names a player who is not in its league in the file.") % {"key": key}
            )
        return value

    def read_league(self, raw: Any) -> None:
        check = _Check(raw, _("a league"))
        pk = check.integer("id", low=1, high=MAX_ID)
        check = _Check(raw, _("league %(id)s") % {"id": pk})
        if pk in self.league_ids:
            raise check.refuse(_("the id appears twice."))
        self.league_ids.add(pk)
        league = League(
            pk=pk,
            name=check.text("name", longest=MAX_LEAGUE_NAME),
            rules=check.ruleset("rules").to_dict(),
            created_at=check.when("created_at"),
            archived_at=check.when("archived_at", null=True),
        )
        if self.version >= 3 and not check.has("archived_at"):
            raise check.refuse(_("archived_at is missing."))
        if self.secrets:
            league.invite_token = check.text("invite_token", longest=64, null=True)
            league.share_token = check.text("share_token", longest=64, null=True)
            role = check.data.get("invite_role")
            if role not in Role.values:
                raise check.refuse(_("invite_role is not a role."))
            league.invite_role = role
            for member in check.items("members"):
                inner = _Check(member, check.where)
                if member.get("role") not in Role.values:
                    raise check.refuse(_("a member's role is not a role."))
                username = self.user(inner, "user") or ""
                joined = inner.when("joined_at")
                if not username:
                    raise check.refuse(_("a member has no username."))
                self.members.append((pk, username, member["role"], joined))
        self.leagues.append(league)

    def read_player(self, raw: Any) -> None:
        check = _Check(raw, _("a player"))
        pk = check.integer("id", low=1, high=MAX_ID)
        check = _Check(raw, _("player %(id)s") % {"id": pk})
        if pk in self.player_leagues:
            raise check.refuse(_("the id appears twice."))
        league = check.integer("league", low=1, high=MAX_ID, null=True)
        if league is not None and league not in self.league_ids:
            raise check.refuse(_("its league is not in the file."))
        self.player_leagues[pk] = league
        player = Player(
            pk=pk,
            name=check.text("name", longest=MAX_NAME),
            league_id=league,
            created_at=check.when("created_at"),
        )
        self.players.append((player, self.user(check, "user")))

    def read_series(self, raw: dict, pk: int) -> _SeriesRows:
        check = _Check(raw, _("series %(id)s") % {"id": pk})
        mode = raw.get("mode")
        if not isinstance(mode, str) or mode not in SHAPES:
            raise check.refuse(_("mode is not a game this site knows."))
        shape = SHAPES[mode]
        ruleset = check.ruleset("rules")
        league = check.integer("league", low=1, high=MAX_ID, null=True)
        if league is not None and league not in self.league_ids:
            raise check.refuse(_("its league is not in the file."))
        series = Series(
            pk=pk,
            league_id=league,
            mode=mode,
            rules=ruleset.to_dict(),
            first_dealer=check.integer("first_dealer", high=shape.seats - 1),
            created_at=check.when("created_at"),
            updated_at=check.when("updated_at"),
            finished_at=check.when("finished_at", null=True),
            version=check.integer("version"),
            # A club night's "N deals" table (absent from files before format 3).
            deal_limit=check.integer("deal_limit", low=1, high=MAX_DEALS, null=True),
            score_token=new_token(),
            watch_token=new_token(),
        )
        if self.secrets:
            series.score_token = check.text("score_token", longest=64, null=True)
            series.watch_token = check.text("watch_token", longest=64, null=True)
        rematch_of = check.integer("rematch_of", low=1, high=MAX_ID, null=True)
        created_by = self.user(check, "created_by")

        seats_raw = check.items("seats")
        positions = sorted(_Check(seat, check.where).integer("position") for seat in seats_raw)
        if positions != list(range(shape.seats)):
            raise check.refuse(_("the seats do not match the game."))
        running = rules.Series(shape.sides, rules=ruleset)
        deals = self.read_deals(check, pk, running)
        if series.deal_limit is not None and len(deals) > series.deal_limit:
            raise check.refuse(_("it holds more deals than its round allows."))
        derived = derived_values(running.state)
        if check.data.get("derived") != derived.series:
            raise check.refuse(_("the stored totals, goat or winner do not match its deals."))
        for name, value in derived.series.items():
            setattr(series, name, value)
        self.series_seats[pk] = (league, shape.seats)
        return _SeriesRows(
            series=series,
            rematch_of=rematch_of,
            created_by=created_by,
            seats=self.read_seats(check, seats_raw, series, derived),
            deals=deals,
            events=self.read_events(check, pk),
        )

    def read_deals(
        self, check: _Check, pk: int, running: rules.Series
    ) -> list[tuple[Deal, str | None]]:
        """The series' deal rows, each replayed by ``running`` (the engine) as it is read."""
        deals: list[tuple[Deal, str | None]] = []
        for expected, item in enumerate(check.items("deals"), start=1):
            inner = _Check(item, check.where)
            number = inner.integer("number", low=1)
            deal_check = _Check(item, _("series %(id)s, deal %(n)s") % {"id": pk, "n": number})
            if number != expected:
                raise deal_check.refuse(_("deals must be numbered 1, 2, 3, … in order."))
            snapshot = _snapshot(
                {"points": item.get("points"), "tricks": item.get("tricks")}, deal_check, "points"
            )
            entry_key = _entry_key(item.get("entry_key"), deal_check)
            row = Deal(
                series_id=pk,
                number=number,
                created_at=deal_check.when("created_at"),
                updated_at=deal_check.when("updated_at"),
                entry_key=entry_key,
                **{f"points_{side}": snapshot["points"][side] for side in range(rules.MAX_SIDES)},
                **{f"tricks_{side}": snapshot["tricks"][side] for side in range(rules.MAX_SIDES)},
            )
            in_play = running.in_play
            try:
                deal = engine_deal(row, in_play)
                if row_values(deal, in_play) != {
                    name: getattr(row, name) for name in row_values(deal, in_play)
                }:
                    raise deal_check.refuse(
                        _("the points and tricks do not fit the sides in play.")
                    )
                running.add(deal)
            except rules.InvalidDeal as error:
                raise deal_check.refuse(engine_message(error)) from None
            deals.append((row, self.user(deal_check, "recorded_by")))
        return deals

    def read_seats(
        self, check: _Check, seats_raw: list, series: Series, derived: Derived
    ) -> list[Seat]:
        """The series' seats, with the deal figures the replay gives (``derived``)."""
        shape = series.shape
        seats = []
        seen_players = set()
        for item in seats_raw:
            inner = _Check(item, check.where)
            position = inner.integer("position")
            side = inner.integer("side")
            player = inner.integer("player", low=1, high=MAX_ID)
            if player not in self.player_leagues:
                raise check.refuse(_("a seat's player is not in the file."))
            if player in seen_players:
                raise check.refuse(_("a player sits at two seats."))
            # As everywhere else: a league's players play in its series, quick-game players in
            # quick games (the player pages count on it).
            if self.player_leagues[player] != series.league_id:
                raise check.refuse(_("a seat's player belongs to another league."))
            seen_players.add(player)
            if side != shape.seat_sides[position]:
                raise check.refuse(_("a seat plays for the wrong side."))
            values = derived.seat(side)
            if any(item.get(key) != values[key] for key in SEAT_DERIVED):
                raise check.refuse(_("a seat's total, goat or winner does not match the deals."))
            seats.append(
                Seat(series_id=series.pk, player_id=player, position=position, side=side, **values)
            )
        return seats

    def read_events(self, check: _Check, pk: int) -> list[tuple[DealEvent, str | None]]:
        """The series' audit trail."""
        events = []
        for item in check.items("events"):
            inner = _Check(item, check.where)
            action = item.get("action")
            if action not in DealEvent.Action.values:
                raise check.refuse(_("an event's action is not recorded, edited or removed."))
            events.append(
                (
                    DealEvent(
                        series_id=pk,
                        number=inner.integer("number", low=1),
                        action=action,
                        before=_snapshot(item.get("before"), inner, "before"),
                        after=_snapshot(item.get("after"), inner, "after"),
                        via=inner.text("via", longest=20, empty=True),
                        created_at=inner.when("created_at"),
                        entry_key=_entry_key(item.get("entry_key"), inner),
                    ),
                    self.user(inner, "actor"),
                )
            )
        return events

    def _league_item(
        self, raw: Any, what: str, named: str, seen: set[int]
    ) -> tuple[_Check, int, int]:
        """A league's club night or change: its check (``named`` with its id), id and league,
        once each id, in a league of the file."""
        check = _Check(raw, what)
        pk = check.integer("id", low=1, high=MAX_ID)
        check = _Check(raw, named % {"id": pk})
        if pk in seen:
            raise check.refuse(_("the id appears twice."))
        seen.add(pk)
        league = check.integer("league", low=1, high=MAX_ID)
        if league not in self.league_ids:
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
        rows = _ChangeRows(
            change=LeagueEvent(
                pk=pk,
                league_id=league,
                action=action,
                undone_at=undone_at,
                created_at=check.when("created_at"),
            ),
            actor=self.user(check, "actor"),
            players=[],
            seats=[],
            source_user=None,
        )
        rows.change.data = self.read_change_data(_Check(raw.get("data"), check.where), rows)
        self.changes.append(rows)

    def read_change_data(self, check: _Check, rows: _ChangeRows) -> dict[str, Any]:
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
            source = _Check(check.data.get("source"), check.where)
            target = _Check(check.data.get("target"), check.where)
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
            if league != self.player_leagues.get(ids[0], self.merged_away.get(ids[0], league)):
                raise check.refuse(_("the merged player has the id of another league's player."))
            self.merged_away[ids[0]] = league
            self.merges[rows.change.pk] = league
            rows.source_user = self.user(source, "user")
            source.when("created_at")  # kept as written: the undo stores it as it is
            for item in check.items("seats"):
                if not (
                    isinstance(item, list) and len(item) == 2 and all(type(v) is int for v in item)
                ):
                    raise check.refuse(_("a moved seat is not a series and a position."))
                series, position = item
                seat_league, seats = self.series_seats.get(series, (None, 0))
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

    def check_change(self, rows: _ChangeRows) -> None:
        """What a change names, once every change is read: players, the merge an undo takes back."""
        change = rows.change
        check = _Check(change.data, _("league change %(id)s") % {"id": change.pk})
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
            inner = _Check(item, check.where)
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
        )
        if self.secrets:
            event.share_token = check.text("share_token", longest=64, null=True)
        played = []
        listed = check.items("played_rounds")
        if len(listed) > min(rounds, len(plan)):
            raise check.refuse(_("it has played more rounds than its plan."))
        for number, item in enumerate(listed, start=1):
            inner = _Check(item, _("club night %(id)s, round %(n)s") % {"id": pk, "n": number})
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
            played.append((row, self.read_tables(inner, item, league)))
        self.events.append(
            _EventRows(event=event, created_by=self.user(check, "created_by"), rounds=played)
        )

    def read_tables(self, check: _Check, raw: dict, league: int) -> list[EventTable]:
        """A round's tables, each a series of the league in the file, one table per series."""
        tables = []
        for number, item in enumerate(check.items("tables"), start=1):
            inner = _Check(item, check.where)
            if inner.integer("number", low=1) != number:
                raise check.refuse(_("tables must be numbered 1, 2, 3, … in order."))
            series = inner.integer("series", low=1, high=MAX_ID)
            if self.series_seats.get(series, (None, 0))[0] != league:
                raise check.refuse(_("a table's series is not a series of its league in the file."))
            if series in self.table_series:
                raise check.refuse(_("a series is the table of two rounds."))
            self.table_series.add(series)
            adjudicated = inner.boolean("adjudicated")
            winner = inner.integer("adjudicated_winner", high=rules.MAX_SIDES - 1, null=True)
            if winner is not None and not adjudicated:
                raise check.refuse(_("a table that was not adjudicated has an adjudicated winner."))
            tables.append(
                EventTable(
                    number=number,
                    series_id=series,
                    adjudicated=adjudicated,
                    adjudicated_winner=winner,
                )
            )
        return tables

    def refuse_taken(self) -> None:
        for model, ids, label in (
            (League, self.league_ids, _("leagues")),
            (Player, self.player_ids, _("players")),
            (Series, self.series_ids, _("series")),
            (Event, self.event_ids, _("club nights")),
            (LeagueEvent, self.change_ids, _("league changes")),
        ):
            taken = _existing(model, ids)
            if taken:
                shown = ", ".join(str(pk) for pk in taken[:10])
                more = _(" and %(n)s more") % {"n": len(taken) - 10} if len(taken) > 10 else ""
                raise ImportRefused(
                    _(
                        "The database already holds %(what)s %(ids)s%(more)s. Import into an "
                        "empty database, or remove them first; nothing was imported."
                    )
                    % {"what": label, "ids": shown, "more": more}
                )

    def write(self) -> ImportSummary:
        user_model = get_user_model()
        field = user_model.USERNAME_FIELD
        existing = {
            getattr(user, field): user
            for user in user_model.objects.filter(**{f"{field}__in": sorted(self.usernames)})
        }
        created = 0
        for name in sorted(self.usernames - set(existing)):
            user = user_model(**{field: name})
            user.set_unusable_password()
            user.save()
            existing[name] = user
            created += 1

        def user_id(name: str | None) -> int | None:
            return None if name is None else existing[name].pk

        for player, username in self.players:
            player.user_id = user_id(username)
        series_rows = []
        known = self.series_ids | set(
            _existing(Series, {s.rematch_of for s in self.series if s.rematch_of is not None})
        )
        for item in self.series:
            item.series.created_by_id = user_id(item.created_by)
            series_rows.append(item.series)
        deals, seats, events = [], [], []
        for item in self.series:
            seats += item.seats
            for row, recorded_by in item.deals:
                row.recorded_by_id = user_id(recorded_by)
                deals.append(row)
            for event, actor in item.events:
                event.actor_id = user_id(actor)
                events.append(event)
        with kept_timestamps(
            League, Membership, Player, Series, Deal, DealEvent, Event, EventRound, LeagueEvent
        ):
            League.objects.bulk_create(self.leagues)
            Membership.objects.bulk_create(
                Membership(league_id=league, user_id=existing[name].pk, role=role, joined_at=joined)
                for league, name, role, joined in self.members
            )
            Player.objects.bulk_create(player for player, _name in self.players)
            Series.objects.bulk_create(series_rows)
            Seat.objects.bulk_create(seats)
            Deal.objects.bulk_create(deals)
            DealEvent.objects.bulk_create(events)
            self.write_events(user_id)
            self.write_changes(user_id)
        linked = []
        for item in self.series:
            if item.rematch_of in known:
                item.series.rematch_of_id = item.rematch_of
                linked.append(item.series)
        Series.objects.bulk_update(linked, ["rematch_of"], batch_size=500)
        _reset_sequences(players_above=max(self.merged_away, default=0))
        return ImportSummary(
            leagues=len(self.leagues),
            players=len(self.players),
            series=len(self.series),
            deals=len(deals),
            events=len(events),
            new_users=created,
            club_nights=len(self.events),
            changes=len(self.changes),
        )

    def write_events(self, user_id) -> None:
        for item in self.events:
            item.event.created_by_id = user_id(item.created_by)
        Event.objects.bulk_create(item.event for item in self.events)
        EventRound.objects.bulk_create(row for item in self.events for row, _t in item.rounds)
        # The rounds' new ids (not every database gives them back from a bulk insert).
        rounds: dict[tuple[int, int], int] = {}
        for chunk in _chunks(self.event_ids):
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

    def write_changes(self, user_id) -> None:
        """The league changes, a merge's moved seats named by the ids the seats have now."""
        wanted = {series for item in self.changes for series, _position in item.seats}
        seats: dict[tuple[int, int], int] = {}
        for chunk in _chunks(wanted):
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


def _chunks(ids: set[int]) -> Iterator[list[int]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), 500):
        yield ordered[start : start + 500]


def _existing(model, ids: set[int]) -> list[int]:
    found: list[int] = []
    for chunk in _chunks(ids):
        found += model.objects.filter(pk__in=chunk).values_list("pk", flat=True)
    return sorted(found)


def _reset_sequences(*, players_above: int = 0) -> None:
    """After rows with given ids, the next new row must not reuse one (PostgreSQL sequences),
    nor the id of a player a merge removed, ``players_above`` at most: club nights and changes
    still name them, and an undo of the merge brings the player back under that id, as it would
    have in the database the backup came from (whose sequence had passed it)."""
    statements = connection.ops.sequence_reset_sql(
        no_style(), [League, Player, Series, Event, LeagueEvent]
    )
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
        highest = Player.objects.aggregate(highest=Max("pk"))["highest"] or 0
        if players_above <= highest:
            return
        table = Player._meta.db_table
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), %s)",
                [connection.ops.quote_name(table), Player._meta.pk.column, players_above],
            )
        elif connection.vendor == "sqlite":  # AUTOINCREMENT: sqlite_sequence holds the highest
            cursor.execute(
                "UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [players_above, table]
            )
            if not cursor.rowcount:
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)",
                    [table, players_above],
                )


def history_import(document: Any) -> ImportSummary:
    """Restore an exported document (parsed JSON); ``ImportRefused`` says why it cannot be."""
    importer = _Importer(document)
    importer.read()
    try:
        with transaction.atomic():
            importer.refuse_taken()
            summary = importer.write()
            for league in importer.leagues:  # written at once, so their standings fold once
                totals_fold(league_id=league.pk)
            return summary
    except IntegrityError as error:
        raise ImportRefused(
            _(
                "The database already holds a link, entry key, member or player name from this "
                "file (%(error)s); nothing was imported."
            )
            % {"error": error}
        ) from None


def history_import_text(text: str | bytes) -> ImportSummary:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        if error.pos >= len(error.doc.rstrip()):
            raise ImportRefused(
                _(
                    "The file ends too early: the export was cut short (an interrupted "
                    "download?). Export it again; nothing was imported."
                )
            ) from None
        raise ImportRefused(
            _("The file is not valid JSON (%(error)s).") % {"error": error}
        ) from None
    except (ValueError, RecursionError) as error:
        raise ImportRefused(
            _("The file is not valid JSON (%(error)s).") % {"error": error}
        ) from None
    return history_import(document)
