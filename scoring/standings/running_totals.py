"""A league's running totals: per player, after each finished series, everything counted so far.

For each finished series in finishing order ``(finished_at, pk)``, ``totals_fold`` stores a
``RunningTotal`` row per seat (the player's counts over the league's series up to it, the same
over its ruleset's, and the rating after it: ratings depend on the order) and a ``PairResult``
row per partnership, so a standings view under any filter costs a few index seeks per player
and only reads. ``League.totals_until`` marks how far the rows go; every write that finishes or
changes a finished league series ends with ``results_changed``, which refolds from that series
on, in the write's transaction.

Here rather than in ``leagues``: the table's writes fold, and ``table`` imports no part of
``leagues``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import Any

from django.db import connection, transaction
from django.db.models import F, OuterRef, Q, QuerySet, Subquery

from scoring import rules
from scoring.core.modes import Mode
from scoring.core.rulesets import ruleset_key
from scoring.lib import database
from scoring.models import League, PairResult, Player, RunningTotal, Seat, counted
from scoring.standings.ratings import RatingState, SeatResult, rate_match

#: One row per seat of a finished series, as the fold reads them.
SEAT_ROW = (
    "series_id",
    "series__finished_at",
    "series__mode",
    "series__rules",
    "series__eggs",
    "player_id",
    "side",
    "total",
    "is_winner",
    "is_goat",
    "deals_naked",
)
#: A player's counts, in the order of ``RunningTotal``'s fields (and ``rules_`` + each).
COUNTS = ("played", "won", "goats", "defeat", "eggs", "naked")
RULES_COUNTS = tuple(f"rules_{name}" for name in COUNTS)
#: The columns of a ``RunningTotal`` and a ``PairResult`` row, as the fold writes them.
TOTAL_COLUMNS = (
    "league",
    "series",
    "player",
    "finished_at",
    "rules_key",
    *COUNTS,
    *RULES_COUNTS,
    "mu",
    "sigma",
    "rated",
    "league_series",
    "rules_series",
)
PAIR_COLUMNS = (
    "league",
    "series",
    "first",
    "second",
    "finished_at",
    "rules_key",
    "won",
    "goat",
    "defeat",
)
#: The league's fields that say how far its totals go.
MARK = ("totals_until", "totals_until_series", "totals_rulesets")
#: Rows written per INSERT.
WRITE_BATCH = 2000

Position = tuple[datetime, int]


@dataclass
class _Player:
    """What the fold carries for one player: its counts so far, overall and per ruleset."""

    counts: list[int]
    by_rules: dict[str, list[int]]


def rules_key_of(data) -> str:
    """The series' ruleset key, "" for stored house rules that do not parse."""
    try:
        return ruleset_key(rules.Ruleset.from_dict(data))
    except (rules.InvalidRuleset, TypeError, AttributeError):
        return ""


def _pending(league_id: int, until: tuple) -> QuerySet[Seat]:
    """The seats of the league's series whose result counts (``models.counted``) after
    ``until``."""
    seats = Seat.objects.filter(counted("series__"), series__league_id=league_id)
    if until[0] is not None:
        at, pk = until
        # A range on the series' index (league, finished_at), less the few series at ``at``.
        seats = seats.filter(series__finished_at__gte=at).exclude(
            series__finished_at=at, series_id__lte=pk
        )
    return seats


@transaction.atomic
def totals_fold(*, league_id: int) -> int:
    """Fold the league's finished series after its ``totals_until`` mark into running totals;
    how many. Locks the league's row (``results_changed``, its caller, holds it already), so
    folds and the writes that move the mark back never interleave."""
    league = League.objects.select_for_update().only(*MARK).get(pk=league_id)
    return _fold(league, (league.totals_until, league.totals_until_series))


def _fold(league: League, until: tuple) -> int:
    pending = _pending(league.pk, until)
    before = _Before(league.pk, until, pending.values("player_id"))
    players: dict[int, _Player] = {}
    ratings: RatingState = {}
    keys: dict[str, str] = {}
    rulesets = set(league.totals_rulesets)
    totals: list[tuple] = []  # rows of TOTAL_COLUMNS
    pairs: list[tuple] = []  # rows of PAIR_COLUMNS
    when = database.stored_datetime  # as the ORM stores a datetime, for the INSERTs
    folded = 0
    last: Position | None = None
    # The league's series counted so far, overall ("" is not a key: None) and per ruleset.
    numbers: dict[str | None, int] = {}
    ordered = pending.order_by("series__finished_at", "series_id", "position")
    rows = ordered.values_list(*SEAT_ROW).iterator(chunk_size=WRITE_BATCH)
    for (series_id, finished_at), group in groupby(rows, key=lambda row: row[:2]):
        seats = list(group)
        _id, _at, mode, ruleset, eggs = seats[0][:5]
        text = repr(sorted(ruleset.items())) if isinstance(ruleset, dict) else repr(ruleset)
        if text not in keys:
            keys[text] = rules_key_of(ruleset)
        key = keys[text]
        if key:
            rulesets.add(key)
        _load(before, [seat[5] for seat in seats], key, players, ratings)
        for counter in (None, key):
            if counter not in numbers:
                numbers[counter] = _series_before(league.pk, until, counter)
            numbers[counter] += 1
        results = []
        for *_series, player, side, total, won, goat, _naked in seats:
            results.append(SeatResult(player, side, total, won, goat))
        rate_match(ratings, results)
        sides: dict[int, list[int]] = {}
        for result, seat in zip(results, seats, strict=True):
            naked = seat[-1]
            add = (1, int(result.is_winner), int(result.is_goat), result.total, eggs, naked)
            state = players[result.player_id]
            state.counts = [a + b for a, b in zip(state.counts, add, strict=True)]
            by_rules = state.by_rules[key] = [
                a + b for a, b in zip(state.by_rules[key], add, strict=True)
            ]
            mu, sigma, rated = ratings.get(result.player_id, (None, None, 0))
            totals.append(
                (
                    league.pk,
                    series_id,
                    result.player_id,
                    when(finished_at),
                    key,
                    *state.counts,
                    *by_rules,
                    mu,
                    sigma,
                    rated,
                    numbers[None],
                    numbers[key],
                )
            )
            sides.setdefault(result.side, []).append(result.player_id)
        if mode == Mode.TEAMS:
            for result in results:
                partners = sides[result.side]
                if len(partners) == 2 and result.player_id == min(partners):
                    pairs.append(
                        (
                            league.pk,
                            series_id,
                            min(partners),
                            max(partners),
                            when(finished_at),
                            key,
                            int(result.is_winner),
                            int(result.is_goat),
                            result.total,
                        )
                    )
        folded += 1
        last = (finished_at, series_id)
        if len(totals) >= WRITE_BATCH:
            totals_write(totals, pairs)
    totals_write(totals, pairs)
    if last is not None:
        league.totals_until, league.totals_until_series = last
        league.totals_rulesets = sorted(rulesets)
        league.save(update_fields=["totals_until", "totals_until_series", "totals_rulesets"])
    return folded


def totals_write(totals: list[tuple], pairs: list[tuple]) -> None:
    """Insert the fold's rows (in the order of ``TOTAL_COLUMNS`` and ``PAIR_COLUMNS``, their
    moments as ``database.stored_datetime`` gives them) with one prepared statement each: the
    ORM's ``bulk_create`` makes a model instance of each row, field by field, which costs three
    times the CPU of a whole league's fold (docs/PERFORMANCE.md, "Statements written in SQL")."""
    with connection.cursor() as cursor:
        for model, fields, rows in (
            (RunningTotal, TOTAL_COLUMNS, totals),
            (PairResult, PAIR_COLUMNS, pairs),
        ):
            if rows:
                column = database.columns(model)
                names = ", ".join(column[name] for name in fields)
                marks = ", ".join(["%s"] * len(fields))
                cursor.executemany(
                    f"INSERT INTO {database.table(model)} ({names}) VALUES ({marks})", rows
                )
    totals.clear()
    pairs.clear()


class _Before:
    """The players' last rows up to ``until``, where the fold starts from: one query overall and
    one per ruleset, an index seek per player (a query per player and ruleset made a change to a
    series long ago, which refolds a thousand series, cost seconds)."""

    def __init__(self, league_id: int, until: tuple, ids: QuerySet) -> None:
        self.league_id, self.until, self.ids = league_id, until, ids
        self.rows: dict[str | None, dict[int, RunningTotal]] = {}

    def last(self, pid: int, key: str | None) -> RunningTotal | None:
        """``pid``'s last row up to ``until`` (of ruleset ``key``, or of any)."""
        if self.until[0] is None:
            return None
        if key not in self.rows:
            # By player only (a player's rows are all of their league's): the seek is on the
            # player's index, not a walk down the league's.
            rows = RunningTotal.objects.filter(player_id=OuterRef("pk"))
            if key is not None:
                rows = rows.filter(rules_key=key)
            last = _up_to(rows, self.until).order_by("-finished_at", "-series_id").values("pk")
            found = Player.objects.filter(pk__in=self.ids).annotate(last=Subquery(last[:1]))
            ids = [pk for pk in found.values_list("last", flat=True) if pk is not None]
            self.rows[key] = {row.player_id: row for row in RunningTotal.objects.filter(pk__in=ids)}
        return self.rows[key].get(pid)


def _load(
    before: _Before,
    ids: list[int],
    key: str,
    players: dict[int, _Player],
    ratings: RatingState,
) -> None:
    """The state before the fold of the players ``ids`` (and of their counts under ``key``)."""
    for pid in ids:
        state = players.get(pid)
        if state is None:
            last = before.last(pid, None)
            if last is None:
                state = _Player([0] * len(COUNTS), {})
            else:
                state = _Player([getattr(last, name) for name in COUNTS], {})
                if last.mu is not None and last.sigma is not None:
                    ratings[pid] = (last.mu, last.sigma, last.rated)
            players[pid] = state
        if key not in state.by_rules:
            last = before.last(pid, key)
            state.by_rules[key] = (
                [0] * len(COUNTS)
                if last is None
                else [getattr(last, name) for name in RULES_COUNTS]
            )


def _up_to(rows: QuerySet[RunningTotal], until: tuple) -> QuerySet[RunningTotal]:
    """``rows`` up to ``until`` in the finishing order: a range on an index ending in
    ``(finished_at, series)``, less the few rows at ``until``'s moment that come after it."""
    at, pk = until
    return rows.filter(finished_at__lte=at).exclude(finished_at=at, series_id__gt=pk)


def _series_before(league_id: int, until: tuple, key: str | None) -> int:
    """The league's series (of ruleset ``key``, or all) folded up to ``until``."""
    if until[0] is None:
        return 0
    query = _up_to(RunningTotal.objects.filter(league_id=league_id), until)
    if key is not None:
        query = query.filter(rules_key=key)
    field = "league_series" if key is None else "rules_series"
    found = query.order_by("-finished_at", "-series_id").values_list(field, flat=True).first()
    return found or 0


def results_changed(league_id: int, *, since: tuple[datetime | None, int]) -> None:
    """A finished series of the league changed, or one finished, at ``since`` in the finishing
    order: the running totals from there on are deleted, ``totals_until`` moved back before it
    (nothing to delete for a series ending after the mark, the common case) and the rest folded
    again. The league's row stays locked to the end of the transaction, so no fold writes totals
    for a series meanwhile changed."""
    league = (
        League.objects.select_for_update()
        .only("totals_until", "totals_until_series", "totals_rulesets", "results_version")
        .get(pk=league_id)
    )
    changes: dict[str, Any] = {"results_version": F("results_version") + 1}
    at, pk = since
    until = (league.totals_until, league.totals_until_series)
    if at is not None and until[0] is not None and (at, pk) <= until:
        # From ``since`` on: a range on the index (league, finished_at, series).
        later = Q(finished_at__gte=at) & ~Q(finished_at=at, series_id__lt=pk)
        totals = RunningTotal.objects.filter(league_id=league_id)
        removed = set(totals.filter(later).values_list("rules_key", flat=True).distinct())
        totals.filter(later).delete()
        PairResult.objects.filter(later, league_id=league_id).delete()
        last = (
            totals.order_by("-finished_at", "-series_id")
            .values_list("finished_at", "series_id")
            .first()
        )
        changes["totals_until"], changes["totals_until_series"] = last or (None, None)
        # A ruleset whose series are all gone is no longer offered (an index seek per ruleset).
        gone = {key for key in removed if not totals.filter(rules_key=key).exists()}
        changes["totals_rulesets"] = [key for key in league.totals_rulesets if key not in gone]
    League.objects.filter(pk=league_id).update(**changes)
    totals_fold(league_id=league_id)
