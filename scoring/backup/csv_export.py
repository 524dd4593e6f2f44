"""The CSV exports, for spreadsheets: a series deal by deal, and a history series by series.

Text a spreadsheet would run as a formula is quoted (``_cell``); dates are in UTC, as in the
JSON export.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from scoring import rules
from scoring.backup.json_export import series_batches, when
from scoring.models import Deal, Series
from scoring.modes import Mode
from scoring.rulesets import rules_label
from scoring.table.scoreboard import build

#: Where a spreadsheet may start a cell inside our text: the file is written with commas, but a
#: spreadsheet set to semicolons (Russian Excel's default) or tabs splits the line elsewhere,
#: and one that ignores quotes starts a new row at a line break.
CELL_BREAKS = frozenset(",;\t\r\n")
#: What makes a spreadsheet read a cell as a formula (OWASP's list; tab and CR are breaks above).
FORMULA_STARTS = frozenset("=+-@")


def _cell(value: Any) -> Any:
    """A spreadsheet cell: no piece of text a spreadsheet may read as a cell starts a formula.

    Wherever a cell may start (the text's start, after any of ``CELL_BREAKS``), a formula
    character, after blanks and quotes a spreadsheet would skip, gets an apostrophe before it:
    ``y;+1+1`` becomes ``y;'+1+1``. Numbers stay numbers (a negative total is no formula).
    """
    if not isinstance(value, str) or FORMULA_STARTS.isdisjoint(value):
        return value
    marks = set()
    for start in range(len(value)):
        if start and value[start - 1] not in CELL_BREAKS:
            continue
        at = start
        while at < len(value) and (value[at].isspace() or value[at] == '"'):
            at += 1
        if at < len(value) and value[at] in FORMULA_STARTS:
            marks.add(at)
    if not marks:
        return value
    return "".join("'" + char if at in marks else char for at, char in enumerate(value))


def _csv_lines(rows: Iterable[list[Any]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([_cell(value) for value in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def series_csv(series: Series, deals: list[Deal]) -> Iterator[str]:
    """One row per deal: card points, defeat points and running totals of every side."""
    board = build(series, deals)

    def rows():
        header = [_("Deal"), _("Recorded at")]
        for side in board.sides:
            header += [
                _("%(side)s: card points") % {"side": side.name},
                _("%(side)s: defeat points") % {"side": side.name},
                _("%(side)s: total") % {"side": side.name},
            ]
        yield [*header, _("Eggs"), _("Multiplier"), _("Result")]
        for deal in board.deals:
            row = [deal.number, when(deal.row.created_at)]
            for cell in deal.cells:
                row += [cell["points"], cell["defeat"], cell["total"]]
            yield [*row, "yes" if deal.eggs else "", deal.multiplier, deal.summary]

    return _csv_lines(rows())


def history_csv(series: QuerySet[Series]) -> Iterator[str]:
    """One row per series, newest first: who played, the house rules, totals and the goat."""

    def rows():
        yield [
            _("Series"),
            _("Started"),
            _("Finished at"),
            _("League"),
            _("Game"),
            _("House rules"),
            *(_("Side %(n)s") % {"n": n} for n in range(1, rules.MAX_SIDES + 1)),
            *(_("Total %(n)s") % {"n": n} for n in range(1, rules.MAX_SIDES + 1)),
            _("Deals"),
            _("Eggs"),
            _("Finished"),
            _("Goat"),
            _("Winner"),
        ]
        for batch in series_batches(series.order_by("-created_at", "-pk")):
            for item in sorted(batch, key=lambda s: (s.created_at, s.pk), reverse=True):
                seats = list(item.seats.all())
                names = [
                    " & ".join(seat.player.name for seat in seats if seat.side == side)
                    for side in range(rules.MAX_SIDES)
                ]
                totals = [*item.totals, "", "", ""][: rules.MAX_SIDES]
                try:
                    label = rules_label(item.ruleset)
                except rules.InvalidRuleset:
                    label = ""
                yield [
                    item.pk,
                    when(item.created_at),
                    when(item.finished_at) or "",
                    item.league.name if item.league else "",
                    Mode(item.mode).label,
                    label,
                    *names,
                    *totals,
                    item.deal_count,
                    item.eggs,
                    "yes" if item.finished else "no",
                    " & ".join(names[side] for side in item.goat_sides),
                    names[item.winner_side] if item.winner_side is not None else "",
                ]

    return _csv_lines(rows())
