"""The score sheet of a series: the scoreboard's deal table, its chart, and the audit trail in
words, so a dispute at the table ("I typed 45, not 54!") is settled by what was recorded."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from scoring.core.rulesets import rules_label
from scoring.history.charts import LineChart, defeat_chart
from scoring.models import Deal, DealEvent, Series
from scoring.table.scoreboard import Scoreboard, build, goat_title

VIA_LABELS = {
    "creator": gettext_lazy("the game's creator"),
    "score link": gettext_lazy("score link"),
    "correction": gettext_lazy("an organiser's correction after the round"),
    "watch link": gettext_lazy("watch link"),
    "account": gettext_lazy("a deleted account"),
    "import": gettext_lazy("import"),
}


@dataclass(frozen=True)
class EventRow:
    number: int
    action: str
    kind: str  # "recorded", "edited" or "removed", for CSS
    who: str
    when: object  # datetime
    before: str
    after: str


@dataclass(frozen=True)
class Sheet:
    board: Scoreboard
    chart: LineChart
    rules: str
    result: str
    events: list[EventRow]

    @property
    def series(self) -> Series:
        return self.board.series


def snapshot_text(snapshot: object, names: list[str]) -> str:
    """A deal as the audit trail stored it, in words: "Anna & Boris 45 · Vera & Gleb 75"; a
    seat's player (a club night's substitute, ``DealEvent.Action.SUBSTITUTE``): the name."""
    if not isinstance(snapshot, dict):
        return "—"
    if isinstance(snapshot.get("name"), str):
        return snapshot["name"]
    points = snapshot.get("points")
    tricks = snapshot.get("tricks")
    if not isinstance(points, list):
        return "—"
    if not isinstance(tricks, list) or len(tricks) != len(points):
        tricks = [None] * len(points)
    parts = []
    for side, (value, took) in enumerate(zip(points, tricks, strict=True)):
        if value is None or side >= len(names):
            continue
        text = f"{names[side]} {value}"
        if took is False:
            text += " " + _("(no trick)")
        parts.append(text)
    return " · ".join(parts) or "—"


def who_did(event: DealEvent) -> str:
    """The account that made the change, or how it was made without one."""
    if event.actor is not None and event.via == "correction":
        return f"{event.actor.get_username()} ({VIA_LABELS['correction']})"
    if event.actor is not None:
        return event.actor.get_username()
    return str(VIA_LABELS.get(event.via, event.via or "—"))


def event_rows(events: Iterable[DealEvent], names: list[str]) -> list[EventRow]:
    """Audit events with ``actor`` loaded, in the order they happened."""
    return [
        EventRow(
            number=event.number,
            action=event.get_action_display(),
            kind=event.action,
            who=who_did(event),
            when=event.created_at,
            before=snapshot_text(event.before, names) if event.before is not None else "",
            after=snapshot_text(event.after, names) if event.after is not None else "",
        )
        for event in events
    ]


def sheet_build(series: Series, rows: list[Deal], events: Iterable[DealEvent]) -> Sheet:
    """The sheet of a series whose seats (with players) are prefetched."""
    board = build(series, rows)
    names = [side.name for side in board.sides]
    totals = [outcome.totals for outcome in board.state.deals]
    chart = defeat_chart(
        names,
        totals,
        board.state.rules.target,
        goats=[side.index for side in board.sides if side.goat],
        winner=next((side.index for side in board.sides if side.winner), None),
    )
    if board.state.finished:
        result = goat_title(board)
    else:
        result = ngettext(
            "In progress after %(count)s deal.", "In progress after %(count)s deals.", len(rows)
        ) % {"count": len(rows)}
    return Sheet(
        board=board,
        chart=chart,
        rules=rules_label(board.state.rules),
        result=result,
        events=event_rows(events, names),
    )
