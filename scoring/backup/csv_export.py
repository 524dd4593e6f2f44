"""The CSV exports, for spreadsheets: a series deal by deal, and a history series by series."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from scoring import rules
from scoring.backup.json_export import BATCH, when
from scoring.core.modes import Mode
from scoring.core.rulesets import rules_label
from scoring.models import Deal, Ending, Seat, Series
from scoring.table.scoreboard import build

#: The first character of a CSV download: spreadsheets then read it as UTF-8 (Cyrillic names).
BOM = "\ufeff"
#: How a history export ends: a download cut short lacks this line (not translated: a program
#: checks it).
END_MARK = "# end of export:"
#: Where a spreadsheet may start a cell inside our text: the file is written with commas, but a
#: spreadsheet set to semicolons (Russian Excel's default) or tabs splits the line elsewhere,
#: and one that ignores quotes starts a new row at a line break.
CELL_BREAKS = frozenset(",;\t\r\n")
#: What makes a spreadsheet read a cell as a formula (OWASP's list; tab and CR are breaks above).
FORMULA_STARTS = frozenset("=+-@")


def _cell(value: Any) -> Any:
    """A spreadsheet cell: wherever a cell may start (the text's start, after any of
    ``CELL_BREAKS``), a formula character after skippable blanks and quotes gets an apostrophe
    before it (``y;+1+1`` becomes ``y;'+1+1``); numbers stay numbers."""
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


def csv_lines(rows: Iterable[list[Any]]) -> Iterator[str]:
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
        for deal, stored in zip(board.deals, deals, strict=True):
            row = [deal.number, when(stored.created_at)]
            for cell in deal.cells:
                row += [cell["points"], cell["defeat"], cell["total"]]
            yield [*row, "yes" if deal.eggs else "", deal.multiplier, deal.summary]

    return csv_lines(rows())


def _newest_first(series: QuerySet[Series]) -> Iterator[list[tuple]]:
    """``series`` newest first as plain values (``HISTORY_VALUES``), ``BATCH`` at a time: each
    page one query from where the last ended, so memory stays the same whatever their number."""
    ordered = series.order_by("-created_at", "-pk").distinct()
    last: tuple | None = None
    while True:
        page = ordered
        if last is not None:
            page = page.filter(Q(created_at__lt=last[0]) | Q(created_at=last[0], pk__lt=last[1]))
        rows = list(page.values_list(*HISTORY_VALUES)[:BATCH])
        if not rows:
            return
        yield rows
        last = (rows[-1][1], rows[-1][0])


#: A history row's series, as ``_newest_first`` reads it: no deal is read.
HISTORY_VALUES = (
    "pk",
    "created_at",
    "finished_at",
    "league__name",
    "mode",
    "rules",
    "totals",
    "deal_count",
    "eggs",
    "finished",
    "goat_sides",
    "winner_side",
    "ending",
)


def history_csv(series: QuerySet[Series]) -> Iterator[str]:
    """One row per series, newest first, from the figures stored on each series and its seats
    (never a deal); then ``# end of export: N series``, the line a download cut short lacks."""
    labels: dict[str, str] = {}

    def label_of(ruleset) -> str:
        text = repr(sorted(ruleset.items())) if isinstance(ruleset, dict) else repr(ruleset)
        if text not in labels:
            try:
                labels[text] = rules_label(rules.Ruleset.from_dict(ruleset))
            except (rules.InvalidRuleset, TypeError, AttributeError):
                labels[text] = ""
        return labels[text]

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
            _("How it ended"),
        ]
        modes = {mode.value: mode.label for mode in Mode}
        for page in _newest_first(series):
            seated: dict[int, list[list[str]]] = {}
            for series_id, side, name in (
                Seat.objects.filter(series_id__in=[row[0] for row in page])
                .order_by("position")
                .values_list("series_id", "side", "player__name")
            ):
                sides = seated.setdefault(series_id, [[] for _side in range(rules.MAX_SIDES)])
                sides[side].append(name)
            for row in page:
                pk, created, ended, league, mode, ruleset, totals = row[:7]
                deal_count, eggs, finished, goat_sides, winner_side, ending = row[7:]
                sides = seated.get(pk) or [[] for _side in range(rules.MAX_SIDES)]
                names = [" & ".join(side) for side in sides]
                yield [
                    pk,
                    when(created),
                    when(ended) or "",
                    league or "",
                    modes.get(mode, mode),
                    label_of(ruleset),
                    *names,
                    *[*totals, "", "", ""][: rules.MAX_SIDES],
                    deal_count,
                    eggs,
                    "yes" if finished else "no",
                    " & ".join(names[side] for side in goat_sides),
                    names[winner_side] if winner_side is not None else "",
                    Ending(ending).label if ending else "",
                ]

    count = -1  # the header is no series
    for line in csv_lines(rows()):
        count += 1
        yield line
    yield f"{END_MARK} {count} series\n"
