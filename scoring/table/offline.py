"""The phone offline: the installable app's service worker and what a scoring phone needs to
keep deals without a network (the server's side of static/js/offline.js and sw.js).

The service worker (``templates/scoring/sw.js``, served at ``/sw.js`` so that its scope is the
whole site) keeps the app shell in a cache named after ``app_version()``: a deploy that changes
any shell file, or the ``APP_VERSION`` setting, changes the name, and the new worker deletes the
old cache when it takes over. It keeps the scoreboards this phone opened in a cache named after
the ``X-Kozel-Viewer`` header of the page (``web.middleware.ViewerMiddleware``), so a page of
one account is never shown to another: a page of another viewer, a login and a logout clear
that cache.

A scoring phone's board carries ``board_data``: the house rules, the seats and each recorded
deal's raw points and tricks, which offline.js replays with kozel-rules.js to score the deals it
keeps. A deal counts as recorded on the phone only on an answer that says so
(``RECORDED_HEADER``): any other answer keeps it waiting.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse

from scoring.table import life
from scoring.table.replays import entered_sides
from scoring.table.scoreboard import Scoreboard

# The app shell: what any kept page needs to open with no network (the offline page beside it).
SHELL_FILES = (
    "css/app.css",
    "vendor/htmx.min.js",
    "js/app.js",
    "js/offline.js",
    "js/kozel-rules.js",
    "img/goat.svg",
)
ICONS = (
    ("img/app/icon-192.png", "192x192", "any"),
    ("img/app/icon-512.png", "512x512", "any"),
    ("img/app/icon-maskable-512.png", "512x512", "maskable"),
)
#: On the answer to a deal form whose deal is on the record (new, or found again by its key):
#: its number. Only such an answer takes a waiting deal off the phone.
RECORDED_HEADER = "X-Kozel-Recorded"
#: On the answer to a deal sent to the organiser as a proposal (``table.proposals``): its key.
PROPOSED_HEADER = "X-Kozel-Proposed"


@cache
def _shell_digest() -> str:
    """A digest of the shell's files and the worker's own source, read once per process."""
    digest = hashlib.sha256()
    paths = [finders.find(name) for name in SHELL_FILES]
    paths.append(str(settings.BASE_DIR / "templates" / "scoring" / "sw.js"))
    for path in paths:
        with open(str(path), "rb") as file:
            digest.update(file.read())
    return digest.hexdigest()[:12]


def app_version() -> str:
    """What names the service worker's caches: the ``APP_VERSION`` setting (a deploy's build
    id) and the digest of the shell, so that either changing makes phones update."""
    explicit = getattr(settings, "APP_VERSION", "")
    return f"{explicit}-{_shell_digest()}" if explicit else _shell_digest()


def shell_urls() -> list[str]:
    return [static(name) for name in SHELL_FILES]


def board_data(
    board: Scoreboard, *, proposals: list[dict], club_night: bool, correction: bool = False
) -> dict[str, Any]:
    """The scoreboard as the phone's engine replays it: the same deals, the same rules; whether
    the game takes a next deal and why not (``life.deal_refusal``: what the phone cannot decide
    alone, such as a round the organiser closed), and the deals proposed to the organiser from
    this table with what became of each (``proposals``: ``selectors.proposals_at``);
    ``club_night``: whether it is a club night's game, whose organiser decides them;
    ``correction``: the board's deal form is an organiser's correction of a closed game, which
    neither its closing nor its round's deal limit stops."""
    series = board.series
    stop = life.deal_refusal(series, correction=correction)
    shape = series.shape
    deals = []
    for row in board.rows:
        sides = entered_sides(row)
        deals.append(
            [[row.points[side] for side in sides], [bool(row.tricks[side]) for side in sides]]
        )
    return {
        "series": series.pk,
        "version": series.version,
        "next": board.next_number,
        # A club night's round of N deals: the phone takes no deal past it, offline too; nor
        # any once the game takes none ("stop": over, full, limit, closed).
        "limit": None if correction else series.deal_limit,
        "stop": stop.value if stop is not None else "",
        "url": reverse("deal_record", args=[series.pk]),
        # Only a club night's game has an organiser to propose a kept deal to (``life``).
        "proposeUrl": reverse("deal_propose", args=[series.pk]) if club_night else "",
        "proposals": proposals,
        "rules": board.state.rules.to_dict(),
        "sides": shape.sides,
        "seatSides": list(shape.seat_sides),
        "firstDealer": series.first_dealer,
        "seats": [seat.player.name for seat in board.seats],
        "names": [side.name for side in board.sides],
        "deals": deals,
    }
