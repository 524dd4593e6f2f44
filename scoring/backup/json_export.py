"""The JSON export: a backup that ``json_import`` restores exactly.

The document (``"format": "kozel-scores"``, ``"version": 1``) holds leagues, players, series
with their seats, deals and audit events, and the usernames they mention, with ids and
timestamps as stored. It is written one series per line, in id order, keys sorted, so the same
data always gives the same bytes and a diff of two backups reads well.

Secrets (a series' score and watch tokens, a league's invite and share tokens, and who belongs
to a league) go into the document only when ``secrets=True``: the management command writes them
so that a restored backup keeps every shared link working; the web export never does, since a
watcher must not learn the scoring link from a download. Importing a document without them
gives the series new links.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from scoring.models import Deal, DealEvent, League, Membership, Player, Seat, Series
from scoring.table.derived import SERIES_FIELDS
from scoring.table.replays import row_snapshot

FORMAT = "kozel-scores"
VERSION = 1
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


def series_batches(series: QuerySet[Series]) -> Iterator[list[Series]]:
    """The series in id order with seats, deals and events loaded, a batch at a time."""
    ids = list(series.order_by("pk").values_list("pk", flat=True).distinct())
    for start in range(0, len(ids), BATCH):
        batch = (
            Series.objects.filter(pk__in=ids[start : start + BATCH])
            .select_related("created_by", "league")
            .prefetch_related(
                Prefetch(
                    "seats", queryset=Seat.objects.select_related("player").order_by("position")
                ),
                Prefetch(
                    "deals", queryset=Deal.objects.select_related("recorded_by").order_by("number")
                ),
                Prefetch(
                    "events",
                    queryset=DealEvent.objects.select_related("actor").order_by("created_at", "pk"),
                ),
            )
            .order_by("pk")
        )
        yield list(batch)


def series_data(series: Series, *, secrets: bool) -> dict[str, Any]:
    """One series as plain data, its seats, deals and events prefetched."""
    data: dict[str, Any] = {
        "id": series.pk,
        "league": series.league_id,
        "mode": series.mode,
        "rules": series.rules,
        "first_dealer": series.first_dealer,
        "created_at": when(series.created_at),
        "updated_at": when(series.updated_at),
        "finished_at": when(series.finished_at),
        "created_by": _name(series.created_by),
        "rematch_of": series.rematch_of_id,
        "version": series.version,
        "derived": {name: getattr(series, name) for name in DERIVED},
        "seats": [
            {
                "position": seat.position,
                "player": seat.player_id,
                "side": seat.side,
                **{name: getattr(seat, name) for name in SEAT_DERIVED},
            }
            for seat in series.seats.all()
        ],
        "deals": [
            {
                "number": deal.number,
                **row_snapshot(deal),
                "created_at": when(deal.created_at),
                "updated_at": when(deal.updated_at),
                "recorded_by": _name(deal.recorded_by),
                "entry_key": None if deal.entry_key is None else str(deal.entry_key),
            }
            for deal in series.deals.all()
        ],
        "events": [
            {
                "number": event.number,
                "action": event.action,
                "before": event.before,
                "after": event.after,
                "actor": _name(event.actor),
                "via": event.via,
                "created_at": when(event.created_at),
                # A removed deal's key: its form stays spent in the restored database too.
                "entry_key": None if event.entry_key is None else str(event.entry_key),
            }
            for event in series.events.all()
        ],
    }
    if secrets:
        data["score_token"] = series.score_token
        data["watch_token"] = series.watch_token
    return data


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
    first = True
    for batch in series_batches(series):
        for item in batch:
            data = series_data(item, secrets=secrets)
            users.update(_usernames(data))
            yield ("\n" if first else ",\n") + _line(data)
            first = False
    yield '],\n"users":' + _line(sorted(users)) + "}\n"
