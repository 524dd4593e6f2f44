"""History: the series a visitor may see, newest first, filtered, and paged by a keyset cursor
("older than series 123"), so a page costs the same few queries whatever the history's size."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from scoring.core.rulesets import CUSTOM, RULE_FAMILIES, family_settings
from scoring.core.visitors import Visitor
from scoring.history.forms import FINISHED, PLAYING
from scoring.history.rows import ROW_FIELDS, SeriesRow, series_rows
from scoring.lib.collation import sorted_by_name
from scoring.lib.days import day_start, next_day_start
from scoring.models import EventTable, League, Membership, Player, Seat, Series
from scoring.table import selectors

PAGE_SIZE = 20


def _family_q(name: str) -> Q:
    return Q(**{f"rules__{key}": value for key, value in family_settings(name).items()})


def history_filter(series: QuerySet[Series], data: dict[str, Any]) -> QuerySet[Series]:
    """``series`` narrowed by the cleaned data of a ``HistoryFilterForm``."""
    if data.get("player"):
        series = series.filter(seats__player_id=data["player"])  # one seat per player and series
    if data.get("league"):
        series = series.filter(league_id=data["league"])
    if data.get("start"):
        series = series.filter(created_at__gte=day_start(data["start"]))
    if data.get("end"):
        series = series.filter(created_at__lt=next_day_start(data["end"]))
    if data.get("mode"):
        series = series.filter(mode=data["mode"])
    family = data.get("rules")
    if family == CUSTOM:
        for name in RULE_FAMILIES:
            series = series.exclude(_family_q(name))
    elif family:
        series = series.filter(_family_q(family))
    if data.get("status") == FINISHED:
        series = series.filter(finished=True)
    elif data.get("status") == PLAYING:
        series = series.filter(finished=False)
    return series


@dataclass(frozen=True)
class HistoryPage:
    rows: list[SeriesRow]
    newer: int | None  # the cursor for ``?after=``: there are newer series
    older: int | None  # the cursor for ``?before=``: there are older series


class StaleCursor(Exception):
    """The series a page link pointed at is gone."""


def _cursor(pk: int) -> tuple[datetime, int]:
    created = Series.objects.filter(pk=pk).values_list("created_at", flat=True).first()
    if created is None:
        raise StaleCursor(pk)
    return created, pk


def history_page(
    series: QuerySet[Series],
    *,
    before: int | None = None,
    after: int | None = None,
    size: int = PAGE_SIZE,
) -> HistoryPage:
    """One page of ``series``, newest first: older than ``before`` or newer than ``after``, in
    three queries; ``StaleCursor`` when the cursor's series is gone."""
    if after is not None:
        created, pk = _cursor(after)
        newer_first = series.filter(Q(created_at__gt=created) | Q(created_at=created, pk__gt=pk))
        found = newer_first.order_by("created_at", "pk").values_list(*ROW_FIELDS)[: size + 1]
        rows = series_rows(found)
        more = len(rows) > size
        rows = rows[:size][::-1]
        return HistoryPage(
            rows=rows,
            newer=rows[0].pk if more and rows else None,
            older=rows[-1].pk if rows else None,
        )
    page = series.order_by("-created_at", "-pk")
    if before is not None:
        created, pk = _cursor(before)
        page = page.filter(Q(created_at__lt=created) | Q(created_at=created, pk__lt=pk))
    rows = series_rows(page.values_list(*ROW_FIELDS)[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    return HistoryPage(
        rows=rows,
        newer=rows[0].pk if before is not None and rows else None,
        older=rows[-1].pk if more else None,
    )


def home_context(visitor: Visitor) -> dict[str, object]:
    """The home page's games (in progress first, then the newest), and the newest of them: "Back
    to the game" while it is on, "Same table again" once it is over."""
    queryset = selectors.visible_series(visitor).order_by("finished", "-created_at", "-pk")
    recent = series_rows(queryset.values_list(*ROW_FIELDS)[:20])
    newest = max(recent, key=lambda series: (series.created_at, series.pk), default=None)
    # A club night's game is played again only in the evening's next round: never "Same table
    # again" for one.
    again = newest is not None and not EventTable.objects.filter(series_id=newest.pk).exists()
    return {"recent": recent, "newest": newest, "again": again}


def member_leagues(visitor: Visitor) -> list[tuple[int, str]]:
    """(pk, name) of the leagues the user belongs to, for the league filter."""
    if visitor.user is None:
        return []
    leagues = League.objects.filter(memberships__user=visitor.user).order_by("pk")
    return sorted_by_name(leagues.values_list("pk", "name"), lambda league: league[1])


def visible_players(visitor: Visitor) -> QuerySet[Player]:
    """Players of the user's leagues and of quick games this browser holds a link for: its cost
    follows the players and links, never the series played."""
    linked = Series.objects.filter(selectors.visible_series_filter(visitor), league__isnull=True)
    condition = Q(pk__in=Seat.objects.filter(series__in=linked).values("player_id"))
    if visitor.user is not None:
        condition |= Q(league__in=Membership.objects.filter(user=visitor.user).values("league_id"))
    return Player.objects.filter(condition)


def player_choices(players: QuerySet[Player]) -> list[tuple[int, str]]:
    return sorted_by_name(
        players.order_by("pk").values_list("pk", "name"), lambda player: player[1]
    )


@dataclass(frozen=True)
class PlayerScope:
    """The series a visitor may see a player in."""

    series: QuerySet[Series]
    whole_league: bool  # a member of the player's league: all of it, no per-series check


def player_scope(visitor: Visitor, player: Player) -> PlayerScope | None:
    """What the visitor may see of the player (None: nothing): for a member of the player's
    league the whole league, a plain condition rather than a check of each series; else the
    series they hold a link to or a league of."""
    if (
        player.league_id is not None
        and visitor.user is not None
        and Membership.objects.filter(league_id=player.league_id, user=visitor.user).exists()
    ):
        return PlayerScope(Series.objects.filter(league_id=player.league_id), whole_league=True)
    visible = selectors.visible_series(visitor)
    seen = Exists(visible.filter(pk=OuterRef("series_id")))  # seat by seat, not every series
    if not Seat.objects.filter(player=player).filter(seen).exists():
        return None
    return PlayerScope(visible, whole_league=False)
