"""Club nights: a new event, the organiser's screen, table cards, rounds, re-seating, the
leaderboard (for members, and by a public link), and the players' "Find your seat".

Every page wants a logged-in member of the event's league (``access.league_for``): owners and
scorers organise, viewers look. A table's phone needs no account: the QR code on its card is
the table's link for the evening (``views.tables``). The evening's public link (while the
organiser keeps it on) opens the leaderboard and "Find your seat" to anyone who has it.
"""

from __future__ import annotations

import math
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from scoring.access import league_for, picked_player, remember_player
from scoring.collation import name_sort_key
from scoring.compression import mark_secret
from scoring.events import leaderboard, seating, services, tables
from scoring.events.forms import EventForm, PresentForm, SeatForm
from scoring.events.services import EventError
from scoring.models import Event, EventTableLink, Role
from scoring.modes import SHAPES, Mode
from scoring.templatetags.sharing import qr_svg
from scoring.views import UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest

ORGANISERS = (Role.OWNER, Role.SCORER)
#: How often a leaderboard on a screen, and a player's seat page, ask for news, in seconds.
BOARD_EVERY = 5
#: The big screen's leaderboard: one column up to this many players, else two side by side
#: (two columns of 12 are as large as one of 16).
SCREEN_ROWS = 16
#: The row counts the big screen's type is sized for (static/css/events.css, ``rows-N``).
SCREEN_FITS = (8, 10, 12, 14, 16, 18, 20, 24, 32, 40)


def _event(request: HtmxHttpRequest, pk: int, event_pk: int, *roles: str) -> tuple[Event, str]:
    league, role = league_for(request, pk, *roles)
    event = get_object_or_404(Event.objects.select_related("league"), pk=event_pk, league=league)
    return event, role


def _cards(request: HtmxHttpRequest, event: Event, played: list) -> list[dict]:
    """Each table of the round in play (``leaderboard.TableResult``): its state, and its link
    for the evening with its QR code (the same all evening: the table's phone follows the
    rounds)."""
    links = {link.number: link for link in EventTableLink.objects.filter(event=event)}
    cards = []
    for table in played:
        path = links[table.number].get_absolute_url()
        name = _("QR code of the link of table %(number)s") % {"number": table.number}
        cards.append(
            {
                "table": table,
                "path": path,
                "field_id": f"table-{table.number}-link",
                "qr_name": name,
                "qr": qr_svg(request.build_absolute_uri(path), name),
            }
        )
    return cards


def _in_play(board: leaderboard.Board) -> leaderboard.RoundResult | None:
    """The newest round started, while it is not finished."""
    latest = board.rounds[-1] if board.rounds else None
    return latest if latest is not None and not latest.finished else None


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
            try:
                event = services.event_create(
                    league=league, seed=secrets.randbelow(1_000_000), user=request.user,
                    **form.event_arguments(),
                )  # fmt: skip
            except EventError as error:
                form.add_error(None, error.message)
            else:
                return redirect(event)
        status = UNPROCESSABLE
    else:
        form = EventForm(league=league, initial=EventForm.rules_initial(league.ruleset))
    context = {"league": league, "form": form}
    return render(request, "scoring/events/new.html", context, status=status)


@login_required
@require_GET
def event_detail(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """The organiser's screen: the round in play, each table's state and QR code, the plan."""
    event, role = _event(request, pk, event_pk)
    current = services.current_round(event)
    board = leaderboard.build(event)
    names = tables.names_of(event)
    started = current.number if current else 0
    figures = seating.figures(services.plan_rounds(event.plan), event.present)
    ends_at = None
    if current and current.finished_at is None and event.length == Event.Length.MINUTES:
        ends_at = current.started_at + timedelta(minutes=event.length_value or 0)
    context = {
        "ends_at": ends_at,
        "league": event.league,
        "event": event,
        "in_play": current,
        "cards": _cards(request, event, board.rounds[-1].tables if board.rounds else []),
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


def _seat_qr(request: HtmxHttpRequest, event: Event) -> str | None:
    """The QR code of the evening's "Find your seat" (None: the public link is off)."""
    if not event.share_token:
        return None
    mark_secret(request)  # the evening's public link is in the page: never compressed
    url = request.build_absolute_uri(reverse("event_seat", args=[event.share_token]))
    return qr_svg(url, _("QR code of the page where players find their seat"))


def _table_card(request: HtmxHttpRequest, link: EventTableLink, names: dict[int, str]) -> dict:
    """A table's printed card: its number, its link's QR code, its players round by round."""
    name = _("QR code of the link of table %(number)s") % {"number": link.number}
    seats = len(SHAPES[Mode.TEAMS].seat_labels)
    rounds = []
    for number, seated in enumerate(tables.table_plan(link.event, link.number), start=1):
        row = None if seated is None else [names.get(p, "?") for p in seated]
        rounds.append({"number": number, "seats": row and row + [""] * (seats - len(row))})
    url = request.build_absolute_uri(link.get_absolute_url())
    return {"number": link.number, "qr": qr_svg(url, name), "rounds": rounds}


@login_required
@require_GET
def event_cards(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """The table cards, printed once for the evening: a page per table with its number, its
    link's QR code and who sits where in every round; the players' "Find your seat" code."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    mark_secret(request)  # the tables' links are in the page
    names = tables.names_of(event)
    links = EventTableLink.objects.filter(event=event).select_related("event").order_by("number")
    context = {
        "league": event.league,
        "event": event,
        "seat_labels": SHAPES[Mode.TEAMS].seat_labels,
        "cards": [_table_card(request, link, names) for link in links],
        "seat_qr": _seat_qr(request, event),
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
@require_http_methods(["GET", "POST"])
def event_round_finish(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """Finish the round in play. While tables still play it asks first (a GET, or a POST
    without ``confirmed``), naming each and how it will be scored; a round whose tables are
    all over finishes at once."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    if request.method == "POST":
        confirmed = request.POST.get("confirmed") == "1"
        try:
            played = services.round_finish(event=event, ask_first=not confirmed)
        except services.TablesPlaying:
            pass  # asked below, with the tables as they stand
        except EventError as error:
            messages.error(request, error.message)
            return redirect(event)
        else:
            messages.success(request, _("Round %(number)s is over.") % {"number": played.number})
            return redirect(event)
    board = leaderboard.build(event)
    context = {"league": event.league, "event": event, "in_play": _in_play(board)}
    return render(request, "scoring/events/finish.html", context)


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


def _screen(board: leaderboard.Board, present: bool) -> dict:
    """The leaderboard's columns, and the classes that size the big screen's type to them and
    to the round's tables (``static/css/events.css``)."""
    lines = board.lines
    if not present:
        return {"columns": [lines], "fit": ""}
    per_column = len(lines) if len(lines) <= SCREEN_ROWS else math.ceil(len(lines) / 2)
    rows = next((fit for fit in SCREEN_FITS if per_column <= fit), SCREEN_FITS[-1])
    columns = [lines[at : at + per_column] for at in range(0, len(lines), per_column)] or [lines]
    played = len(board.rounds[-1].tables) if board.rounds else 0
    fit = f"rows-{rows} cols-{len(columns)} tables-{min(played, 10)}"
    return {"columns": columns, "fit": fit}


def _news(request: HtmxHttpRequest, event: Event) -> str | None:
    """The evening's version for the next poll, or None when this poll's page shows it
    already (answered 204: the screen keeps what it shows)."""
    version = leaderboard.version(event)
    return None if request.GET.get("version") == version and request.htmx else version


def _board_page(request: HtmxHttpRequest, event: Event, context: dict) -> HttpResponse:
    version = _news(request, event)
    if version is None:
        return HttpResponse(status=204)  # nothing new
    present = request.GET.get("present") == "1"
    board = leaderboard.build(event)
    query = urlencode({**({"present": "1"} if present else {}), "version": version})
    context = {
        "event": event,
        "board": board,
        "present": present,
        "every": BOARD_EVERY,
        "poll": f"{request.path}?{query}",
        "latest": board.rounds[-1] if board.rounds else None,
        "seat_qr": _seat_qr(request, event) if present else None,
        **_screen(board, present),
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


def _shared(token: str) -> Event:
    """The club night whose public link this is (404 once the organiser turned it off)."""
    return get_object_or_404(Event.objects.select_related("league"), share_token=token)


@require_GET
def event_public(request: HtmxHttpRequest, token: str) -> HttpResponse:
    event = _shared(token)
    return _board_page(request, event, {"league": event.league, "public": True, "token": token})


@require_http_methods(["GET", "POST"])
def event_seat(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Find your seat, from the evening's public link: a player picks their name once (a POST:
    this phone's session remembers it; ``?pick=1`` picks again), then sees their table and
    seat in this round and the next and their results so far, polled like the board."""
    event = _shared(token)
    version = _news(request, event)
    if version is None:
        return HttpResponse(status=204)  # nothing new
    names = tables.names_of(event)
    form = SeatForm(request.POST if request.method == "POST" else None, names=names)
    if form.is_valid():
        remember_player(request, event, form.cleaned_data["player"])
        return redirect("event_seat", token)
    picking = "pick" in request.GET or request.method == "POST"
    player = picked_player(request, event)
    context = {"event": event, "token": token, "form": form}
    if picking or player not in names:
        if request.htmx:  # a poll whose player is gone (merged away): the whole page again
            return HttpResponseClientRefresh()
        status = UNPROCESSABLE if request.method == "POST" else 200
        return render(request, "scoring/events/seat.html", context, status=status)
    context |= _player_evening(event, player, names)
    context |= {"poll": f"{request.path}?{urlencode({'version': version})}", "every": BOARD_EVERY}
    template = "scoring/events/seat.html"
    return render(request, template + "#seat" if request.htmx else template, context)


def _player_evening(event: Event, player: int, names: dict[int, str]) -> dict:
    """A player's evening: where they sit in the newest round and the next, the state of their
    table in the newest round, and their leaderboard line."""
    board = leaderboard.build(event)
    latest = board.rounds[-1] if board.rounds else None
    seatings = tables.seatings(event, player, names, first=latest.number if latest else 1)
    table_now = None
    if latest is not None and seatings and seatings[0].round == latest.number:
        table_now = next((t for t in latest.tables if t.number == seatings[0].table), None)
    return {
        "name": names[player],
        "latest": latest,
        "seatings": seatings,
        "table_now": table_now,
        "line": next((line for line in board.lines if line.player_id == player), None),
        "players": len(board.lines),
    }


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
