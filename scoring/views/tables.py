"""A game at a table: the one way every phone reaches its game, whatever the kind of game.

A table's link (``Table``: a kitchen table's score and watch links, a club night's table link for
the evening) shows the game the table plays now: a quick game, then its rematch; a club night's
game, then the round's result and the next round's game. Opened first (GET), the page asks before
this phone takes the link in (a link preview or a crawler takes nothing in, and a GET writes
nothing); then it is the board. Every open board polls the table's live view, which costs one
query keyed by the token and reads no session while nothing changed.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from scoring.models import Table
from scoring.table import selectors
from scoring.table.access import opens
from scoring.table.live import live_version, version_of
from scoring.views import HtmxHttpRequest
from scoring.views.table import GONE, STOP_POLLING, board_answer
from scoring.web.sessions import hold_link, visitor_of


@require_http_methods(["GET", "POST"])
def table_link(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The table's page: the game it plays now, for a phone that opened its link (or may see the
    game anyway); else the page that opens the link, whose POST keeps it on this phone."""
    table = selectors.table_for(token)
    if table is None:
        return _gone(request, token)
    if request.method == "POST":
        hold_link(request, table, token)
        return redirect("table_link", token)
    return _shown(request, table, token) or render(
        request, "scoring/table_join.html", _join_context(table, token)
    )


@require_GET
def table_live(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Polled by every open board: 204 while nothing changed at the table (one query: the token
    in the address is the key, the session is not read), else the table's board (a deal, a
    rematch, the round over, the next round's game). A link that no longer works gets htmx's
    "stop polling" status, 286, with words instead of a 404 every few seconds; one that never
    worked gets the same answer, so the poll tells nothing about which links exist."""
    version = live_version(token)
    if version is not None and request.GET.get("version", "") == version:
        return HttpResponse(status=204)  # nothing new
    table = selectors.table_for(token) if version is not None else None
    shown = _shown(request, table, token) if table is not None else None
    if shown is not None:
        return shown
    # Said by whom it was ended: a club night's table's link is the organiser's doing.
    held = visitor_of(request).links.get(token)
    context = {"table": held is not None and selectors.is_club_table(held)}
    return render(request, "scoring/series.html#link-gone", context, status=STOP_POLLING)


def _shown(request: HtmxHttpRequest, table: Table, token: str) -> HttpResponse | None:
    """The table's board through ``token`` (or, with no game at it in the round, a page that
    waits for the next); None when this phone has not opened the link and may not see the game
    otherwise."""
    visitor = visitor_of(request)
    if not opens(visitor, table, token):
        return None
    if table.series is None:
        context = {"table": table, "token": token, "version": version_of(table.event, None)}
        template = "scoring/table_waiting.html"
        return render(request, template + "#waiting" if request.htmx else template, context)
    return board_answer(request, selectors.series_at_table(visitor, table, token))


def _join_context(table: Table, token: str) -> dict:
    """What the page that opens a link says: the club night's table, or the game's players and
    whether the link scores or watches."""
    series = table.series
    names = []
    if series is not None:
        selectors.load_seats(series)  # the names here and the page's preview, in one query
        names = [seat.player.name for seat in series.seats.all()]
    kind = "score" if token == table.score_token else "watch"
    return {"table": table, "token": token, "names": names, "kind": kind}


def _gone(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A link that names no table: renewed or revoked (this browser held it: 410, said so), or
    never one (404); which of the two for a browser that never held it, nothing here can tell."""
    held = token in visitor_of(request).links
    return render(
        request, "scoring/link_gone.html", {"renewed": held}, status=GONE if held else 404
    )
