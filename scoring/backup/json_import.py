"""The JSON import: restore a document the JSON export wrote, whole or not at all.

Ids are kept (links stay valid, an undo finds its merge), so a database already holding one is
refused; rounds, tables and moved seats get new ids. Every series is replayed by the engine on
the way in (a deal the rules refuse, or totals that disagree with the deals, refuse the file),
and the seats' deal figures stored from the replay. Unknown usernames become accounts without a
usable password, so the audit trail still says who recorded what. What the site would never
have written is refused with its reason before anything is written (``json_checks``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from scoring import rules
from scoring.backup.json_checks import (
    Check,
    ImportRefused,
    chunks,
    entry_key,
    seat_snapshot,
    snapshot,
    storable,
)
from scoring.backup.json_export import COMPLETE, FORMAT, SEAT_DERIVED, VERSION
from scoring.backup.json_league_items import LeagueItems
from scoring.core.modes import SHAPES
from scoring.core.names import league_keys
from scoring.lib import database
from scoring.lib.ids import MAX_ID
from scoring.models import (
    MAX_DEALS,
    MAX_LEAGUE_NAME,
    MAX_NAME,
    Deal,
    DealEvent,
    Event,
    EventRound,
    League,
    LeagueEvent,
    Membership,
    Player,
    Role,
    Seat,
    Series,
    Table,
)
from scoring.standings.running_totals import totals_fold
from scoring.table import life
from scoring.table.derived import Derived, derived_values, kept_timestamps
from scoring.table.forms import engine_message
from scoring.table.replays import engine_deal, row_values
from scoring.table.services import tables_for

#: The document versions this site restores: 1 (no closing mark), 2 (``COMPLETE``), 3 (club
#: nights, league changes, ``archived_at``; absent from older documents, so none are restored)
#: and 4 (how a series was closed: before it, a club night's table closed by its round's end is
#: told by its "adjudicated" table, at the round's end, and one closed at its deal limit by its
#: deals, at its last).
READS = (1, 2, 3, VERSION)
#: Every link's token, by model: one token opens one page.
TOKENS: dict[type[Table | League | Event], tuple[str, ...]] = {
    Table: ("score_token", "watch_token"),
    League: ("invite_token", "share_token"),
    Event: ("share_token",),
}


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


@dataclass
class _SeriesRows:
    """One series of the document, read and checked: its rows, ready to be written."""

    series: Series
    rematch_of: int | None
    created_by: str | None  # usernames, turned into ids when the accounts exist
    seats: list[Seat]
    deals: list[tuple[Deal, str | None]]
    events: list[tuple[DealEvent, str | None]]
    state: rules.SeriesState
    links: tuple[str | None, str | None] | None = None  # its table's score and watch tokens

    def close(self, at: datetime) -> None:
        """Closed at ``at`` (a document before version 4 did not say): its ending, its result
        and its seats' figures as the site would have stored them then."""
        series = self.series
        series.closed_at = at
        derived = derived_values(self.state, _ending(series, self.state, self.deals, self.events))
        for name, value in derived.series.items():
            setattr(series, name, value)
        if series.finished_at is None:
            series.finished_at = at
        for seat in self.seats:
            for name, value in derived.seat(seat.side).items():
                setattr(seat, name, value)


def _ending(
    series: Series,
    state: rules.SeriesState,
    deals: list[tuple[Deal, str | None]],
    events: list[tuple[DealEvent, str | None]],
) -> str:
    """How the series ended, as ``services.series_refresh`` says it: its time by the table's last
    deal, not by one the organiser added after the close."""
    added = _added_after_close(events)
    table = [deal.created_at for deal, _by in deals if deal.number not in added]
    return life.ending_of(series, state, last_deal_at=table[-1] if table else None)


def _within_limit(series: Series, count: int, events: list[tuple[DealEvent, str | None]]) -> bool:
    """Whether a series holding ``count`` deals keeps to its round's deal limit: a closed series
    holds more only as an organiser's corrections (``life.deal_refusal``: deals missing from its
    round, added after it closed), each on the record as one."""
    limit = series.deal_limit
    if limit is None or count <= limit:
        return True
    added = _added_after_close(events)
    return series.closed_at is not None and added >= set(range(limit + 1, count + 1))


def _added_after_close(events: list[tuple[DealEvent, str | None]]) -> set[int]:
    """The deals an organiser added to the series after it closed: their ``recorded`` events
    say so (``life.CORRECTION``)."""
    return {
        event.number
        for event, _actor in events
        if event.action == DealEvent.Action.RECORDED and event.via == life.CORRECTION
    }


def _before_endings(derived: Derived) -> Derived:
    """The derived values as a document before version 4 held them: no "ending" (and a closed
    series as never closed: ``derived`` is made so)."""
    series = {name: value for name, value in derived.series.items() if name != "ending"}
    return Derived(series=series, sides=derived.sides)


class Importer:
    """Reads a whole document first (refusing it at the first problem), then writes it."""

    def __init__(self, document: Any) -> None:
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ImportRefused(_("This is not a Kozel scores export."))
        top = Check(document, _("the file"))
        version = top.data.get("version")
        if version not in READS or isinstance(version, bool):
            raise ImportRefused(
                _("This export has version %(found)s; this site reads version %(version)s.")
                % {"found": json.dumps(version)[:20], "version": ", ".join(map(str, READS))}
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
            if not isinstance(name, str) or not name or len(name) > 150 or not storable(name):
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
        self.tokens: dict[str, str] = {}  # where in the file each link's token is
        self.items = LeagueItems(self)  # club nights and league changes

    @property
    def player_ids(self) -> set[int]:
        return set(self.player_leagues)

    def user(self, check: Check, key: str) -> str | None:
        name = check.data.get(key)
        if name is None:
            return None
        if not isinstance(name, str) or name not in self.usernames:
            raise check.refuse(
                _("%(key)s names a user missing from the users list.") % {"key": key}
            )
        return name

    def token(self, check: Check, key: str) -> str | None:
        """A link's token from the file: one no other link of the file has (the watch link
        would score if it were the score link's too; the public link would invite)."""
        value = check.token(key)
        if value is not None:
            if value in self.tokens:
                raise check.refuse(
                    _("%(key)s is also the token of %(other)s: one link would open the other.")
                    % {"key": key, "other": self.tokens[value]}
                )
            self.tokens[value] = f"{check.where}, {key}"
        return value

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
            check = Check(raw, _("a series"))
            pk = check.integer("id", low=1, high=MAX_ID)
            if pk in self.series_ids:
                raise ImportRefused(_("series %(id)s: the id appears twice.") % {"id": pk})
            self.series_ids.add(pk)
            self.series.append(self.read_series(raw, pk))
        # Changes before club nights: a player a merge removed is still named by the nights
        # they played (and by the changes before the merge).
        self.items.read(changes=self.section("changes"), events=self.section("events"))
        # Before version 4, a table the round's end closed said so itself ("adjudicated").
        by_pk = {item.series.pk: item for item in self.series}
        for pk, at in self.items.closed_by_rounds.items():
            if by_pk[pk].series.closed_at is None:
                by_pk[pk].close(at)

    def section(self, key: str) -> list:
        """A list of the document's that version 3 brought: absent from older documents."""
        if self.version < 3 and key not in self.top.data:
            return []
        return self.top.items(key)

    def read_league(self, raw: Any) -> None:
        check = Check(raw, _("a league"))
        pk = check.integer("id", low=1, high=MAX_ID)
        check = Check(raw, _("league %(id)s") % {"id": pk})
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
            league.invite_token = self.token(check, "invite_token")
            league.share_token = self.token(check, "share_token")
            role = check.data.get("invite_role")
            if role not in Role.values:
                raise check.refuse(_("invite_role is not a role."))
            league.invite_role = role
            for member in check.items("members"):
                inner = Check(member, check.where)
                if member.get("role") not in Role.values:
                    raise check.refuse(_("a member's role is not a role."))
                username = self.user(inner, "user") or ""
                joined = inner.when("joined_at")
                if not username:
                    raise check.refuse(_("a member has no username."))
                self.members.append((pk, username, member["role"], joined))
        self.leagues.append(league)

    def read_player(self, raw: Any) -> None:
        check = Check(raw, _("a player"))
        pk = check.integer("id", low=1, high=MAX_ID)
        check = Check(raw, _("player %(id)s") % {"id": pk})
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
        check = Check(raw, _("series %(id)s") % {"id": pk})
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
            # A club night's "N deals" table (absent from files before format 3), its time and
            # when it was closed (before format 4: see ``_SeriesRows.close``).
            deal_limit=check.integer("deal_limit", low=1, high=MAX_DEALS, null=True),
            closes_at=check.when("closes_at", null=True) if check.has("closes_at") else None,
            closed_at=check.when("closed_at", null=True) if check.has("closed_at") else None,
        )
        # The links of the table that plays it now (a document with secrets; else new ones).
        links = None
        if self.secrets and (check.has("score_token") or check.has("watch_token")):
            links = (self.token(check, "score_token"), self.token(check, "watch_token"))
        rematch_of = check.integer("rematch_of", low=1, high=MAX_ID, null=True)
        created_by = self.user(check, "created_by")

        seats_raw = check.items("seats")
        positions = sorted(Check(seat, check.where).integer("position") for seat in seats_raw)
        if positions != list(range(shape.seats)):
            raise check.refuse(_("the seats do not match the game."))
        running = rules.Series(shape.sides, rules=ruleset)
        deals = self.read_deals(check, pk, running)
        events = self.read_events(check, pk)
        if not _within_limit(series, len(deals), events):
            raise check.refuse(_("it holds more deals than its round allows."))
        state = running.state
        limit = series.deal_limit
        if self.version < 4 and not state.finished and limit and len(deals) >= limit:
            series.closed_at = series.closed_at or deals[-1][0].created_at  # by its last deal
        derived = derived_values(state, _ending(series, state, deals, events))
        # What the document holds: before version 4 a closed series had no result stored.
        stated = derived if self.version >= 4 else _before_endings(derived_values(state))
        if check.data.get("derived") != stated.series:
            raise check.refuse(_("the stored totals, goat or winner do not match its deals."))
        for name, value in derived.series.items():
            setattr(series, name, value)
        if series.finished and series.finished_at is None:
            series.finished_at = series.closed_at
        self.series_seats[pk] = (league, shape.seats)
        return _SeriesRows(
            series=series,
            rematch_of=rematch_of,
            created_by=created_by,
            seats=self.read_seats(check, seats_raw, series, stated, derived),
            deals=deals,
            events=events,
            state=state,
            links=links,
        )

    def read_deals(
        self, check: Check, pk: int, running: rules.Series
    ) -> list[tuple[Deal, str | None]]:
        """The series' deal rows, each replayed by ``running`` (the engine) as it is read."""
        listed = check.items("deals")
        if len(listed) > MAX_DEALS:  # what the table stops at; the replay would take minutes
            raise check.refuse(
                _("it holds %(count)s deals; a series holds at most %(most)s.")
                % {"count": len(listed), "most": MAX_DEALS}
            )
        deals: list[tuple[Deal, str | None]] = []
        for expected, item in enumerate(listed, start=1):
            inner = Check(item, check.where)
            number = inner.integer("number", low=1)
            deal_check = Check(item, _("series %(id)s, deal %(n)s") % {"id": pk, "n": number})
            if number != expected:
                raise deal_check.refuse(_("deals must be numbered 1, 2, 3, … in order."))
            values = snapshot(
                {"points": item.get("points"), "tricks": item.get("tricks")}, deal_check, "points"
            )
            row = Deal(
                series_id=pk,
                number=number,
                created_at=deal_check.when("created_at"),
                updated_at=deal_check.when("updated_at"),
                entry_key=entry_key(item.get("entry_key"), deal_check),
                **{f"points_{side}": values["points"][side] for side in range(rules.MAX_SIDES)},
                **{f"tricks_{side}": values["tricks"][side] for side in range(rules.MAX_SIDES)},
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
        self, check: Check, seats_raw: list, series: Series, stated: Derived, derived: Derived
    ) -> list[Seat]:
        """The series' seats, with the deal figures the replay gives (``derived``); the document
        holds ``stated`` (the same, but before version 4)."""
        shape = series.shape
        seats = []
        seen_players = set()
        for item in seats_raw:
            inner = Check(item, check.where)
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
            if any(item.get(key) != stated.seat(side)[key] for key in SEAT_DERIVED):
                raise check.refuse(_("a seat's total, goat or winner does not match the deals."))
            seats.append(
                Seat(series_id=series.pk, player_id=player, position=position, side=side, **values)
            )
        return seats

    def read_events(self, check: Check, pk: int) -> list[tuple[DealEvent, str | None]]:
        events = []
        for item in check.items("events"):
            inner = Check(item, check.where)
            action = item.get("action")
            if action not in DealEvent.Action.values:
                raise check.refuse(_("an event's action is not recorded, edited or removed."))
            # A club night's substitute keeps the seat's players; every other event a deal.
            read = seat_snapshot if action == DealEvent.Action.SUBSTITUTE else snapshot
            events.append(
                (
                    DealEvent(
                        series_id=pk,
                        number=inner.integer("number", low=1),
                        action=action,
                        before=read(item.get("before"), inner, "before"),
                        after=read(item.get("after"), inner, "after"),
                        via=inner.text("via", longest=20, empty=True),
                        created_at=inner.when("created_at"),
                        entry_key=entry_key(item.get("entry_key"), inner),
                    ),
                    self.user(inner, "actor"),
                )
            )
        return events

    def refuse_taken(self) -> None:
        for model, ids, label in (
            (League, self.league_ids, _("leagues")),
            (Player, self.player_ids, _("players")),
            (Series, self.series_ids, _("series")),
            (Event, self.items.event_ids, _("club nights")),
            (LeagueEvent, self.items.change_ids, _("league changes")),
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
        # A token stored under another kind of link would open that link's page too.
        for holder, fields in TOKENS.items():
            for field in fields:
                for chunk in chunks(set(self.tokens)):
                    if holder.objects.filter(**{f"{field}__in": chunk}).exists():
                        raise ImportRefused(
                            _(
                                "The database already holds a link of this file. Import into an "
                                "empty database, or remove it first; nothing was imported."
                            )
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
            self.items.write(user_id)
        linked = []
        for item in self.series:
            if item.rematch_of in known:
                item.series.rematch_of_id = item.rematch_of
                linked.append(item.series)
        Series.objects.bulk_update(linked, ["rematch_of"], batch_size=500)
        tables_for(
            series_rows,
            club=self.items.club_tables(),
            links={item.series.pk: item.links for item in self.series if item.links is not None},
        )
        _reset_sequences(players_above=max(self.items.merged_away, default=0))
        return ImportSummary(
            leagues=len(self.leagues),
            players=len(self.players),
            series=len(self.series),
            deals=len(deals),
            events=len(events),
            new_users=created,
            club_nights=len(self.items.events),
            changes=len(self.items.changes),
        )


def _existing(model, ids: set[int]) -> list[int]:
    found: list[int] = []
    for chunk in chunks(ids):
        found += model.objects.filter(pk__in=chunk).values_list("pk", flat=True)
    return sorted(found)


def _reset_sequences(*, players_above: int = 0) -> None:
    """After rows with given ids, the next new row must not reuse one (PostgreSQL sequences),
    nor the id of a player a merge removed, ``players_above`` at most: club nights and changes
    still name them, and an undo of the merge brings the player back under that id, as it would
    have in the database the backup came from (whose sequence had passed it)."""
    database.sequences_reset([League, Player, Series, Event, LeagueEvent])
    highest = Player.objects.aggregate(highest=Max("pk"))["highest"] or 0
    if players_above > highest:
        database.sequence_past(Player, players_above)


def history_import(document: Any) -> ImportSummary:
    """Restore an exported document (parsed JSON); ``ImportRefused`` says why it cannot be."""
    importer = Importer(document)
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
    except DatabaseError as error:  # a value the checks let through and the database did not
        raise ImportRefused(
            _("The database refused a value of this file (%(error)s); nothing was imported.")
            % {"error": error}
        ) from None


def history_import_text(text: str | bytes) -> ImportSummary:
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:  # a JSONDecodeError is a ValueError
        if isinstance(error, json.JSONDecodeError) and error.pos >= len(error.doc.rstrip()):
            raise ImportRefused(
                _(
                    "The file ends too early: the export was cut short (an interrupted "
                    "download?). Export it again; nothing was imported."
                )
            ) from None
        raise ImportRefused(
            _("The file is not valid JSON (%(error)s).") % {"error": error}
        ) from None
    return history_import(document)
