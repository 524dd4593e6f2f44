"""The read-only JSON feed of a league's public standings and recent results (docs/FEED.md).

Version 1: ``{"version": 1, "league": …, "series": …, "standings": […], "recent": […],
"seasons": […]}``, keys sorted, the same bytes for the same data (so its ETag holds until a
result or a name changes). Read as the public standings page reads them (the running totals)
and the league's newest finished series' stored results; never a deal.
"""

from __future__ import annotations

import json
from typing import Any

from scoring.models import League, Season, Seat, Series
from scoring.standings import ranking
from scoring.standings.selectors import StandingsFilter, ranked_standings

VERSION = 1
#: The newest finished series the feed lists.
RECENT = 20


def _recent(league: League) -> list[dict[str, Any]]:
    series = list(
        Series.objects.filter(league=league, finished=True)
        .order_by("-finished_at", "-pk")
        .values("pk", "finished_at", "mode", "ending", "totals", "winner_side", "goat_sides")[
            :RECENT
        ]
    )
    seats = Seat.objects.filter(series_id__in=[s["pk"] for s in series]).order_by("position")
    names: dict[int, dict[int, list[str]]] = {}
    for series_id, side, name in seats.values_list("series_id", "side", "player__name"):
        names.setdefault(series_id, {}).setdefault(side, []).append(name)
    found = []
    for row in series:
        sides = names.get(row["pk"], {})
        totals = list(row["totals"] or [])
        found.append(
            {
                "finished_at": row["finished_at"].isoformat() if row["finished_at"] else None,
                "mode": row["mode"],
                "ending": row["ending"],
                "sides": [
                    {
                        "players": sides[side],
                        "defeat_points": totals[side] if side < len(totals) else 0,
                        "winner": side == row["winner_side"],
                        "goat": side in (row["goat_sides"] or []),
                    }
                    for side in sorted(sides)
                ],
            }
        )
    return found


def feed_document(league: League) -> bytes:
    """The feed's bytes for ``league``."""
    table, players = ranked_standings(
        league, StandingsFilter(), sort=ranking.DEFAULT_SORT, everyone=True
    )
    seasons = Season.objects.filter(league=league).order_by("-starts_on", "-pk")
    document = {
        "version": VERSION,
        "league": {"name": league.name},
        "series": table.series,
        "standings": [
            {
                "place": entry.place,
                "player": entry.row.name,
                "won": entry.row.won,
                "goats": entry.row.goats,
                "played": entry.row.played,
                "rating": entry.rating,
                "defeat_points": entry.row.defeat,
                "eggs": entry.row.eggs,
                "naked": entry.row.naked,
            }
            for entry in players.rows
        ],
        "recent": _recent(league),
        "seasons": [
            {"name": s.name, "starts_on": s.starts_on.isoformat(), "ends_on": s.ends_on.isoformat()}
            for s in seasons
        ],
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
