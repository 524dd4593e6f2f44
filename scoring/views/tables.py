"""A club night's table phone: the table's link for the whole evening, which shows the round's
game at the table (scored as any game), then the round's result and where its players go next,
then the next round's game, with no new link to scan."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from scoring.access import held_tables, remember_table
from scoring.events import tables
from scoring.models import EventTableLink
from scoring.table import selectors
from scoring.views import HtmxHttpRequest
from scoring.views.table import STOP_POLLING, board_answer


def _link(token: str) -> EventTableLink:
    link = tables.link_for(token)
    if link is None:
        raise Http404("No such table.")
    return link


@require_http_methods(["GET", "POST"])
def table_link(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The table's page. Opened first (GET), it asks before this phone becomes the table's
    (a link preview or a crawler takes nothing in); then it is the round's game at the table."""
    link = _link(token)
    if token not in held_tables(request):
        if request.method == "POST":
            remember_table(request, link)
            return redirect(link)
        return render(request, "scoring/events/table_join.html", {"link": link})
    if link.series_id is None:
        return _waiting(request, link)
    return board_answer(request, selectors.series_at_table(request, link))


def _waiting(request: HtmxHttpRequest, link: EventTableLink) -> HttpResponse:
    """No game at this table in the round: said, and asked again until there is one."""
    context = {"link": link, "version": tables.table_version(link.event, None)}
    template = "scoring/events/table_waiting.html"
    return render(request, template + "#waiting" if request.htmx else template, context)


@require_GET
def table_live(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Polled by the table's phone: 204 while nothing changed at the table (one query: the token
    in the address is the key, the session is not read), else its page's board (a deal, the
    round over, the next round's game)."""
    version = tables.live_version(token)
    if version is not None and request.GET.get("version", "") == str(version):
        return HttpResponse(status=204)  # nothing new
    link = tables.link_for(token)
    if link is None or token not in held_tables(request):
        return render(request, "scoring/series.html#link-gone", status=STOP_POLLING)
    if link.series_id is None:
        return _waiting(request, link)
    return board_answer(request, selectors.series_at_table(request, link))
