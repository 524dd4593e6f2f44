"""Standings of a league: per player, per partnership, head to head, and ratings.

Read from the running totals: a player's row under a filter is their ``RunningTotal`` at its end
minus the one before its start, the partnerships a sum of ``PairResult`` rows, so a view costs a
few index seeks per player whatever the league or the filter. A rating depends on every series
before it, in order: the one shown is the league's right after the player's last series the
filter counts (where they stood at the end of a season).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from django.db import connection
from django.db.models import (
    BigIntegerField,
    Count,
    F,
    FloatField,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Cast

from scoring import rules
from scoring.core.rulesets import ruleset_from_key
from scoring.lib import database
from scoring.lib.days import day_start, next_day_start
from scoring.models import League, PairResult, Player, RunningTotal, Seat, counted
from scoring.standings import ranking, running_totals
from scoring.standings.ranking import Ranking, rank_key
from scoring.standings.ratings import Rating
from scoring.standings.rows import PairRow, PlayerRow

#: Players shown at first (the best ranked); "everyone" shows them all.
TOP_PLAYERS = 20
#: Partnerships shown: the best of those that played at least a few series together.
PAIRS_SHOWN = 10
#: Partnerships ranked: those that played at least this many series together.
PAIR_MIN_SERIES = 3
ALL_RULES = ""


@dataclass(frozen=True)
class StandingsFilter:
    """A season (finished between two dates, both included) and a ruleset ("" for any)."""

    date_from: date | None = None
    date_to: date | None = None
    ruleset: str = ALL_RULES

    def series_q(self, league: League, prefix: str = "") -> Q:
        """The series of ``league`` whose result counts (``models.counted``) that pass the
        filter, for a query on ``prefix``."""
        conditions: dict[str, Any] = {f"{prefix}league": league}
        if self.date_from:
            conditions[f"{prefix}finished_at__gte"] = day_start(self.date_from)
        if self.date_to:
            conditions[f"{prefix}finished_at__lt"] = next_day_start(self.date_to)
        ruleset = ruleset_from_key(self.ruleset) if self.ruleset else None
        if self.ruleset and ruleset is None:
            conditions[f"{prefix}pk__in"] = []
        if ruleset is not None:
            for name, value in ruleset.to_dict().items():
                conditions[f"{prefix}rules__{name}"] = value
        return counted(prefix) & Q(**conditions)


@dataclass(frozen=True)
class Standings:
    series: int  # finished series counted
    players: list[PlayerRow]  # the best TOP_PLAYERS of them, or all
    player_count: int  # all of them
    pairs: list[PairRow]
    rulesets: list[tuple[str, rules.Ruleset]]  # played in the league, for the filter

    @property
    def pair_cells(self) -> list[tuple]:
        """Each partnership's cells in the table's order: the two names, won, goats, played,
        win percent, average defeat points (as text)."""
        return [
            (p.first, p.second, p.won, p.goats, p.played, p.win_percent, p.average_text)
            for p in self.pairs
        ]


@dataclass(frozen=True)
class Span:
    """A filter as the running totals read it: the rows before ``start`` are subtracted from
    the rows before ``end`` (None: no bound), of the ruleset ``key`` only (None: all of them)."""

    start: datetime | None
    end: datetime | None
    key: str | None

    @classmethod
    def of(cls, flt: StandingsFilter) -> Span | None:
        """None for a ruleset no series can have been played with."""
        if flt.ruleset and ruleset_from_key(flt.ruleset) is None:
            return None
        return cls(
            start=day_start(flt.date_from) if flt.date_from else None,
            end=next_day_start(flt.date_to) if flt.date_to else None,
            key=flt.ruleset or None,
        )

    def fields(self) -> tuple[str, ...]:
        counts = running_totals.COUNTS if self.key is None else running_totals.RULES_COUNTS
        series = "league_series" if self.key is None else "rules_series"
        return (*counts, series)

    def last_before(self, rows: QuerySet[RunningTotal], before: datetime | None):
        """The latest of ``rows`` before ``before``: a subquery for its pk (an index seek)."""
        if self.key is not None:
            rows = rows.filter(rules_key=self.key)
        if before is not None:
            rows = rows.filter(finished_at__lt=before)
        return Subquery(rows.order_by("-finished_at", "-series_id").values("pk")[:1])


def player_rows(league: League, span: Span) -> list[list]:
    """Every player's row under ``span``: id, the counts, then μ, σ and rated series, in one
    query of two index seeks per player (the rows at the range's end and before its start,
    subtracted in SQL). Written in SQL: the ORM needs a second query for the rows its seeks
    find, five to twelve times this one's CPU (docs/PERFORMANCE.md, "Statements written in SQL")."""
    column = database.columns(RunningTotal)
    player_id = database.columns(Player)
    totals, players = database.table(RunningTotal), database.table(Player)
    params: list = []

    def seek(before: datetime | None) -> str:
        conditions = [f"t.{column['player']} = p.{player_id['id']}"]
        if span.key is not None:
            conditions.append(f"t.{column['rules_key']} = %s")
            params.append(span.key)
        if before is not None:
            conditions.append(f"t.{column['finished_at']} < %s")
            params.append(database.stored_datetime(before))
        return (
            f"(SELECT t.{column['id']} FROM {totals} t WHERE {' AND '.join(conditions)} "
            f"ORDER BY t.{column['finished_at']} DESC, t.{column['series']} DESC LIMIT 1)"
        )

    counts = [column[name] for name in span.fields()[:-1]]
    if span.start is None:
        select = ", ".join(f"e.{name}" for name in counts)
        start_join = ""
    else:
        select = ", ".join(f"e.{name} - COALESCE(s.{name}, 0)" for name in counts)
        start_join = f" LEFT JOIN {totals} s ON s.{column['id']} = {{start}}"
    end = seek(span.end)
    start_join = start_join.format(start=seek(span.start)) if start_join else ""
    params.append(league.pk)
    sql = (
        f"SELECT p.{player_id['id']}, {select}, e.{column['mu']}, e.{column['sigma']}, "
        f"e.{column['rated']} FROM {players} p JOIN {totals} e ON e.{column['id']} = {end}"
        f"{start_join} WHERE p.{player_id['league']} = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [list(row) for row in cursor.fetchall() if row[1] > 0]


def _series_count(league: League, span: Span) -> int:
    """The series counted under ``span``: the running count at its end minus the one before."""
    rows = RunningTotal.objects.filter(league=league)
    field = span.fields()[-1]
    ends = League.objects.filter(pk=league.pk).annotate(
        end=span.last_before(rows, span.end),
        start=span.last_before(rows, span.start)
        if span.start
        else Value(None, output_field=BigIntegerField()),
    )
    end, start = ends.values_list("end", "start").get()
    numbers = dict(
        RunningTotal.objects.filter(pk__in=[pk for pk in (end, start) if pk]).values_list(
            "pk", field
        )
    )
    return max(numbers.get(end, 0) - numbers.get(start, 0), 0)  # 0 for a start after the end


def _pair_rows(league: League, span: Span) -> list[list[int]]:
    """The partnerships worth a table, best win rate first: of a league's thousands of pairs
    that met once, the best few with ``PAIR_MIN_SERIES`` series together (or any, while none
    has). Each row: the two ids, then played, won, goats, defeat points."""
    rows = PairResult.objects.filter(league=league)
    if span.start is not None:
        rows = rows.filter(finished_at__gte=span.start)
    if span.end is not None:
        rows = rows.filter(finished_at__lt=span.end)
    if span.key is not None:
        rows = rows.filter(rules_key=span.key)
    grouped = (
        rows.values("first_id", "second_id")
        .annotate(played=Count("pk"), won=Sum("won"), goats=Sum("goat"), defeat=Sum("defeat"))
        .annotate(rate=Cast(F("won"), FloatField()) / Cast(F("played"), FloatField()))
        .order_by("-rate", "-played", "first_id", "second_id")
    )
    fields = ("first_id", "second_id", "played", "won", "goats", "defeat")
    best = list(grouped.filter(played__gte=PAIR_MIN_SERIES).values_list(*fields)[:PAIRS_SHOWN])
    if not best:
        best = list(grouped.values_list(*fields)[:PAIRS_SHOWN])
    return [list(row) for row in best]


def _player_order(row: list) -> tuple:
    """The standings' rank (``ranking.rank_key``) of a row of ``player_rows``."""
    pid, _played, won, goats, *_counts, mu, sigma, _rated = row
    return rank_key(won=won, goats=goats, mu=mu, sigma=sigma, player_id=pid)


def league_standings(league: League, flt: StandingsFilter, everyone: bool = False) -> Standings:
    """The league's best ranked players (all with ``everyone``) and partnerships under ``flt``."""
    span = Span.of(flt)
    if span is None:
        every, pair_rows, series = [], [], 0
    else:
        every = player_rows(league, span)
        pair_rows = _pair_rows(league, span)
        series = _series_count(league, span)
    shown = (
        sorted(every, key=_player_order)
        if everyone
        else heapq.nsmallest(TOP_PLAYERS, every, key=_player_order)
    )
    ids = {row[0] for row in shown} | {pid for row in pair_rows for pid in row[:2]}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
    players = [
        PlayerRow(
            player_id=pid,
            name=names.get(pid, "?"),
            played=played,
            won=won,
            goats=goats,
            defeat=defeat,
            eggs=eggs,
            naked=naked,
            rating=Rating(mu=mu, sigma=sigma, series=rated) if mu is not None else None,
        )
        for pid, played, won, goats, defeat, eggs, naked, mu, sigma, rated in shown
    ]
    pairs = [
        PairRow(
            first_id=first,
            second_id=second,
            first=names.get(first, "?"),
            second=names.get(second, "?"),
            played=played,
            won=won,
            goats=goats,
            defeat=defeat,
        )
        for first, second, played, won, goats, defeat in pair_rows
    ]
    return Standings(
        series=series,
        players=players,
        player_count=len(every),
        pairs=pairs,
        rulesets=ruleset_choices(league),
    )


def ranked_standings(
    league: League, flt: StandingsFilter, *, sort: str, everyone: bool
) -> tuple[Standings, Ranking]:
    """The standings under ``flt`` and their players ranked, sorted by ``sort`` (a key of
    ``ranking.SORTS``): the best ``TOP_PLAYERS`` of them, or all of them with ``everyone``."""
    # Another sort than the rank picks its first players from all of them.
    every_row = everyone or sort != ranking.DEFAULT_SORT
    table = league_standings(league, flt, everyone=every_row)
    players = ranking.ranking(
        table.players,
        sort=sort,
        count=table.player_count,
        limit=None if everyone else TOP_PLAYERS,
    )
    return table, players


def ruleset_choices(league: League) -> list[tuple[str, rules.Ruleset]]:
    """The rulesets the league's finished series were played with, by key, presets first: a
    ruleset nobody finished a series with has no standings to show."""
    # Read afresh: ``league`` may have been loaded before a write that folded.
    keys = League.objects.filter(pk=league.pk).values_list("totals_rulesets", flat=True).get()
    ordered = sorted(keys, key=lambda key: (key not in rules.PRESETS, key))
    found = [(key, ruleset_from_key(key)) for key in ordered]
    return [(key, ruleset) for key, ruleset in found if ruleset is not None]


@dataclass(frozen=True)
class HeadToHead:
    first: Player
    second: Player
    against: int  # series on opposite sides
    first_won: int
    second_won: int
    first_goat: int
    second_goat: int
    together: int  # series as partners
    together_won: int
    together_goat: int


def head_to_head(league: League, flt: StandingsFilter, first: Player, second: Player) -> HeadToHead:
    """How two players did against each other, and side by side, in one query."""
    opposite = ~Q(side=F("series__seats__side"))
    same = Q(side=F("series__seats__side"))
    found = Seat.objects.filter(
        flt.series_q(league, "series__"), player=first, series__seats__player=second
    ).aggregate(
        against=Count("pk", filter=opposite),
        first_won=Count("pk", filter=opposite & Q(is_winner=True)),
        second_won=Count("pk", filter=opposite & Q(series__seats__is_winner=True)),
        first_goat=Count("pk", filter=opposite & Q(is_goat=True)),
        second_goat=Count("pk", filter=opposite & Q(series__seats__is_goat=True)),
        together=Count("pk", filter=same),
        together_won=Count("pk", filter=same & Q(is_winner=True)),
        together_goat=Count("pk", filter=same & Q(is_goat=True)),
    )
    return HeadToHead(first=first, second=second, **found)


def ratings_before(league: League, before: datetime | None) -> dict[int, Rating]:
    """Every rated player's rating right after their last series finished before ``before``
    (None: the latest): the running totals' rows read as a standings view reads them, two index
    seeks per player in one query (a season's end, the start of a club night)."""
    rows = player_rows(league, Span(start=None, end=before, key=None))
    return {
        row[0]: Rating(mu=row[-3], sigma=row[-2], series=row[-1])
        for row in rows
        if row[-3] is not None and row[-2] is not None
    }
