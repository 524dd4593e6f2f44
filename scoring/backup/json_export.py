"""The JSON export: a backup that ``json_import`` restores exactly.

The document (``"format": "kozel-scores"``, ``"version": 2``) holds leagues, players, series
with their seats, deals and audit events, and the usernames they mention, with ids and
timestamps as stored. It is written one series per line, in id order, keys sorted, so the same
data always gives the same bytes and a diff of two backups reads well. It is streamed in pages
of ``BATCH`` series (plain values, constant memory) and ends with ``"complete": true`` and the
number of series: a document cut short is refused by the import, never taken for a backup.

Secrets (a series' score and watch tokens, a league's invite and share tokens, and who belongs
to a league) go into the document only when ``secrets=True``: the management command writes them
so that a restored backup keeps every shared link working; the web export never does, since a
watcher must not learn the scoring link from a download. Importing a document without them
gives the series new links.
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

from scoring.models import Deal, DealEvent, League, Membership, Player, Seat, Series
from scoring.table.derived import SERIES_FIELDS

FORMAT = "kozel-scores"
#: Version 2 ends with ``"complete": true`` (``COMPLETE``); version 1 had no closing marker.
VERSION = 2
#: The key of the closing marker, the document's last: only a document read to its end has it.
COMPLETE = "complete"
BATCH = 200  # series per round of queries when exporting
DERIVED = SERIES_FIELDS
#: The derived seat fields a document holds; an import recomputes the deal figures from the deals.
SEAT_DERIVED = ("total", "is_goat", "is_winner")


def when(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _name(user) -> str | None:
    return None if user is None else user.get_username()


def _line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def series_pages(series: QuerySet[Series]) -> Iterator[list[int]]:
    """The ids of ``series`` in id order, ``BATCH`` at a time: each page one query from where
    the last ended, so memory stays the same whatever the number of series."""
    ids = series.order_by("pk").values_list("pk", flat=True).distinct()
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
            "score_token",
            "watch_token",
            *DERIVED,
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
        pk, league, mode, ruleset, dealer, created, updated, finished, by, rematch, version = row[
            :11
        ]
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
            "derived": dict(zip(DERIVED, row[13:], strict=True)),
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
                    "points": [p0, p1, p2],
                    "tricks": [t0, t1, t2],
                    "created_at": when(created_at),
                    "updated_at": when(updated_at),
                    "recorded_by": recorded_by,
                    "entry_key": _uuid(entry_key),
                }
                for (
                    number,
                    p0,
                    p1,
                    p2,
                    t0,
                    t1,
                    t2,
                    created_at,
                    updated_at,
                    recorded_by,
                    entry_key,
                ) in deals.get(pk, ())
            ],
            "events": [
                {
                    "number": number,
                    "action": action,
                    "before": before,
                    "after": after,
                    "actor": actor,
                    "via": via,
                    "created_at": when(created_at),
                    # A removed deal's key: its form stays spent in the restored database too.
                    "entry_key": _uuid(entry_key),
                }
                for number, action, before, after, actor, via, created_at, entry_key in events.get(
                    pk, ()
                )
            ],
        }
        if secrets:
            data["score_token"], data["watch_token"] = row[11], row[12]
        yield data


def _usernames(data: dict[str, Any]) -> set[str]:
    names = {data["created_by"]}
    names.update(deal["recorded_by"] for deal in data["deals"])
    names.update(event["actor"] for event in data["events"])
    names.discard(None)
    return names


def export_json(series: QuerySet[Series], *, secrets: bool = False) -> Iterator[str]:
    """The JSON document of ``series``, in pieces to stream: one series per line."""
    ids = series.values("pk")
    player_ids = Seat.objects.filter(series__in=ids).values("player_id")
    players = Player.objects.filter(pk__in=player_ids).select_related("user")
    leagues = League.objects.filter(
        Q(pk__in=Series.objects.filter(pk__in=ids).values("league_id"))
        | Q(pk__in=Player.objects.filter(pk__in=player_ids).values("league_id"))
    ).order_by("pk")
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
    for page in series_pages(series):
        for data in series_data(page, secrets=secrets):
            users.update(_usernames(data))
            yield ("\n" if count == 0 else ",\n") + _line(data)
            count += 1
    # The closing marker: a document cut short (a worker timed out mid-stream, a download
    # interrupted) lacks it, and the import refuses it.
    yield '],\n"users":' + _line(sorted(users)) + f',\n"series_count":{count},'
    yield f'\n"{COMPLETE}":true}}\n'
