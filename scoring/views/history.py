"""History pages: past series, a series' score sheet, a player's record, and exports.

Every page starts from what the request may see (``table.selectors.visible_series``, or
``history.selectors.player_scope`` for a player) and costs the same queries whatever the size of
the history. A history's downloads are made off the request (``views.exports``).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from scoring.backup import jobs
from scoring.backup.csv_export import BOM, series_csv
from scoring.backup.json_export import export_json
from scoring.history import records, selectors
from scoring.history.charts import results_chart
from scoring.history.forms import HistoryFilterForm
from scoring.history.sheets import sheet_build
from scoring.lib.ids import id_param
from scoring.models import Deal, DealEvent, Export, Player, Series
from scoring.table.selectors import series_seen, visible_series
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, exports
from scoring.web.access import league_for
from scoring.web.sessions import visitor_of

RECENT = 10


def _filters(request: HtmxHttpRequest) -> HistoryFilterForm:
    leagues = selectors.member_leagues(visitor_of(request))
    league = id_param(request.GET.get("league"))
    if league is not None and league not in {pk for pk, _name in leagues}:
        league_for(request, league)  # 404 for a league the user is not in
    players = selectors.player_choices(selectors.visible_players(visitor_of(request)))
    return HistoryFilterForm(request.GET or None, players=players, leagues=leagues)


@require_GET
def history_list(request: HtmxHttpRequest) -> HttpResponse:
    """Filters, one page of the visible series, links to older and newer."""
    form = _filters(request)
    page = None
    status = 200
    if form.is_bound and not form.is_valid():
        status = UNPROCESSABLE
    else:
        data = form.cleaned_data if form.is_bound else {}
        try:
            page = selectors.history_page(
                selectors.history_filter(visible_series(visitor_of(request)), data),
                before=data.get("before"),
                after=data.get("after"),
            )
        except selectors.StaleCursor:
            form.add_error(None, _("That page of the history is gone; start from the newest."))
            status = UNPROCESSABLE
    template = "scoring/history/list.html"
    if request.htmx:
        template += "#results"
    return render(request, template, {"form": form, "page": page}, status=status)


def _history_export(request: HtmxHttpRequest, kind: str) -> HttpResponse:
    """A history download over the visible series narrowed by the history's filters: a GET
    shows the button, a POST asks for it (``views.exports``); bad filters get the history page
    with its errors."""
    form = _filters(request)
    if form.is_bound and not form.is_valid():
        return render(
            request, "scoring/history/list.html", {"form": form, "page": None}, status=UNPROCESSABLE
        )
    if request.method != "POST":
        return exports.ask_response(request, kind)
    scope = jobs.history_scope(request, form.cleaned_data if form.is_bound else {})
    return exports.ask(request, kind, scope)


def _download(pieces: Iterable[str], content_type: str, filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(pieces, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_http_methods(["GET", "POST"])
def history_export_json(request: HtmxHttpRequest) -> HttpResponse:
    return _history_export(request, Export.Kind.HISTORY_JSON)


@require_http_methods(["GET", "POST"])
def history_export_csv(request: HtmxHttpRequest) -> HttpResponse:
    return _history_export(request, Export.Kind.HISTORY_CSV)


@require_GET
def series_sheet(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = series_seen(visitor_of(request), pk)
    series = access.series
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    events = DealEvent.objects.filter(series=series).select_related("actor")
    sheet = sheet_build(series, rows, events.order_by("created_at", "pk"))
    context = {"sheet": sheet, "series": series, "board": sheet.board, "access": access}
    return render(request, "scoring/history/sheet.html", context)


@require_GET
def series_export_csv(request: HtmxHttpRequest, pk: int) -> StreamingHttpResponse:
    series = series_seen(visitor_of(request), pk).series
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    pieces = chain([BOM], series_csv(series, rows))
    return _download(pieces, "text/csv; charset=utf-8", f"kozel-series-{series.pk}.csv")


@require_GET
def series_export_json(request: HtmxHttpRequest, pk: int) -> StreamingHttpResponse:
    """One series, at once: at most ``MAX_DEALS`` deals, a fraction of a second."""
    series = series_seen(visitor_of(request), pk).series
    whole = jobs.owned_leagues(request)
    pieces = export_json(Series.objects.filter(pk=series.pk), secrets=False, whole=whole)
    return _download(pieces, "application/json; charset=utf-8", f"kozel-series-{series.pk}.json")


@require_GET
def player_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A player's record over the series the request may see of them."""
    player = get_object_or_404(Player.objects.select_related("league"), pk=pk)
    scope = selectors.player_scope(visitor_of(request), player)
    if scope is None:
        raise Http404("No such player.")
    record = records.player_record(player, None if scope.whole_league else scope.series)
    recent = selectors.history_page(scope.series.filter(seats__player=player), size=RECENT)
    labels = {
        "won": _("%(month)s: %(count)s won"),
        "goat": _("%(month)s: %(count)s as the goat"),
        "other": _("%(month)s: %(count)s neither"),
    }
    chart = results_chart(record.months, labels=labels) if record.months else None
    context = {"player": player, "record": record, "recent": recent, "chart": chart}
    return render(request, "scoring/history/player.html", context)
