"""The JSON export: a backup that ``json_import`` restores exactly.

One series (club night, change) per line, in id order, keys sorted, so the same data gives the
same bytes and two backups diff well; streamed in pages of plain values, constant memory; ended
by ``"complete": true``, without which the import refuses a document cut short. A league's club
nights and change log go only with its whole history (a club night's tables and a merge's seats
are its series). Secrets (links' tokens, memberships) only with ``secrets=True``, which the
management command writes so a restored backup keeps every link working: a watcher must not
learn the scoring link from the web's download.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet

from scoring.backup.json_checks import chunks
from scoring.models import (
    Deal,
    DealEvent,
    Event,
    EventRound,
    EventTable,
    League,
    LeagueEvent,
    Membership,
    Player,
    Seat,
    Series,
)
from scoring.table.derived import SERIES_FIELDS

FORMAT = "kozel-scores"
#: Version 4 adds how a series was closed (``closes_at``, ``closed_at``) and its ``ending`` among
#: the derived values (a club night's table closed at its limit or by the organiser has a result);
#: its tables no longer say "adjudicated" (the series says how it ended). Version 3 added club
#: nights, change logs and ``archived_at`` (a site that reads only up to 2 refuses it rather than
#: restore a league without them); version 2 ends with ``"complete": true`` (``COMPLETE``);
#: version 1 had no closing marker.
VERSION = 4
#: The key of the closing marker, the document's last: only a document read to its end has it.
COMPLETE = "complete"
BATCH = 200  # series (club nights, changes) per round of queries when exporting
#: The derived seat fields a document holds; an import recomputes the deal figures from the deals.
SEAT_DERIVED = ("total", "is_goat", "is_winner")


def when(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _name(user) -> str | None:
    return None if user is None else user.get_username()


def _line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def pages(rows: QuerySet) -> Iterator[list[int]]:
    """The ids of ``rows`` in id order, ``BATCH`` at a time: each page one query from where
    the last ended, so memory stays the same whatever the number of rows."""
    ids = rows.order_by("pk").values_list("pk", flat=True).distinct()
    last = 0
    while True:
        page = list(ids.filter(pk__gt=last)[:BATCH])
        if not page:
            return
        yield page
        last = page[-1]


def _by_series(rows) -> dict[int, list[tuple]]:
    grouped: dict[int, list[tuple]] = defaultdict(list)
    for series_id, *rest in rows:
        grouped[series_id].append(tuple(rest))
    return grouped


def _uuid(value: uuid.UUID | None) -> str | None:
    return None if value is None else str(value)


def series_data(ids: list[int], *, secrets: bool) -> Iterator[dict[str, Any]]:
    """The series ``ids`` as plain data with their seats, deals and events, in id order: four
    queries of plain values (no model instances: a league of 150,000 deals is read in seconds)."""
    username = get_user_model().USERNAME_FIELD
    series_rows = (
        Series.objects.filter(pk__in=ids)
        .order_by("pk")
        .values_list(
            "pk",
            "league_id",
            "mode",
            "rules",
            "first_dealer",
            "created_at",
            "updated_at",
            "finished_at",
            f"created_by__{username}",
            "rematch_of_id",
            "version",
            "deal_limit",
            "closes_at",
            "closed_at",
            "table__score_token",
            "table__watch_token",
            "table__series_id",
            "table__event_id",
            *SERIES_FIELDS,
        )
    )
    seats = _by_series(
        Seat.objects.filter(series_id__in=ids)
        .order_by("series_id", "position")
        .values_list("series_id", "position", "player_id", "side", *SEAT_DERIVED)
    )
    deals = _by_series(
        Deal.objects.filter(series_id__in=ids)
        .order_by("series_id", "number")
        .values_list(
            "series_id",
            "number",
            "points_0",
            "points_1",
            "points_2",
            "tricks_0",
            "tricks_1",
            "tricks_2",
            "created_at",
            "updated_at",
            f"recorded_by__{username}",
            "entry_key",
        )
    )
    events = _by_series(
        DealEvent.objects.filter(series_id__in=ids)
        .order_by("series_id", "created_at", "pk")
        .values_list(
            "series_id",
            "number",
            "action",
            "before",
            "after",
            f"actor__{username}",
            "via",
            "created_at",
            "entry_key",
        )
    )
    for row in series_rows:
        pk, league, mode, ruleset, dealer, created, updated, finished, by, rematch = row[:10]
        version, deal_limit, closes_at, closed_at, score_token, watch_token = row[10:16]
        # A kitchen table's links, with the game it plays now (its earlier games are seated
        # at it again on the way back in, by their rematches: ``services.tables_for``).
        links = row[16] == pk and row[17] is None
        data: dict[str, Any] = {
            "id": pk,
            "league": league,
            "mode": mode,
            "rules": ruleset,
            "first_dealer": dealer,
            "created_at": when(created),
            "updated_at": when(updated),
            "finished_at": when(finished),
            "created_by": by,
            "rematch_of": rematch,
            "version": version,
            "deal_limit": deal_limit,
            "closes_at": when(closes_at),
            "closed_at": when(closed_at),
            "derived": dict(zip(SERIES_FIELDS, row[18:], strict=True)),
            "seats": [
                {
                    "position": position,
                    "player": player,
                    "side": side,
                    **dict(zip(SEAT_DERIVED, derived, strict=True)),
                }
                for position, player, side, *derived in seats.get(pk, ())
            ],
            "deals": [
                {
                    "number": number,
                    "points": cards[:3],
                    "tricks": cards[3:],
                    "created_at": when(made),
                    "updated_at": when(changed),
                    "recorded_by": recorder,
                    "entry_key": _uuid(key),
                }
                for number, *cards, made, changed, recorder, key in deals.get(pk, ())
            ],
            "events": [
                {
                    "number": number,
                    "action": action,
                    "before": before,
                    "after": after,
                    "actor": actor,
                    "via": via,
                    "created_at": when(at),
                    # A removed deal's key: its form stays spent in the restored database too.
                    "entry_key": _uuid(key),
                }
                for number, action, before, after, actor, via, at, key in events.get(pk, ())
            ],
        }
        if secrets and links:
            data["score_token"], data["watch_token"] = score_token, watch_token
        yield data


def event_data(ids: list[int], *, secrets: bool) -> Iterator[dict[str, Any]]:
    """The club nights ``ids`` with their rounds and tables, in id order, in three queries;
    players named by their ids, a table by its series' id."""
    username = get_user_model().USERNAME_FIELD
    rows = (
        Event.objects.filter(pk__in=ids)
        .order_by("pk")
        .values_list(
            "pk",
            "league_id",
            "name",
            "rules",
            "rounds",
            "length",
            "length_value",
            "three_player_tables",
            "tie_break",
            "seed",
            "present",
            "plan",
            f"created_by__{username}",
            "created_at",
            "version",
            "share_token",
            "seating",
            "tv_code",
        )
    )
    rounds = _by_series(
        EventRound.objects.filter(event_id__in=ids)
        .order_by("event_id", "number")
        .values_list("event_id", "pk", "number", "out", "started_at", "finished_at")
    )
    tables = _by_series(
        EventTable.objects.filter(round__event_id__in=ids)
        .order_by("round_id", "number")
        .values_list("round_id", "number", "series_id")
    )
    for row in rows:
        pk, league, name, ruleset, count, length, value, three, tie_break, seed = row[:10]
        present, plan, created_by, created_at, version, share_token, seating, tv_code = row[10:]
        data: dict[str, Any] = {
            "id": pk,
            "league": league,
            "name": name,
            "rules": ruleset,
            "rounds": count,
            "length": length,
            "length_value": value,
            "three_player_tables": three,
            "tie_break": tie_break,
            "seed": seed,
            "present": present,
            "plan": plan,
            "created_by": created_by,
            "created_at": when(created_at),
            "version": version,
            "seating": seating,
            "played_rounds": [
                {
                    "number": number,
                    "out": out,
                    "started_at": when(started_at),
                    "finished_at": when(finished_at),
                    "tables": [
                        {"number": table, "series": series}
                        for table, series in tables.get(round_pk, ())
                    ],
                }
                for round_pk, number, out, started_at, finished_at in rounds.get(pk, ())
            ],
        }
        if secrets:
            data["share_token"], data["tv_code"] = share_token, tv_code
        yield data


def change_data(ids: list[int]) -> Iterator[dict[str, Any]]:
    """The league changes ``ids`` in id order, what an undo needs in the document's own terms: a
    merge's moved seats as ``[series, position]`` (an import gives seats new ids), its merged
    player's account as a username."""
    user_model = get_user_model()
    username = user_model.USERNAME_FIELD
    rows = list(
        LeagueEvent.objects.filter(pk__in=ids)
        .order_by("pk")
        .values_list(
            "pk", "league_id", "action", f"actor__{username}", "data", "undone_at", "created_at"
        )
    )
    seat_ids: set[int] = set()
    user_ids: set[int] = set()
    for row in rows:
        data = row[4] if isinstance(row[4], dict) else {}
        seat_ids.update(pk for pk in data.get("seats", ()) if isinstance(pk, int))
        source = data.get("source")
        if isinstance(source, dict) and isinstance(source.get("user"), int):
            user_ids.add(source["user"])
    seats: dict[int, list[int]] = {}
    for chunk in chunks(seat_ids):
        for pk, series, position in Seat.objects.filter(pk__in=chunk).values_list(
            "pk", "series_id", "position"
        ):
            seats[pk] = [series, position]
    names: dict[int, str] = {}
    for chunk in chunks(user_ids):
        names.update(user_model.objects.filter(pk__in=chunk).values_list("pk", username))
    for pk, league, action, actor, data, undone_at, created_at in rows:
        data = dict(data) if isinstance(data, dict) else {}
        if "seats" in data:
            # A seat gone with its series can no longer be given back: an undo skips it too.
            data["seats"] = sorted(seats[seat] for seat in data["seats"] if seat in seats)
        source = data.get("source")
        if isinstance(source, dict) and "user" in source:
            data["source"] = {**source, "user": names.get(source["user"])}
        yield {
            "id": pk,
            "league": league,
            "action": action,
            "actor": actor,
            "data": data,
            "undone_at": when(undone_at),
            "created_at": when(created_at),
        }


def _usernames(data: dict[str, Any]) -> set[str]:
    names = {data["created_by"]}
    names.update(deal["recorded_by"] for deal in data["deals"])
    names.update(event["actor"] for event in data["events"])
    names.discard(None)
    return names


def whole_leagues(series: QuerySet[Series], leagues: QuerySet[League]) -> QuerySet[League]:
    """The ``leagues`` all of whose series are in ``series``: those the export holds whole."""
    outside = (
        Series.objects.filter(league__isnull=False)
        .exclude(pk__in=series.values("pk"))
        .values("league_id")
    )
    return leagues.exclude(pk__in=outside)


def _section(name: str, rows: Iterator[dict[str, Any]], users: set[str]) -> Iterator[str]:
    yield f'],\n"{name}":['
    for index, data in enumerate(rows):
        users.update(_row_usernames(data))
        yield ("\n" if index == 0 else ",\n") + _line(data)


def _row_usernames(data: dict[str, Any]) -> set[str]:
    """The usernames a club night or a change names."""
    names = {data.get("created_by"), data.get("actor")}
    source = data.get("data", {}).get("source")
    if isinstance(source, dict):
        names.add(source.get("user"))
    return {name for name in names if isinstance(name, str)}


def export_json(
    series: QuerySet[Series], *, secrets: bool = False, whole: QuerySet[League] | None = None
) -> Iterator[str]:
    """The JSON document of ``series``, in pieces to stream. ``whole``: the leagues that may be
    written whole when the export holds all their series (None: any)."""
    ids = series.values("pk")
    player_ids = Seat.objects.filter(series__in=ids).values("player_id")
    leagues = League.objects.filter(
        Q(pk__in=Series.objects.filter(pk__in=ids).values("league_id"))
        | Q(pk__in=Player.objects.filter(pk__in=player_ids).values("league_id"))
    ).order_by("pk")
    complete = whole_leagues(series, leagues)
    if whole is not None:
        complete = complete.filter(pk__in=whole.values("pk"))
    whole_ids = complete.values("pk")
    players = Player.objects.filter(Q(pk__in=player_ids) | Q(league__in=whole_ids)).select_related(
        "user"
    )
    users: set[str] = set()
    yield f'{{"format":"{FORMAT}","version":{VERSION},"secrets":{_line(secrets)},\n"leagues":['
    members = Membership.objects.select_related("user").order_by("user__username", "pk")
    if secrets:
        leagues = leagues.prefetch_related(Prefetch("memberships", queryset=members))
    for index, league in enumerate(leagues):
        data = {
            "id": league.pk,
            "name": league.name,
            "rules": league.rules,
            "created_at": when(league.created_at),
            "archived_at": when(league.archived_at),
        }
        if secrets:
            data["invite_token"] = league.invite_token
            data["invite_role"] = league.invite_role
            data["share_token"] = league.share_token
            data["members"] = [
                {"user": _name(m.user), "role": m.role, "joined_at": when(m.joined_at)}
                for m in league.memberships.all()
            ]
            users.update(m["user"] for m in data["members"])
        yield ("\n" if index == 0 else ",\n") + _line(data)
    yield '],\n"players":['
    for index, player in enumerate(players.order_by("pk")):
        data = {
            "id": player.pk,
            "name": player.name,
            "league": player.league_id,
            "user": _name(player.user),
            "created_at": when(player.created_at),
        }
        if data["user"]:
            users.add(data["user"])
        yield ("\n" if index == 0 else ",\n") + _line(data)
    yield '],\n"series":['
    count = 0
    for page in pages(series):
        for data in series_data(page, secrets=secrets):
            users.update(_usernames(data))
            yield ("\n" if count == 0 else ",\n") + _line(data)
            count += 1
    events = Event.objects.filter(league__in=whole_ids)
    yield from _section(
        "events",
        (data for page in pages(events) for data in event_data(page, secrets=secrets)),
        users,
    )
    changes = LeagueEvent.objects.filter(league__in=whole_ids)
    yield from _section(
        "changes", (data for page in pages(changes) for data in change_data(page)), users
    )
    # The closing marker: a document cut short (a worker timed out mid-stream, a download
    # interrupted) lacks it, and the import refuses it.
    yield '],\n"users":' + _line(sorted(users)) + f',\n"series_count":{count},'
    yield f'\n"{COMPLETE}":true}}\n'
