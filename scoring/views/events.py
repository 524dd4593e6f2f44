"""Club nights: a new event, the organiser's screen, table cards, rounds, re-seating, the
leaderboard (for members, and by a public link), and the players' "Find your seat".

Every page wants a logged-in member of the event's league (``access.league_for``): owners and
scorers organise, viewers look. A table's phone needs no account: the QR code on its card is
the table's link for the evening (``views.tables``). The evening's public link (while the
organiser keeps it on) opens the leaderboard and "Find your seat" to anyone who has it; a TV
reaches its big screen at /tv/ with the evening's six-character code (``tv``).
"""

from __future__ import annotations

import math
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from scoring.core.modes import SHAPES, Mode
from scoring.events import leaderboard, seating, services, tables
from scoring.events.forms import EventForm, LinksForm, PresentForm, SeatForm, TvCodeForm
from scoring.events.services import EventError
from scoring.lib.collation import name_sort_key
from scoring.models import Event, Role, Table
from scoring.seasons import expected
from scoring.sharing.codes import qr_svg
from scoring.table import proposals
from scoring.views import TOO_MANY, UNPROCESSABLE, HtmxHttpRequest, LoggedInRequest
from scoring.views.table import STOP_POLLING
from scoring.web import throttle
from scoring.web.access import league_for
from scoring.web.middleware import mark_secret
from scoring.web.sessions import picked_player, remember_player

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
    links = {link.number: link for link in Table.objects.filter(event=event)}
    cards = []
    for table in played:
        link = links[table.number]
        name = _("QR code of the link of table %(number)s") % {"number": table.number}
        cards.append(
            {
                "table": table,
                # None: the organiser revoked it (renewing gives the table a new one).
                "path": link.get_absolute_url() if link.score_token else None,
                "field_id": f"table-{table.number}-link",
                "qr_name": name,
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
        "proposals": tables.proposals_of(event) if role in ORGANISERS else [],
        "substitutions": tables.substitutions_of(event),
        "tv_address": _tv_address(request) if role in ORGANISERS and event.tv_code else "",
        "board": board,
        "evening": expected.evening_expected(event),
    }
    return render(request, "scoring/events/detail.html", context)


def _tv_address(request: HtmxHttpRequest) -> str:
    """The big screen's short address as a remote types it: "kozel.example.org/tv/"."""
    mark_secret(request)  # the evening's code for its public board is in the page
    return request.get_host() + reverse("tv")


@login_required
@require_POST
def event_proposal(
    request: LoggedInRequest, pk: int, event_pk: int, proposal_pk: int
) -> HttpResponse:
    """Add a deal a table's phone proposed (``accept``) to its game, or decline it."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    user = request.user
    decision = request.POST.get("decision")
    if decision not in ("accept", "decline"):
        messages.error(request, _("Choose to add the deal to its game or to decline it."))
        return redirect(event)
    try:
        if decision == "accept":
            deal = proposals.proposal_accept(proposal_id=proposal_pk, event_id=event.pk, user=user)
            done = _("Added as deal %(n)s of its game.") % {"n": deal.number}
        else:
            proposals.proposal_decline(proposal_id=proposal_pk, event_id=event.pk, user=user)
            done = _("Declined: the game stays as it was.")
    except proposals.ProposalRefused as refused:
        messages.error(request, refused.message)
    else:
        messages.success(request, done)
    return redirect(event)


def _seat_qr(request: HtmxHttpRequest, event: Event) -> str | None:
    """The QR code of the evening's "Find your seat" (None: the public link is off)."""
    if not event.share_token:
        return None
    mark_secret(request)  # the evening's public link is in the page: never compressed
    url = request.build_absolute_uri(reverse("event_seat", args=[event.share_token]))
    return qr_svg(url, _("QR code of the page where players find their seat"))


def _table_card(request: HtmxHttpRequest, event: Event, link: Table, names: dict[int, str]) -> dict:
    """A table's printed card: its number, its link's QR code, its players round by round."""
    assert link.number is not None  # a club night's table
    name = _("QR code of the link of table %(number)s") % {"number": link.number}
    seats = len(SHAPES[Mode.TEAMS].seat_labels)
    rounds = []
    for number, seated in enumerate(tables.table_plan(event, link.number), start=1):
        row = None if seated is None else [names.get(p, "?") for p in seated]
        rounds.append({"number": number, "seats": row and row + [""] * (seats - len(row))})
    if link.score_token is None:  # revoked: no code to print until it is renewed
        return {"number": link.number, "qr": None, "rounds": rounds}
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
    links = Table.objects.filter(event=event).order_by("number")
    context = {
        "league": event.league,
        "event": event,
        "seat_labels": SHAPES[Mode.TEAMS].seat_labels,
        "cards": [_table_card(request, event, link, names) for link in links],
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
    """Late arrivals and early leavers: a substitute in the round in play, the rounds not
    started seated again."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    status = 200
    if request.method == "POST":
        form = PresentForm(request.POST, league=event.league, event=event)
        if form.is_valid():
            try:
                changed = services.players_change(
                    event=event,
                    players=list(form.cleaned_data["players"]),
                    names=form.cleaned_data["new_players"],
                    substitutes=form.cleaned_data["substitutes"],
                    user=request.user,
                )
            except EventError as error:
                form.add_error(None, error.message)
            else:
                for message in _present_changed(changed):
                    messages.success(request, message)
                return redirect(event)
        status = UNPROCESSABLE
    else:
        form = PresentForm(league=event.league, initial={"players": event.present})
    context = {"league": event.league, "event": event, "form": form}
    return render(request, "scoring/events/players.html", context, status=status)


def _present_changed(changed: services.PresentChanged) -> list[str]:
    """What a change of who is present did, in words."""
    said = [
        _("%(joined)s takes the seat of %(left)s at table %(table)s from deal %(deal)s on.")
        % {"joined": s.joined, "left": s.left, "table": s.table, "deal": s.from_deal}
        for s in changed.substituted
    ]
    event = changed.event
    left = tables.rounds_of(event) - event.played_rounds.count()
    if left > 0:
        said.append(_("The rounds to come are seated again."))
    elif not changed.substituted:
        said.append(_("Who is present is saved; no round is left to seat."))
    return said  # the organiser's screen says when the printed cards are out of date


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


def _shared(token: str) -> Event | None:
    """The club night whose public link this is (None once the organiser turned it off)."""
    return Event.objects.select_related("league").filter(share_token=token).first()


def _ended(request: HtmxHttpRequest, target: str) -> HttpResponse:
    """A public link the organiser ended: a 404 for a page, and for the poll of a screen that
    showed it (the big screen, a player's seat) words in its place and no more polling, not
    "try again in a moment"."""
    if not request.htmx:
        raise Http404("No such club night.")
    context = {"target": target}
    return render(request, "scoring/events/link_ended.html", context, status=STOP_POLLING)


@require_GET
def event_public(request: HtmxHttpRequest, token: str) -> HttpResponse:
    event = _shared(token)
    if event is None:
        return _ended(request, "board")
    return _board_page(request, event, {"league": event.league, "public": True, "token": token})


@require_http_methods(["GET", "POST"])
def event_seat(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Find your seat, from the evening's public link: a player picks their name once (a POST:
    this phone's session remembers it; ``?pick=1`` picks again), then sees their table and
    seat in this round and the next and their results so far, polled like the board."""
    event = _shared(token)
    if event is None:
        return _ended(request, "seat")
    version = _news(request, event)
    if version is None:
        return HttpResponse(status=204)  # nothing new
    names = tables.names_of(event)
    form = SeatForm(request.POST if request.method == "POST" else None, event=event, names=names)
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
        "players": board.present_count,
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
def event_links(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """Renew or revoke a table's link (or every table's), or end every link of the evening."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    form = LinksForm(request.POST, tables=event.tables.count())
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, str(errors[0]))
        return redirect(event)
    change, number = form.cleaned_data["change"], form.cleaned_data["table"]
    if change == "end":
        services.evening_links_revoke(event=event)
        done = _("Every link of this evening has ended: the tables' and the public one.")
    elif change == "renew":
        services.table_link_renew(event=event, number=number)
        done = _("New link: print the table's card again (or show its QR code from here).")
    else:
        services.table_link_revoke(event=event, number=number)
        done = _("The link no longer works; renew it to give the table a new one.")
    messages.success(request, done)
    return redirect(event)


@login_required
@require_POST
def event_share_revoke(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    services.share_revoke(event=event)
    messages.success(request, _("The leaderboard is no longer public."))
    return redirect(event)


@login_required
@require_POST
def event_tv_code(request: LoggedInRequest, pk: int, event_pk: int) -> HttpResponse:
    """A new code for the big screen (the old one no longer opens it)."""
    event, _role = _event(request, pk, event_pk, *ORGANISERS)
    try:
        services.tv_code_renew(event=event)
    except EventError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("The big screen has a new code; the old one no longer works."))
    return redirect(event)


@require_http_methods(["GET", "POST"])
def tv(request: HtmxHttpRequest) -> HttpResponse:
    """The big screen without an account: a short address typed with a TV's remote, then the
    code the organiser's screen shows; the right code opens the evening's public big screen
    (nothing more than its public link shows). Wrong codes are counted per network
    (``throttle.tv_code_refusal``): past the limit no code is tried at all."""
    form = TvCodeForm(request.POST if request.method == "POST" else None)
    if request.method != "POST":
        return render(request, "scoring/events/tv.html", {"form": form})
    refusal = throttle.tv_code_refusal(request)
    if refusal is not None:
        form.errors.clear()
        form.add_error(None, refusal)
        return render(request, "scoring/events/tv.html", {"form": form}, status=TOO_MANY)
    if form.is_valid():
        token = tables.tv_code_token(form.cleaned_data["code"])
        if token is not None:
            return redirect(f"{reverse('event_public', args=[token])}?present=1")
        throttle.tv_code_failed(request)
        form.add_error("code", _("No evening has this code: check it on the organiser's screen."))
    return render(request, "scoring/events/tv.html", {"form": form}, status=UNPROCESSABLE)
