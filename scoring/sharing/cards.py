"""What a published result says, in the current language: the preview picture's card, the
``og:title`` and ``og:description`` beside it, and the short text a Share button hands to a
chat ("Anna & Vera 12 : 4 Boris & Gleb — Boris & Gleb are the goat 🐐").

Each reads the result as stored (``Series``' derived fields, ``table.life``'s decisions; the
leaderboard; the standings): nothing here decides a result. Each result has a version that
grows when it changes (``Preview.version``), which keys its picture (``sharing.store``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.formats import date_format
from django.utils.translation import get_language, gettext, ngettext

from scoring.events import leaderboard
from scoring.models import Event, League, Series
from scoring.sharing.pictures import Card, Row
from scoring.standings.ranking import Ranking
from scoring.standings.selectors import Standings

#: Grows when the pictures are drawn differently: every picture is made again.
DRAWING = 1
GOAT = "🐐"


@dataclass(frozen=True)
class Preview:
    version: str  # the result's version: a new one makes a new picture
    title: str
    description: str
    text: str  # for a chat
    card: Card


def series_version(series: Series) -> str:
    return f"{DRAWING}.{series.version}"


def event_version(event: Event) -> str:
    """The evening's version (``leaderboard.version``: one query)."""
    return f"{DRAWING}.{leaderboard.version(event)}"


def league_version(league: League) -> str:
    return f"{DRAWING}.{league.results_version}"


def _language() -> str:
    return get_language() or "en"


def _kicker(league: League | None) -> str:
    kozel = gettext("Kozel")
    return f"{kozel} · {league.name}" if league is not None else kozel


def _goat_words(names: list[str]) -> str:
    """ "Boris & Gleb are the goat 🐐"."""
    joined = " & ".join(names)
    return (
        ngettext("%(names)s is the goat", "%(names)s are the goat", len(names)) % {"names": joined}
        + f" {GOAT}"
    )


def series_sides(series: Series) -> list[list[str]]:
    """Each side's player names (the seats loaded with their players)."""
    sides: dict[int, list[str]] = {}
    for seat in series.seats.all():
        sides.setdefault(seat.side, []).append(seat.player.name)
    return [sides[side] for side in sorted(sides)]


def series_preview(series: Series) -> Preview:
    sides = series_sides(series)
    totals = list(series.totals) or [0] * len(sides)
    totals += [0] * (len(sides) - len(totals))
    named = [" & ".join(names) for names in sides]
    if len(sides) == 2:
        score = f"{named[0]} {totals[0]} : {totals[1]} {named[1]}"
    else:
        score = " · ".join(f"{name} {total}" for name, total in zip(named, totals, strict=True))
    goats = [name for side in series.goat_sides for name in sides[side] if side < len(sides)]
    if series.finished:
        if goats:
            outcome = _goat_words(goats)
        elif series.winner_side is not None:
            outcome = gettext("%(names)s won") % {"names": named[series.winner_side]}
        else:
            outcome = gettext("A tie")
        footer = (
            gettext("Finished %(day)s") % {"day": date_format(series.finished_at, "DATE_FORMAT")}
            if series.finished_at
            else ""
        )
    else:
        outcome = ngettext(
            "In play: %(count)s deal so far", "In play: %(count)s deals so far", series.deal_count
        ) % {"count": series.deal_count}
        footer = ""
    rows = []
    for side, (name, total) in enumerate(zip(named, totals, strict=True)):
        mark = (
            "goat"
            if side in series.goat_sides
            else "winner"
            if series.finished and side == series.winner_side
            else ""
        )
        rows.append(Row(name, str(total), mark))
    text = f"{score} — {outcome}"
    card = Card(
        kicker=_kicker(series.league),
        title=outcome.removesuffix(f" {GOAT}"),
        rows=rows,
        footer=footer or gettext("Defeat points: the fewest win"),
        language=_language(),
    )
    return Preview(
        version=series_version(series),
        title=f"{score} · {gettext('Kozel')}",
        description=text,
        text=text,
        card=card,
    )


def event_preview(event: Event, board: leaderboard.Board, version: str) -> Preview:
    """A club night's result (``version``: ``event_version``'s): the leaders (the winners, once
    it is over) and the most goats."""
    lines = board.lines[:5]
    rows = [
        Row(
            f"{line.place}. {line.name}",
            ngettext("%(count)s won", "%(count)s won", line.won) % {"count": line.won},
            "winner" if line.place == 1 and line.won else "",
        )
        for line in lines
    ]
    winners = board.winners
    if winners and board.final:
        headline = gettext("Won by %(names)s") % {"names": ", ".join(winners)}
    elif winners:
        headline = gettext("Leading: %(names)s") % {"names": ", ".join(winners)}
    else:
        headline = gettext("No series won yet")
    text = f"{event.name}: {headline}"
    if board.most_goats:
        text += (
            " — "
            + gettext("the most goats: %(names)s (%(count)s)")
            % {
                "names": ", ".join(board.most_goats.names),
                "count": board.most_goats.value,
            }
            + f" {GOAT}"
        )
    footer = date_format(event.created_at, "DATE_FORMAT")
    return Preview(
        version=version,
        title=f"{event.name} · {event.league.name}",
        description=text,
        text=text,
        card=Card(
            kicker=_kicker(event.league),
            title=f"{event.name}: {headline}",
            rows=rows,
            footer=footer,
            language=_language(),
        ),
    )


def league_preview(league: League, standings: Standings, players: Ranking) -> Preview:
    """A league's public standings: the first five."""
    rows = [
        Row(
            f"{entry.place}. {entry.row.name}",
            ngettext("%(count)s won", "%(count)s won", entry.row.won) % {"count": entry.row.won},
            "winner" if entry.place == 1 and entry.row.won else "",
        )
        for entry in players.rows[:5]
    ]
    # The words the public standings page has always declared (and its tests hold).
    description = " ".join(
        render_to_string("scoring/leagues/_og_description.txt", {"standings": standings}).split()
    )
    return Preview(
        version=league_version(league),
        title=gettext("%(league)s: Kozel standings") % {"league": league.name},
        description=description,
        text=f"{league.name}: {description}",
        card=Card(
            kicker=gettext("Kozel standings"),
            title=league.name,
            rows=rows,
            footer=description,
            language=_language(),
        ),
    )
