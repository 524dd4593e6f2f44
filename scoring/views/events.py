"""Club nights: a new event, the organiser's screen, table cards, rounds, re-seating, the
leaderboard (for members, and by a public link).

Every page wants a logged-in member of the event's league (``access.league_for``): owners and
scorers organise, viewers look. A table's phone needs no account: the QR code on its card is
the table series' score link, which lets it score that series and nothing else.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring import rules
from scoring.access import league_for
from scoring.collation import name_sort_key
from scoring.events import leaderboard, seating, services
from scoring.events.forms import EventForm, PresentForm
from scoring.events.services import EventError
from scoring.models import Event, EventTable, EventTableLink, Player, Role
from scoring.templatetags.sharing import qr_svg
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest

ORGANISERS = (Role.OWNER, Role.SCORER)
#: How often a leaderboard on a screen asks for news, in seconds.
BOARD_EVERY = 5


def _event(request: HtmxHttpRequest, pk: int, event_pk: int, *roles: str) -> tuple[Event, str]:
    league, role = league_for(request, pk, *roles)
    event = get_object_or_404(Event.objects.select_related("league"), pk=event_pk, league=league)
    return event, role


def _tables(event: Event) -> list[EventTable]:
    return list(
        EventTable.objects.filter(round__event=event)
        .select_related("round", "series")
        .prefetch_related("series__seats__player")
        .order_by("-round__number", "number")
    )


def _cards(request: HtmxHttpRequest, tables: list[EventTable]) -> list[dict]:
    """Each table of the round in play: its seats, and its link for the evening with its QR code
    (the same all evening: the table's phone follows the rounds)."""
    links = {
        link.number: link
        for link in EventTableLink.objects.filter(event_id__in={t.round.event_id for t in tables})
    }
    cards = []
    for table in tables:
        path = links[table.number].get_absolute_url()
        name = _("QR code of the link of table %(number)s") % {"number": table.number}
        seats = sorted(table.series.seats.all(), key=lambda seat: seat.position)
        cards.append(
            {
                "table": table,
                "seats": [seat.player.name for seat in seats],
                "teams": len(seats) == 4,
                "path": path,
                "field_id": f"table-{table.number}-link",
                "qr_name": name,
                "qr": qr_svg(request.build_absolute_uri(path), name),
            }
        )
    return cards


def _names(event: Event) -> dict[int, str]:
    ids = {p for r in event.plan for t in r["tables"] for p in t} | {
        p for r in event.plan for p in r["out"]
    }
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))


def _plan_rows(event: Event, names: dict[int, str], started: int) -> list[dict]:
    return [
        {
            "number": n,
            "started": n <= started,
            "tables": [[names.get(p, "?") for p in t] for t in r["tables"]],
            "out": [names.get(p, "?") for p in r["out"]],
        }
        for n, r in enumerate(event.plan, start=1)
    ]


@login_required
@require_GET
def event_list(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, role = league_for(request, pk)
    events = Event.objects.filter(league=league).order_by("-created_at", "-pk")
    context = {"league": league, "events": events, "can_organise": role in ORGANISERS}
    return render(request, "scoring/events/list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def event_new(request: LoggedInRequest, pk: int) -> HttpResponse:
    league, _role = league_for(request, pk, *ORGANISERS)
    status = 200
    if request.method == "POST":
        form = EventForm(request.POST, league=league)
        if form.is_valid():
            data = form.cleaned_data
            try:
                event = services.event_create(
                    league=league,
                    name=data["name"],
                    players=list(data["players"]),
                    names=data["new_players"],
                    rounds=data["rounds"],
                    length=data["length"],
                    length_value=data["length_value"],
                    ruleset=data["ruleset"],
                    three_player_tables=data["three_player_tables"],
                    tie_break=data["tie_break"],
                    seed=secrets.randbelow(1_000_000),
                    user=request.user,
                )
            except EventError as error:
                form.add_error(None, error.message)
            else:
                return redirect(event)
        status = UNPROCESSABLE
    else:
        try:
            ruleset = rules.Ruleset.from_dict(league.rules)
        except rules.InvalidRuleset:
            ruleset = rules.PRESETS["classic"]
        form = EventForm(league=league, initial=EventForm.rules_initial(ruleset))
    context = {"league": league, "form": form}
    return render(request, "scoring/events/new.html", context, status=status)


@login_required
@require_GET
def event_detail(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """The organiser's screen: the round in play with a QR code per table, the plan."""
    event, role = _event(request, pk, event_pk)
    tables = _tables(event)
    current = tables[0].round if tables else None
    names = _names(event)
    started = current.number if current else 0
    plan = services.plan_rounds(event.plan)
    figures = seating.figures(plan, event.present)
    ends_at = None
    if current and current.finished_at is None and event.length == Event.Length.MINUTES:
        ends_at = current.started_at + timedelta(minutes=event.length_value or 0)
    context = {
        "ends_at": ends_at,
        "league": event.league,
        "event": event,
        "in_play": current,
        "cards": _cards(request, [t for t in tables if current and t.round_id == current.pk]),
        "plan": _plan_rows(event, names, started),
        "figures": figures,
        "sit_outs": sorted(
            ((names.get(p, "?"), n) for p, n in figures.sit_outs.items() if n),
            key=lambda x: name_sort_key(x[0]),
        ),
        "can_organise": role in ORGANISERS,
        "is_last": started >= event.rounds,
    }
    return render(request, "scoring/events/detail.html", context)


@login_required
@require_GET
def event_cards(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """A printable sheet of the round's table cards: number, seats, the QR of the score link."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    tables = _tables(event)
    current = tables[0].round if tables else None
    context = {
        "league": event.league,
        "event": event,
        "in_play": current,
        "cards": _cards(request, [t for t in tables if current and t.round_id == current.pk]),
    }
    return render(request, "scoring/events/cards.html", context)


@login_required
@require_POST
def event_round_next(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    try:
        played = services.round_start(event=event, user=request.user)
    except EventError as error:
        messages.error(request, error.message)
        return redirect(event)
    messages.success(request, _("Round %(number)s has started.") % {"number": played.number})
    return redirect(event)


@login_required
@require_POST
def event_round_finish(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    try:
        played = services.round_finish(event=event)
    except EventError as error:
        messages.error(request, error.message)
        return redirect(event)
    messages.success(request, _("Round %(number)s is over.") % {"number": played.number})
    return redirect(event)


@login_required
@require_http_methods(["GET", "POST"])
def event_players(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """Late arrivals and early leavers: re-seat the rounds not started yet."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    status = 200
    if request.method == "POST":
        form = PresentForm(request.POST, league=event.league)
        if form.is_valid():
            try:
                services.players_change(
                    event=event,
                    players=list(form.cleaned_data["players"]),
                    names=form.cleaned_data["new_players"],
                )
            except EventError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, _("The rounds to come are seated again."))
                return redirect(event)
        status = UNPROCESSABLE
    else:
        form = PresentForm(league=event.league, initial={"players": event.present})
    context = {"league": event.league, "event": event, "form": form}
    return render(request, "scoring/events/players.html", context, status=status)


def _board_page(request: HtmxHttpRequest, event: Event, context: dict) -> HttpResponse:
    present = request.GET.get("present") == "1"
    context = {
        "event": event,
        "board": leaderboard.build(event),
        "present": present,
        "every": BOARD_EVERY,
        **context,
    }
    template = "scoring/events/board.html"
    if request.htmx:
        template += "#board"
    return render(request, template, context)


@login_required
@require_GET
def event_board(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """The leaderboard; ``?present=1`` for a TV or a projector."""
    event, role = _event(request, pk, event_pk)
    context = {"league": event.league, "can_organise": role in ORGANISERS, "public": False}
    return _board_page(request, event, context)


@require_GET
def event_public(request: HtmxHttpRequest, token: str) -> HttpResponse:
    event = get_object_or_404(Event.objects.select_related("league"), share_token=token)
    return _board_page(request, event, {"league": event.league, "public": True, "token": token})


@login_required
@require_POST
def event_share(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    services.share_renew(event=event)
    messages.success(request, _("The leaderboard has a public link; an older one is off."))
    return redirect(event)


@login_required
@require_POST
def event_share_revoke(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    services.share_revoke(event=event)
    messages.success(request, _("The leaderboard is no longer public."))
    return redirect(event)
