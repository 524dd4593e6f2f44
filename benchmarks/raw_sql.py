"""Benchmark: each statement the site writes in SQL against the ORM's way of asking the same.

docs/PERFORMANCE.md ("Statements written in SQL") keeps a statement in SQL only for a reason this
measures, on the demo league of ``make demo-data`` (200 players, 5,000 series):

- the live poll (``table.live.live_version``), against the same join built by the ORM;
- the health check's ``SELECT 1`` (``web.middleware.healthz``), against the ORM's smallest
  question (``League.objects.exists()``);
- the standings' rows (``standings.selectors.player_rows``) under three filters, against the
  ORM's two queries (the rows' ids by ``Subquery``, then the rows) and a subtraction in Python;
- a whole league's fold (``standings.running_totals.totals_fold``), its rows written by
  ``totals_write`` (prepared INSERTs) or by ``bulk_create``, in a transaction rolled back.

Each pair is checked to give the same answer, then timed in one process: the CPU time of a call
(``time.process_time``: on PostgreSQL the database's own work is not counted), best and median of
``REPEATS`` after a warm-up, in ``ROUNDS`` rounds that alternate the two ways. On a machine shared
with other work, compare within one run and repeat it.

Runs on ``DATABASE_URL`` when set (the demo league is generated there when the database has no
league), else on the history benchmark's demo SQLite database in ``$BENCH_DIR`` (made when
missing). Run with ``make bench`` or ``.venv/bin/python benchmarks/raw_sql.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

from quick import scaled

ROOT = Path(__file__).resolve().parent.parent
REPEATS = scaled(200, 3)
ROUNDS = scaled(3, 1)
FOLD_ROUNDS = scaled(2, 1)


def setup() -> None:
    """Django on ``DATABASE_URL``, or on the history benchmark's demo database."""
    sys.path.insert(0, str(ROOT))
    import history_pages

    if "DATABASE_URL" not in os.environ:
        history_pages.BENCH_DIR.mkdir(parents=True, exist_ok=True)
        path = history_pages.BENCH_DIR / history_pages.SIZES["demo"]["file"]
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    history_pages.prepare("demo")


def timed(call: Callable[[], object]) -> list[float]:
    """The CPU time of each of ``REPEATS`` calls, in ms, after three uncounted ones."""
    for _ in range(3):
        call()
    times = []
    for _ in range(REPEATS):
        started = time.process_time()
        call()
        times.append((time.process_time() - started) * 1000)
    return times


def compare(title: str, ways: dict[str, Callable[[], object]]) -> None:
    """Check that every way gives the same answer, then time them, rounds alternating."""
    answers = [way() for way in ways.values()]
    assert all(answer == answers[0] for answer in answers), title
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(ROUNDS):
        for name, way in ways.items():
            times[name] += timed(way)
    print(title)
    for name, found in times.items():
        print(
            f"  {name:<44} CPU a call: best {min(found):7.3f} ms, "
            f"median {statistics.median(found):7.3f} ms"
        )


def live_poll() -> None:
    from django.db.models import Q

    from scoring.models import Table
    from scoring.table.live import live_version

    table = Table.objects.exclude(series=None).exclude(score_token=None).order_by("pk").first()
    assert table is not None and table.score_token is not None
    token = table.score_token

    def orm() -> str | None:
        found = (
            Table.objects.filter(Q(score_token=token) | Q(watch_token=token))
            .values_list("event__version", "series_id", "series__version")
            .first()
        )
        if found is None:
            return None
        event_version, series_id, series_version = found
        if series_id is None:
            return f"{event_version or 0}.0.0"
        return f"{event_version or 0}.{series_id}.{series_version}"

    compare(
        "A table phone's poll (table.live.live_version)",
        {"SQL written out (one statement)": lambda: live_version(token), "ORM": orm},
    )


def health_check() -> None:
    from django.db import connection

    from scoring.models import League

    def select_one() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)

    compare(
        "The health check (web.middleware.healthz)",
        {"SELECT 1": select_one, "ORM: League.objects.exists()": League.objects.exists},
    )


def standings_rows() -> None:
    from django.db.models import BigIntegerField, OuterRef, Value

    from scoring.models import League, Player, RunningTotal
    from scoring.standings.selectors import Span, StandingsFilter, player_rows

    league = League.objects.order_by("pk").first()
    assert league is not None
    key = RunningTotal.objects.exclude(rules_key="").values_list("rules_key", flat=True).first()

    def orm(span: Span) -> list[list]:
        """The rows' ids by two ``Subquery`` seeks per player, then the rows, subtracted here."""
        totals = RunningTotal.objects.filter(player=OuterRef("pk"))
        found = Player.objects.filter(league=league).annotate(
            end=span.last_before(totals, span.end),
            start=span.last_before(totals, span.start)
            if span.start
            else Value(None, output_field=BigIntegerField()),
        )
        pairs = list(found.values_list("pk", "end", "start"))
        counts = span.fields()[:-1]
        wanted = [pk for _player, *ids in pairs for pk in ids if pk is not None]
        stored = {
            pk: values
            for pk, *values in RunningTotal.objects.filter(pk__in=wanted).values_list(
                "pk", *counts, "mu", "sigma", "rated"
            )
        }
        rows = []
        for player, end, start in pairs:
            if end is None:
                continue
            values = stored[end]
            before = stored[start][: len(counts)] if start is not None else [0] * len(counts)
            row = [a - b for a, b in zip(values[: len(counts)], before, strict=True)]
            if row[0] > 0:
                rows.append([player, *row, *values[len(counts) :]])
        return rows

    for label, flt in (
        ("all", StandingsFilter()),
        ("a season", StandingsFilter(date_from=date(2025, 1, 1), date_to=date(2025, 12, 31))),
        ("a ruleset from a date", StandingsFilter(date_from=date(2025, 3, 1), ruleset=key or "")),
    ):
        span = Span.of(flt)
        assert span is not None

        def sql(span: Span = span) -> list[list]:
            return sorted(player_rows(league, span))

        def built(span: Span = span) -> list[list]:
            return sorted(orm(span))

        compare(
            f"The standings' rows, {label} (standings.selectors.player_rows)",
            {
                "SQL written out (one statement)": sql,
                "ORM: ids, then the rows (two queries)": built,
            },
        )


class Rollback(Exception):
    """Undoes a timed fold."""


def whole_fold() -> None:
    from django.db import transaction

    from scoring.models import League, PairResult, RunningTotal
    from scoring.standings import running_totals

    league = League.objects.order_by("pk").first()
    assert league is not None
    fields = {"league", "series", "player", "first", "second"}

    def moment(value: object) -> datetime:
        """A moment as the fold hands it to its INSERTs, back as the datetime the ORM takes."""
        if isinstance(value, datetime):
            return value
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)  # SQLite's UTC text

    def bulk_create(totals: list[tuple], pairs: list[tuple]) -> None:
        """The same rows written by the ORM, as model instances."""
        for model, columns, rows in (
            (RunningTotal, running_totals.TOTAL_COLUMNS, totals),
            (PairResult, running_totals.PAIR_COLUMNS, pairs),
        ):
            names = [f"{name}_id" if name in fields else name for name in columns]
            at = columns.index("finished_at")
            model.objects.bulk_create(
                [
                    model(
                        **dict(
                            zip(names, (*row[:at], moment(row[at]), *row[at + 1 :]), strict=True)
                        )
                    )
                    for row in rows
                ]
            )
        totals.clear()
        pairs.clear()

    def fold(write: Callable[[list[tuple], list[tuple]], None]) -> tuple[float, float, int]:
        kept = running_totals.totals_write
        running_totals.totals_write = write  # the fold's writer, swapped for the measure
        try:
            with transaction.atomic():
                RunningTotal.objects.filter(league=league).delete()
                PairResult.objects.filter(league=league).delete()
                League.objects.filter(pk=league.pk).update(
                    totals_until=None, totals_until_series=None, totals_rulesets=[]
                )
                wall, cpu = time.perf_counter(), time.process_time()
                folded = running_totals.totals_fold(league_id=league.pk)
                took = (time.process_time() - cpu, time.perf_counter() - wall, folded)
                raise Rollback
        except Rollback:
            return took
        finally:
            running_totals.totals_write = kept

    print("A whole league's fold (standings.running_totals.totals_fold)")
    for _ in range(FOLD_ROUNDS):
        for name, write in (
            ("prepared INSERTs (totals_write)", running_totals.totals_write),
            ("ORM: bulk_create", bulk_create),
        ):
            cpu, wall, folded = fold(write)
            print(f"  {name:<44} {folded:,} series: CPU {cpu:6.2f} s, wall {wall:6.2f} s")


def main() -> None:
    setup()
    from django.db import connection

    print(f"{connection.vendor}, {REPEATS} calls a way in each of {ROUNDS} rounds")
    live_poll()
    health_check()
    standings_rows()
    whole_fold()


if __name__ == "__main__":
    main()
