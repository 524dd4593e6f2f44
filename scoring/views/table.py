"""The table: start a game, the scoreboard, enter, edit and undo deals, rematch, links.

Views parse input with a form, call one service and render; the scoreboard is one template with
named partials, and an htmx request gets the partial while a plain request gets the page.
"""

from __future__ import annotations

import functools
import uuid

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from scoring import pagecache, rules
from scoring.access import (
    SCORE,
    WATCH,
    LinkRenewed,
    SeriesAccess,
    archived_refusal,
    held_link,
    league_for,
    league_role,
    remember_created,
    remember_link,
)
from scoring.collation import name_sort_key
from scoring.history.selectors import recent_series
from scoring.ids import id_param
from scoring.models import MAX_DEALS, Deal, League, Role, Series
from scoring.modes import SHAPES, Mode
from scoring.rulesets import rules_note
from scoring.table import selectors, services
from scoring.table.forms import (
    DealForm,
    SeatNamesForm,
    SeriesForm,
    UndoForm,
    engine_message,
    series_initial,
)
from scoring.table.replays import engine_series
from scoring.table.scoreboard import (
    Scoreboard,
    build,
    goat_tally_line,
    goat_title,
    page_title,
    score_line,
    undone_summary,
)
from scoring.throttle import (
    league_game_refusal,
    league_game_started,
    quick_game_refusal,
    quick_game_started,
)
from scoring.views import CONFLICT, UNPROCESSABLE, HtmxHttpRequest

GONE = 410
STOP_POLLING = 286  # the live view's "stop polling" (htmx's convention, kept by app.js)
#: What a deal form carries besides its number and key: kept when its deal was taken meanwhile.
TYPED = ("points_", "tricks_", "count_")


def _renewed_kindly(view):
    """A browser whose link to the series was renewed gets a page that says so, not a 404.

    htmx requests are sent to that page (the board's own requests cannot show a whole page).
    """

    @functools.wraps(view)
    def wrapper(request: HtmxHttpRequest, pk: int, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, pk, *args, **kwargs)
        except LinkRenewed:
            if request.htmx:
                return HttpResponseClientRedirect(reverse("series_detail", args=[pk]))
            return render(request, "scoring/link_gone.html", {"renewed": True}, status=GONE)

    return wrapper


def _scorer(request: HtmxHttpRequest, pk: int, *, lean: bool = False) -> SeriesAccess:
    """The series with its seats, for a request that may score it (403 otherwise, also in an
    archived league); ``lean``: its row read with one plain query (``selectors.series_row``),
    its league not loaded."""
    if lean:
        access = selectors.series_head_for_request(request, pk)
        selectors.load_seats(access.series)
    else:
        access = selectors.series_for_request(request, pk)
    if access.archived:
        raise archived_refusal()
    if not access.can_score:
        raise PermissionDenied(_("You can watch this series but not score it."))
    return access


def _via(request: HtmxHttpRequest, access: SeriesAccess) -> str:
    return "account" if request.user.is_authenticated else "score link"


def _board(series: Series) -> Scoreboard:
    return build(series, selectors.played_deals(series))


def _deal_form(
    board: Scoreboard, data=None, *, kept=None, entry_key: uuid.UUID | None = None, **kwargs
) -> DealForm:
    """The next deal's form; ``kept``: what a form for a deal taken meanwhile carried, shown
    again in this one to check and record (only fields of sides still in play). ``entry_key``:
    the page cache's placeholder, else a fresh key."""
    sides = [(side.index, side.name) for side in board.in_play]
    initial = {"number": board.next_number, "entry_key": entry_key or uuid.uuid4()}
    for name, value in (kept or {}).items():
        if name.startswith(TYPED) and isinstance(value, str) and len(value) <= 8:
            initial[name] = value
    return DealForm(data, sides=sides, initial=initial, **kwargs)


def _render_board(
    request: HtmxHttpRequest,
    access: SeriesAccess,
    *,
    board: Scoreboard | None = None,
    form: DealForm | None = None,
    notice: str = "",
    names_form: SeatNamesForm | None = None,
    undone: bool = False,
    status: int = 200,
    placeholders: bool = False,
    alone: bool = False,
) -> HttpResponse:
    """The scoreboard page (or its partial for htmx, or for ``alone``). ``placeholders``:
    rendered for the page cache, with stand-ins for the CSRF token, the entry key and the
    focus (``pagecache.fill``)."""
    board = board or _board(access.series)
    full = not board.state.finished and board.next_number > MAX_DEALS
    takes_deals = not board.state.finished and not full and not board.limit_reached
    if form is None and access.can_score and takes_deals:
        form = _deal_form(board, entry_key=pagecache.ENTRY_PLACEHOLDER if placeholders else None)
    if full and access.can_score and not notice:
        notice = _full_notice()
    rematch = _rematch_followed(request, access) if board.state.finished else None
    context = {
        **_page_context(access, page_title(board)),
        "rematch": rematch,
        "board": board,
        "form": form,
        "notice": notice,
        "undone": _undone_offer(board) if undone else None,
        **(_the_end(board) if board.state.finished else {}),
    }
    alone = alone or bool(request.htmx)
    if not alone:
        context["names_form"] = names_form or _names_form(access, _seat_names(board))
    if placeholders:
        context["csrf_token"] = pagecache.CSRF_PLACEHOLDER  # over the context processor's
        context["focus_mark"] = pagecache.FOCUS_PLACEHOLDER
    template = "scoring/series.html#scoreboard" if alone else "scoring/series.html"
    return render(request, template, context, status=status)


def _page_context(access: SeriesAccess, title: str) -> dict:
    """What the whole page shows around its board."""
    series = access.series
    sides = series.shape.sides
    return {
        "access": access,
        "series": series,
        "page_title": title,
        "sides_count": sides,
        "rules_note": rules_note(series.ruleset, sides=sides),
    }


def _names_form(access: SeriesAccess, names: tuple[str, ...]) -> SeatNamesForm | None:
    """The creator's form to change who sits where (``names``, clockwise), in a quick game (not
    in a league's)."""
    if not _offers_names(access):
        return None
    initial = {f"player_{position}": name for position, name in enumerate(names)}
    return SeatNamesForm(shape=access.series.shape, initial=initial)


def _offers_names(access: SeriesAccess) -> bool:
    return access.can_manage and access.series.league_id is None


def _seat_names(board: Scoreboard) -> tuple[str, ...]:
    return tuple(seat.player.name for seat in board.seats)


def _page_shell(request: HtmxHttpRequest, access: SeriesAccess, names: tuple[str, ...]):
    """The whole page but its board and title: stand-ins for them (``pagecache.assemble``), the
    seats' ``names`` for the names form."""
    context = {
        **_page_context(access, pagecache.TITLE_PLACEHOLDER),
        "board_html": mark_safe(pagecache.BOARD_PLACEHOLDER),  # a stand-in of our own
        "names_form": _names_form(access, names),
        "csrf_token": pagecache.CSRF_PLACEHOLDER,
    }
    return render(request, "scoring/series.html", context)


def _board_page(
    request: HtmxHttpRequest,
    access: SeriesAccess,
    *,
    undone: bool = False,
    board: Scoreboard | None = None,
    written: bool = False,
) -> HttpResponse:
    """The scoreboard as it is now, from the page cache while its series is unchanged.

    The board alone (what htmx gets) is cached per version; a whole page is the cached shell
    around it (``pagecache``), so the board a recorded deal rendered is the next page's too.
    ``access`` may hold the series row alone (``selectors.series_head_for_request``): the
    seats are read only when something must be rendered (``board``: already built). A finished
    series is never cached (its end screen follows a rematch, which also writes to the
    session). ``written``: the version this request has just written, which no cache can hold
    yet (not asked for: on every deal, a miss in this process's memory and in Redis)."""
    series = access.series
    if series.finished or not pagecache.cacheable(request):
        if board is None:
            selectors.load_seats(series)
        return _render_board(request, access, board=board, undone=undone)
    key = pagecache.board_key(request, access, undone=undone)
    alone = None if written else pagecache.entry(key)
    if alone is None:
        if board is None:
            board = _board(selectors.load_seats(series))
        rendered = _render_board(
            request, access, board=board, undone=undone, placeholders=True, alone=True
        )
        alone = pagecache.keep(
            request, key, rendered, title=page_title(board), names=_seat_names(board)
        )
    if request.htmx:
        return pagecache.respond(request, alone)
    names = alone.names if _offers_names(access) else ()
    shell_key = pagecache.shell_key(request, access, names=names)
    shell = pagecache.entry(shell_key)
    if shell is None:
        shell = pagecache.keep(request, shell_key, _page_shell(request, access, names))
    return pagecache.assemble(request, shell, alone)


def _undone_offer(board: Scoreboard) -> dict | None:
    """The deal the last undo removed, while nothing happened since: what it was, to put back.

    Shown to the phone that undid it, right after (one more query, on that answer only)."""
    event = selectors.last_undone(board.series)
    if event is None or event.before is None:
        return None
    return {"number": event.number, "points": undone_summary(board, event.before["points"])}


def _the_end(board: Scoreboard) -> dict:
    """The goat moment: the headline, the final score, and this line-up's goats so far."""
    games, goats = selectors.goat_tally(board.series)
    return {
        "goat_title": goat_title(board),
        "score_line": score_line(board),
        "goat_tally": goat_tally_line(board, goats) if games > 1 else "",
    }


def _full_notice() -> str:
    return ngettext(
        "This game has reached %(count)s deal, the most one game can hold. Start a new game.",
        "This game has reached %(count)s deals, the most one game can hold. Start a new game.",
        MAX_DEALS,
    ) % {"count": MAX_DEALS}


def _limit_notice(series: Series) -> str:
    """A deal refused because the club night's round of N deals is played at this table."""
    count = series.deal_limit or 0
    return ngettext(
        "Not recorded: this round's %(count)s deal has been played.",
        "Not recorded: this round's %(count)s deals have been played.",
        count,
    ) % {"count": count}


def _rematch_followed(request: HtmxHttpRequest, access: SeriesAccess) -> Series | None:
    """The rematch of a finished series, if one was started; a phone that holds a link to this
    series gets the same kind of link to the rematch (scoring or watching): the same table. The
    game's creator stays its creator, whoever tapped "Rematch"."""
    rematch = access.series.rematches.order_by("pk").first()
    if rematch is None or rematch.league_id is not None or access.link is None:
        return rematch
    token = rematch.score_token if access.link == SCORE else rematch.watch_token
    remember_link(request, rematch, token)  # never a watch link over a score link
    if access.can_manage:
        remember_created(request, rematch)
    return rematch


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    # From the page cache while this browser's games are unchanged (pagecache.home_key).
    key = pagecache.home_key(request) if pagecache.cacheable(request) else None
    if key is not None and (cached := pagecache.serve(request, key)) is not None:
        return cached
    recent = recent_series(request)
    # The newest game: "Back to the game" while it is on, "Same table again" once it is over.
    newest = max(recent, key=lambda series: (series.created_at, series.pk), default=None)
    context: dict[str, object] = {"recent": recent, "newest": newest}
    if key is None:
        return render(request, "scoring/home.html", context)
    context["csrf_token"] = pagecache.CSRF_PLACEHOLDER
    return pagecache.store(request, key, render(request, "scoring/home.html", context))


@require_POST
def series_quick(request: HtmxHttpRequest) -> HttpResponse:
    """A game of two teams in one tap: the seats' names (North, East, …), classic rules, the
    first seat deals. The names can be changed on the board once the table knows who sits where."""
    if refusal := quick_game_refusal(request):
        recent = recent_series(request)
        newest = max(recent, key=lambda series: (series.created_at, series.pk), default=None)
        context = {"recent": recent, "newest": newest, "refusal": refusal}
        return render(request, "scoring/home.html", context, status=UNPROCESSABLE)
    series = services.series_create(
        mode=Mode.TEAMS,
        names=[str(label) for label in SHAPES[Mode.TEAMS].seat_labels],
        first_dealer=0,
        ruleset=rules.PRESETS["classic"],
        known=selectors.known_players(request),
        user=request.user,
    )
    quick_game_started(request)
    remember_link(request, series, series.score_token)
    remember_created(request, series)
    return redirect(series)


def _league_param(request: HtmxHttpRequest) -> League | None:
    """The league a new game is for (``?league=``): 404 for outsiders, 403 for viewers."""
    given = request.GET.get("league") or request.POST.get("league")
    if not given:
        return None
    league_id = id_param(given)
    if league_id is None:
        raise Http404("No such league.")
    league, _role = league_for(request, league_id, Role.OWNER, Role.SCORER)
    return league


def _again(request: HtmxHttpRequest) -> tuple[dict, League | None] | None:
    """The new-game form filled in from a series (``?again=``): same seats and rules, next dealer.

    The game goes to the series' league when this user may start games there, else it is a
    quick game with the same names.
    """
    pk = id_param(request.GET.get("again"))
    if pk is None:
        return None
    series = selectors.series_for_request(request, pk).series
    names = [seat.player.name for seat in series.seats.all()]
    initial = series_initial(
        mode=series.mode,
        names=names,
        first_dealer=services.rematch_dealer(series),
        ruleset=series.ruleset,
    )
    league = None
    if league_role(request, series.league_id) in (Role.OWNER, Role.SCORER):
        league = series.league
    return initial, league


@require_http_methods(["GET", "POST"])
def series_new(request: HtmxHttpRequest) -> HttpResponse:
    league = _league_param(request)
    initial: dict = {}
    again = _again(request) if request.method == "GET" else None
    if again is not None:
        initial, league = again
    elif league is not None:
        ruleset = rules.Ruleset.from_dict(league.rules)
        initial = {"preset": ruleset.preset_name or "custom", **ruleset.to_dict()}
    known = selectors.known_players(request) if league is None else league.players.all()
    if request.method == "POST":
        form = SeriesForm(request.POST)
        limit = quick_game_refusal if league is None else league_game_refusal
        if form.is_valid() and (refusal := limit(request)):
            form.add_error(None, refusal)  # too many games from here: the form says so
        if form.is_valid():
            data = form.cleaned_data
            series = services.series_create(
                mode=data["mode"],
                names=data["names"],
                first_dealer=data["first_dealer"],
                ruleset=data["ruleset"],
                league=league,
                known=known,
                user=request.user,
            )
            (quick_game_started if league is None else league_game_started)(request)
            remember_link(request, series, series.score_token)
            if league is None:
                remember_created(request, series)
            return redirect(series)
        status = UNPROCESSABLE
    else:
        form = SeriesForm(initial=initial)
        status = 200
    context = {
        "form": form,
        "league": league,
        "again_dealer": initial[f"player_{initial['first_dealer']}"] if again else "",
        "known_names": _names_offered(known),
        "shapes": SHAPES,
    }
    return render(request, "scoring/series_new.html", context, status=status)


def _names_offered(known) -> list[str]:
    """The names a new game suggests: one per player key ("Анна", not also "АННА")."""
    offered: dict[str, str] = {}
    for player in known[:200]:
        offered.setdefault(player.name_key, player.name)
    return sorted(offered.values(), key=name_sort_key)


@require_GET
@_renewed_kindly
def series_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    undone = request.GET.get("undone") == "1"  # the page an undo without htmx comes back to
    return _board_page(request, selectors.series_head_for_request(request, pk), undone=undone)


def _posted_entry(request: HtmxHttpRequest) -> tuple[int | None, uuid.UUID | None]:
    """The deal number and one-time key a deal form carries, or None where they are malformed."""
    number = request.POST.get("number", "")
    try:
        key = uuid.UUID(request.POST.get("entry_key", ""))
    except ValueError:
        key = None
    return id_param(number, high=MAX_DEALS), key


@require_POST
@_renewed_kindly
def deal_record(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk, lean=True)
    series = access.series
    number, key = _posted_entry(request)
    # The deals first, then the key: a first tap that commits in between is then either seen by
    # the key check or (not yet in the deals) found again by the service under its lock.
    rows = selectors.played_deals(series)
    running = engine_series(series, rows)
    board = build(series, rows, state=running.state)
    entry, _recorded_pk = services.entry_decision(
        series.pk,
        next_number=board.next_number,
        finished=board.state.finished,
        number=number,
        entry_key=key,
        key_when_new=False,  # the service looks under its lock
        limit=series.deal_limit,
    )
    if entry is not services.Entry.NEW:
        return _entry_answer(request, access, entry, number, board)
    form = _deal_form(board, request.POST)
    if not form.is_valid():
        return _render_board(request, access, board=board, form=form, status=UNPROCESSABLE)
    data = form.cleaned_data
    try:
        recorded = services.deal_record(
            series_id=series.pk,
            number=data["number"],
            points=data["points"],
            tricks=data["tricks"],
            entry_key=data.get("entry_key"),
            user=request.user,
            via=_via(request, access),
            known=(series.version, rows, running),
        )
    except rules.InvalidDeal as error:
        form.add_error(None, engine_message(error))
        return _render_board(request, access, board=board, form=form, status=UNPROCESSABLE)
    if recorded.created and request.htmx and recorded.rows is not None:
        # The fresh board from what the write read and wrote under its lock: no second read.
        fresh = _as_written(access, recorded.series)
        board = build(fresh.series, recorded.rows, state=recorded.state)
        return _board_page(request, fresh, board=board, written=True)
    return _entry_answer(request, access, recorded.entry, number)


def _entry_answer(
    request: HtmxHttpRequest,
    access: SeriesAccess,
    entry: services.Entry,
    number: int | None,
    board: Scoreboard | None = None,
) -> HttpResponse:
    """The answer to a deal form, by what ``services.entry_decision`` decided: the fresh board
    (a redirect without htmx) once the deal is recorded, 409 when the form's deal was taken or
    undone elsewhere, 422 when the series has no room for another deal. ``board`` is the board
    the decision was made on, if it is still current (else it is read again)."""
    pk = access.series.pk
    match entry:
        case services.Entry.NEW | services.Entry.RETRY:
            return _recorded(request, pk)
        case services.Entry.SPENT:
            return _undone(request, pk)
        case services.Entry.STALE:
            return _conflict(request, pk, number)
    if board is None:
        access = selectors.series_for_request(request, pk)
    notice = _("The series is over; no deal can be added.") if entry is services.Entry.OVER else ""
    if entry is services.Entry.LIMIT:
        notice = _limit_notice(access.series)
    return _render_board(request, access, board=board, notice=notice, status=UNPROCESSABLE)


def _as_written(access: SeriesAccess, written: Series) -> SeriesAccess:
    """``access`` with its series' row as a write left it (version, derived values); the seats
    and players it had loaded are kept (recording a deal changes neither)."""
    series = access.series
    for field in Series._meta.concrete_fields:
        setattr(series, field.attname, getattr(written, field.attname))
    return access


def _recorded(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """After a deal is recorded: the fresh scoreboard for htmx, else back to the page."""
    if request.htmx:
        return _render_board(request, selectors.series_for_request(request, pk))
    return redirect("series_detail", pk=pk)


def _conflict(request: HtmxHttpRequest, pk: int, number: int | None) -> HttpResponse:
    """A form for deal ``number``, which another phone recorded (or whose deal before it was
    undone) meanwhile: nothing is recorded, and the points typed stay in the fresh form."""
    access = selectors.series_for_request(request, pk)
    board = _board(access.series)
    recorded_elsewhere = number is None or number < board.next_number
    if board.state.finished or board.next_number > MAX_DEALS or board.limit_reached:
        if recorded_elsewhere:
            notice = _("This deal was just recorded from another device. Here is the fresh score.")
        else:
            notice = _("A deal was undone from another device. Here is the fresh score.")
        return _render_board(request, access, board=board, notice=notice, status=CONFLICT)
    values = {"taken": number or board.next_number - 1, "next": board.next_number}
    if recorded_elsewhere:
        notice = _(
            "Deal %(taken)s was just recorded on another phone; your points are kept: check "
            "them and record them as deal %(next)s."
        )
    else:
        notice = _(
            "A deal was undone on another phone; your points are kept: check them and record "
            "them as deal %(next)s."
        )
    form = _deal_form(board, kept=request.POST)
    return _render_board(
        request, access, board=board, form=form, notice=notice % values, status=CONFLICT
    )


def _undone(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A deal form sent again after the deal it recorded was undone: it is not recorded again."""
    notice = _("The deal this form recorded has been undone; it was not recorded again.")
    return _render_board(
        request, selectors.series_for_request(request, pk), notice=notice, status=CONFLICT
    )


@require_http_methods(["GET", "POST"])
@_renewed_kindly
def deal_edit(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    access = _scorer(request, pk)
    series = access.series
    found = _edited_deal(series, number)
    if found is None:
        if request.method == "POST":  # undone elsewhere while this form was open
            return _edit_stale(request, pk, number)
        raise Http404("No such deal.")
    row, sides = found
    if request.method == "GET":
        return _edit_page(request, access, number, _edit_form(series, row, sides))
    form = DealForm(request.POST, sides=sides, entry=False)
    if not form.is_valid():
        if request.POST.get("version") != str(series.version):
            return _edit_stale(request, pk, number)  # errors about a deal it did not show
        return _edit_page(request, access, number, form, status=UNPROCESSABLE)
    try:
        services.deal_edit(
            series_id=series.pk,
            number=number,
            version=form.cleaned_data["version"],
            points=form.cleaned_data["points"],
            tricks=form.cleaned_data["tricks"],
            user=request.user,
            via=_via(request, access),
        )
    except rules.InvalidDeal as error:
        form.add_error(None, engine_message(error))
        if error.number is not None and error.number != number:
            form.add_error(None, _("Undo the deals after it first, or change it otherwise."))
        return _edit_page(request, access, number, form, status=UNPROCESSABLE)
    except services.DealConflict:
        return _edit_stale(request, pk, number)
    messages.success(request, _("Deal %(number)s changed.") % {"number": number})
    return redirect(series)


def _edited_deal(series: Series, number: int) -> tuple[Deal, list[tuple[int, str]]] | None:
    """Deal ``number`` and the sides in play when it was dealt; None if there is no such deal."""
    rows = list(Deal.objects.filter(series=series).order_by("number"))
    if not 1 <= number <= len(rows):
        return None
    before = build(series, rows[: number - 1])
    return rows[number - 1], [(side.index, side.name) for side in before.in_play]


def _edit_form(series: Series, row: Deal, sides: list[tuple[int, str]]) -> DealForm:
    """The edit form filled in with the deal as stored, and the version it is shown at."""
    initial: dict = {"version": series.version}
    for side, _name in sides:
        initial[f"points_{side}"] = row.points[side]
        initial[f"tricks_{side}"] = "yes" if row.tricks[side] else "no"
    return DealForm(sides=sides, initial=initial, entry=False)


def _edit_page(
    request: HtmxHttpRequest,
    access: SeriesAccess,
    number: int,
    form: DealForm,
    *,
    notice: str = "",
    status: int = 200,
) -> HttpResponse:
    context = {
        "access": access,
        "series": access.series,
        "form": form,
        "number": number,
        "notice": notice,
    }
    return render(request, "scoring/deal_edit.html", context, status=status)


def _edit_stale(request: HtmxHttpRequest, pk: int, number: int) -> HttpResponse:
    """An edit from a form shown before the series changed: nothing is saved (409). The deal as
    it is now, to edit again, or the scoreboard if the deal has been undone."""
    access = selectors.series_for_request(request, pk)
    found = _edited_deal(access.series, number)
    if found is None:
        notice = _("That deal was undone from another device; nothing was saved.")
        return _render_board(request, access, notice=notice, status=CONFLICT)
    form = _edit_form(access.series, *found)
    notice = _(
        "The score changed on another device since you opened this page; nothing was saved. "
        "Here is the deal as it is now."
    )
    return _edit_page(request, access, number, form, notice=notice, status=CONFLICT)


@require_POST
@_renewed_kindly
def deal_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return _render_board(request, access, notice=_("Nothing to undo."), status=UNPROCESSABLE)
    number = form.cleaned_data["number"]
    try:
        services.deal_undo(
            series_id=access.series.pk,
            number=number,
            version=form.cleaned_data["version"],
            user=request.user,
            via=_via(request, access),
        )
    except services.DealConflict:
        notice = _(
            "The score changed on another device since this page was shown; nothing was undone."
        )
        return _render_board(
            request, selectors.series_for_request(request, pk), notice=notice, status=CONFLICT
        )
    # The board says what was undone, beside the deals, with a way to put it back.
    if request.htmx:
        return _render_board(request, selectors.series_for_request(request, pk), undone=True)
    return redirect(access.series.get_absolute_url() + "?undone=1")


@require_POST
@_renewed_kindly
def deal_redo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Put back the deal the last undo removed, from the board shown right after it."""
    access = _scorer(request, pk)
    form = UndoForm(request.POST)
    if not form.is_valid():
        notice = _("Nothing to put back.")
        return _render_board(request, access, notice=notice, status=UNPROCESSABLE)
    try:
        services.deal_redo(
            series_id=access.series.pk,
            number=form.cleaned_data["number"],
            version=form.cleaned_data["version"],
            user=request.user,
            via=_via(request, access),
        )
    except (services.NothingToRedo, rules.InvalidDeal):
        notice = _("The score changed on another device since the undo; the deal was not put back.")
        return _render_board(
            request, selectors.series_for_request(request, pk), notice=notice, status=CONFLICT
        )
    return _recorded(request, pk)


@require_POST
@_renewed_kindly
def series_players(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Change who sits at a quick game's seats (the names a quick start gave them, say)."""
    access = selectors.series_for_request(request, pk)
    if not access.can_manage or access.series.league_id is not None:
        raise PermissionDenied(_("Only whoever started this game can change its names."))
    form = SeatNamesForm(request.POST, shape=access.series.shape)
    if not form.is_valid():
        return _render_board(request, access, names_form=form, status=UNPROCESSABLE)
    services.series_players_change(
        series=access.series,
        names=form.cleaned_data["names"],
        known=selectors.known_players(request),
    )
    messages.success(request, _("Names changed."))
    return redirect(access.series)


@require_POST
@_renewed_kindly
def series_rematch(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    access = _scorer(request, pk)
    # A rematch of a quick game is a new quick game (a second tap opens the same one).
    quick = access.series.league_id is None and not access.series.rematches.exists()
    if quick and access.series.finished and (refusal := quick_game_refusal(request)):
        return _render_board(request, access, notice=refusal, status=UNPROCESSABLE)
    try:
        rematch = services.series_rematch(series=access.series, user=request.user)
    except services.SeriesNotOver:
        notice = _("This series is still being played: finish it first, or start a new game.")
        return _render_board(request, access, notice=notice, status=CONFLICT)
    if quick:
        quick_game_started(request)
    remember_link(request, rematch, rematch.score_token)
    if access.can_manage and rematch.league_id is None:
        remember_created(request, rematch)  # the same table: whoever managed it manages this one
    if request.htmx:
        return HttpResponseClientRedirect(rematch.get_absolute_url())
    return redirect(rematch)


@require_GET
def series_live(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Polled by every open scoreboard: 204 while nothing changed, else the fresh scoreboard.

    A poll that has lost its access (the link was renewed) gets htmx's "stop polling" status,
    286, with a word for the watcher instead of a 404 every few seconds; a poll for a series that
    does not exist gets the same answer, so it tells nothing about which series exist.
    """
    try:
        access = selectors.series_head_for_request(request, pk)
    except Http404:
        if not request.htmx:
            raise
        return render(request, "scoring/series.html#link-gone", status=STOP_POLLING)
    if request.GET.get("version", "") == str(access.series.version):
        return HttpResponse(status=204)
    return _board_page(request, access)


@require_http_methods(["GET", "POST"])
def link_join(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """A score or watch link: a page with one button that opens the game and remembers the link.

    Opening it (GET) changes nothing, so a link preview, a prefetch or a crawler cannot take a
    link into a session; a browser that holds this link, or the score link, goes straight in.
    """
    series = (
        Series.objects.filter(score_token=token).first()
        or Series.objects.filter(watch_token=token).first()
    )
    if series is None:  # renewed, or never a link: which, nothing here can tell
        return render(request, "scoring/link_gone.html", {"renewed": False}, status=404)
    kind = SCORE if token == series.score_token else WATCH
    held = held_link(request, series)
    if held in (SCORE, kind):
        return redirect(series)
    if request.method == "POST":
        remember_link(request, series, token)
        return redirect(series)
    names = [
        seat.player.name for seat in series.seats.select_related("player").order_by("position")
    ]
    context = {"series": series, "names": names, "kind": kind, "token": token}
    return render(request, "scoring/join.html", context)


@require_POST
@_renewed_kindly
def link_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Replace a link with a new one: whoever held the old one loses access."""
    access = selectors.series_for_request(request, pk)
    if access.archived:
        raise archived_refusal()
    if not access.can_manage:
        raise PermissionDenied(_("Only whoever started this game can change its links."))
    which = request.POST.get("link")
    if which not in ("score", "watch"):
        return _render_board(
            request, access, notice=_("Choose a link to renew."), status=UNPROCESSABLE
        )
    series = services.series_link_renew(series=access.series, link=which)
    if which == "score" and series.league_id is None:
        remember_link(request, series, series.score_token)
    messages.success(request, _("The old link no longer works; share the new one."))
    return redirect(series)
