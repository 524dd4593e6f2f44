"""Plain helpers for the tests: people, series played through the services, browsers, pages.

Fixtures live in the ``conftest.py`` files; everything here is an ordinary function or constant,
imported by name (``from tests.helpers import start_series``).
"""

from __future__ import annotations

import http.client
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring import rules
from scoring.backup.json_export import export_json
from scoring.models import (
    Deal,
    DealEvent,
    Event,
    EventRound,
    EventTable,
    Export,
    League,
    LeagueEvent,
    Membership,
    PairResult,
    Player,
    RunningTotal,
    Seat,
    Series,
    Table,
)
from scoring.standings.running_totals import totals_fold
from scoring.table import deals, services
from scoring.web.sessions import SESSION_STARTED

PASSWORD = "correct-horse-battery-staple-42"
#: The three players of the three-player tests.
THREE = ("Ira", "Kolya", "Lida")
TEAMS = ("Anna", "Boris", "Vera", "Gleb")  # Anna & Vera (side 0) against Boris & Gleb (side 1)
#: Side 0 loses with 31 card points: 2 defeat points with the classic save line.
SIDE_0_LOSES = (31, 89)
SIDE_1_LOSES = (89, 31)
LONG = rules.Ruleset(target=999)  # a series that never ends within a test
#: What the new-game form posts for two teams (the names of ``TEAMS``) and the classic rules.
NEW_GAME = {
    "mode": "teams",
    **{f"player_{seat}": name for seat, name in enumerate(TEAMS)},
    "first_dealer": "0",
    "preset": "classic",
}
ROOT = Path(__file__).resolve().parents[1]
#: A path argument of a route: ``<int:pk>``, ``<token>``.
PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<parameter>[^>]+)>")


# --- People and browsers -----------------------------------------------------------------------


def make_user(username: str):
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


def logged_in(user) -> Client:
    """A browser logged in as ``user`` (None: a visitor who is not logged in)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def client_with_link(series: Series, token: str | None = None) -> Client:
    """A browser that opened the series' score link (or another of its tokens) and confirmed."""
    client = Client()
    response = client.post(f"/tables/{token or series.table.score_token}/")
    assert response.status_code == 302, response.status_code
    return client


def creator_client(series: Series) -> Client:
    """The browser that started a quick game: it holds the score link and manages the game."""
    client = client_with_link(series)
    session = client.session
    session[SESSION_STARTED] = [series.table_id]
    session.save()
    return client


# --- Series played through the services --------------------------------------------------------


def start_series(
    *,
    mode: str = "teams",
    names: Sequence[str] = TEAMS,
    ruleset: rules.Ruleset = rules.PRESETS["classic"],
    league: League | None = None,
    first_dealer: int = 0,
    deal_limit: int | None = None,
) -> Series:
    players = services.players_resolve(names=list(names), league=league, known=None)
    return services.series_start(
        mode=mode,
        players=players,
        first_dealer=first_dealer,
        ruleset=ruleset,
        league=league,
        deal_limit=deal_limit,
    )


def record(series: Series, points, tricks=None) -> Series:
    """Record the next deal through the service, as the scoreboard would."""
    series.refresh_from_db()
    deals.deal_record(
        series_id=series.pk, number=series.deal_count + 1, points=points, tricks=tricks
    )
    series.refresh_from_db()
    return series


def play_deals(series: Series, deals: Sequence) -> Series:
    """Record each deal (points, or (points, tricks)) through the service."""
    for deal in deals:
        if isinstance(deal[0], tuple):
            record(series, deal[0], deal[1])
        else:
            record(series, deal)
    return series


def finished_series(
    *,
    goat: int = 0,
    names: Sequence[str] = TEAMS,
    league: League | None = None,
    eggs: bool = False,
) -> Series:
    """A two-side series played until side ``goat`` is the goat (six deals lost by 2)."""
    mode = "teams" if len(names) == 4 else "duel"
    series = start_series(mode=mode, names=names, league=league)
    loses = SIDE_0_LOSES if goat == 0 else SIDE_1_LOSES
    deals = [(60, 60)] if eggs else []
    play_deals(series, [*deals, *[loses] * 6])
    series.refresh_from_db()
    assert series.finished
    return series


def long_series(deals: int, *, league: League | None = None) -> Series:
    """A series still in progress after ``deals`` deals, sides losing in turn."""
    series = start_series(ruleset=LONG, league=league)
    play_deals(series, [SIDE_0_LOSES if n % 2 else SIDE_1_LOSES for n in range(deals)])
    return series


def play_out(series: Series, *, loser: int = 0, eggs: int = 0) -> Series:
    """Finish a two-side series: ``eggs`` deals of 60:60, then ``loser`` goes naked until out."""
    for _ in range(eggs):
        record(series, [60, 60], [True, True])
    points = [0, 120] if loser == 0 else [120, 0]
    tricks = [False, True] if loser == 0 else [True, False]
    while not series.finished:
        record(series, points, tricks)
    return series


def finished(league: League | None, names=TEAMS, *, loser: int = 0, mode="teams", eggs=0):
    return play_out(start_series(league=league, names=names, mode=mode), loser=loser, eggs=eggs)


# --- What the database holds -------------------------------------------------------------------


def db_snapshot() -> tuple:
    """Everything a request could change in the table's tables, as plain comparable data."""
    return (
        list(Series.objects.order_by("pk").values()),
        list(Seat.objects.order_by("pk").values()),
        list(Deal.objects.order_by("pk").values()),
        list(DealEvent.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
    )


def independent_state(series: Series) -> rules.SeriesState:
    """The engine's replay of the stored rows, read straight from the columns (no bridge)."""
    deals = []
    for row in Deal.objects.filter(series=series).order_by("number"):
        sides = [side for side in range(3) if row.points[side] is not None]
        deals.append(
            rules.Deal(
                tuple(row.points[side] for side in sides),
                tuple(bool(row.tricks[side]) for side in sides),
            )
        )
    return rules.replay(series.shape.sides, deals, rules=series.ruleset)


def assert_stored_matches_replay(series: Series) -> rules.SeriesState:
    """The derived fields on the series and its seats are exactly what a replay says."""
    series.refresh_from_db()
    state = independent_state(series)
    assert series.deal_count == len(state.deals)
    assert series.totals == list(state.totals)
    assert series.finished == state.finished
    assert (series.finished_at is not None) == state.finished
    assert series.winner_side == state.winner
    assert series.goat_sides == list(state.goats)
    assert series.eggs == state.eggs
    assert series.multiplier == state.multiplier
    for seat in series.seats.all():
        assert seat.total == state.totals[seat.side]
        assert seat.is_goat == (seat.side in state.goats)
        assert seat.is_winner == (state.winner == seat.side)
        tally = rules.side_tallies(state)[seat.side]
        assert (seat.deals_played, seat.deals_won, seat.deals_lost) == (
            tally.played,
            tally.won,
            tally.lost,
        )
        assert (seat.deals_naked, seat.deals_eggs, seat.narrow_saves) == (
            tally.naked,
            tally.eggs,
            tally.narrow_saves,
        )
    return state


def totals_forget(league: League) -> None:
    """Forget the league's running totals, as a release that starts them afresh does: the
    standings show nothing until they are folded again (``manage.py fold_standings``)."""
    RunningTotal.objects.filter(league=league).delete()
    PairResult.objects.filter(league=league).delete()
    League.objects.filter(pk=league.pk).update(
        totals_until=None, totals_until_series=None, totals_rulesets=[]
    )
    league.refresh_from_db()


def totals_refold(league: League) -> None:
    """Fold the league's running totals again from nothing (for a test that moved
    ``finished_at`` by hand, past ``results_changed``)."""
    totals_forget(league)
    totals_fold(league_id=league.pk)
    league.refresh_from_db()


def grow(league: League, series: int, start: int = 0) -> None:
    """More finished series with new players: a bigger league, for pages that must not cost more."""
    for n in range(start, start + series):
        names = (f"North {n}", f"East {n}", f"South {n}", f"West {n}")
        finished(league, names=names, loser=n % 2)


def league_snapshot(league: League) -> tuple:
    """Everything a league action could change, as plain comparable data."""
    stored = League.objects.filter(pk=league.pk).first()
    return (
        stored
        and (
            stored.name,
            stored.rules,
            stored.invite_token,
            stored.invite_role,
            stored.share_token,
            stored.archived_at,
        ),
        list(Membership.objects.filter(league=league.pk).order_by("pk").values()),
        list(LeagueEvent.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
        list(Series.objects.order_by("pk").values()),
        list(Deal.objects.order_by("pk").values()),
        League.objects.count(),
        list(Event.objects.order_by("pk").values()),
        list(EventRound.objects.order_by("pk").values()),
        list(EventTable.objects.order_by("pk").values()),
        list(Table.objects.order_by("pk").values()),
    )


def make_event(
    league: League,
    count: int = 8,
    *,
    rounds: int = 3,
    names: Sequence[str] | None = None,
    **options,
) -> Event:
    """A club night in ``league`` for ``count`` new players ("Player 01"…, or ``names``), its
    first round started."""
    from scoring.events import services as event_services

    names = names or [f"Player {n:02}" for n in range(1, count + 1)]
    players = [Player.objects.get_or_create(name=name, league=league)[0] for name in names[:count]]
    settings = {
        "name": "Friday night",
        "rounds": rounds,
        "length": "goat",
        "length_value": None,
        "ruleset": rules.PRESETS["classic"],
        "three_player_tables": False,
        "tie_break": "difference",
        "seed": 1,
    }
    settings.update(options)
    return event_services.event_create(league=league, players=players, **settings)


# --- Work off the request ------------------------------------------------------------------------


def run_tasks() -> None:
    """Run every queued task to its end, as ``manage.py task_worker``'s worker does beside the
    servers (a test that runs it is ``django_db(transaction=True)``: the worker commits as it
    goes)."""
    call_command("db_worker", batch=True, reload=False, startup_delay=False, verbosity=0)


def export_downloaded(client: Client, url: str):
    """Ask for the download at ``url`` (a POST), let the worker make it, and fetch the file:
    the file's response, checked to be whole."""
    asked = client.post(url)
    assert asked.status_code == 302, asked.status_code
    run_tasks()
    page = client.get(asked["Location"])
    assert page.status_code == 200 and "/download" in html(page)
    download = client.get(asked["Location"] + "download")
    assert download.status_code == 200, download.status_code
    assert (
        int(download["Content-Length"])
        == Export.objects.get(pk=page.context["state"].export.pk).size
    )
    return download


# --- Other processes -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Browser:
    """A phone's browser, reduced to what matters here: its cookies, sent to every server."""

    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self,
        port: int,
        method: str,
        path: str,
        data: dict | None = None,
        headers: dict | None = None,
    ):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        headers = {
            "Host": f"127.0.0.1:{port}",
            "X-Forwarded-Proto": "https",  # as the TLS-terminating proxy would say
            "Referer": f"https://127.0.0.1:{port}{path}",
            **(headers or {}),
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if data is not None:
            body = urlencode(data)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read().decode()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            value = rest.split(";", 1)[0]
            if value and "max-age=0" not in header.lower():
                self.cookies[name] = value
            else:
                self.cookies.pop(name, None)
        return response.status, response.headers, content

    def get(self, port: int, path: str):
        return self.request(port, "GET", path)

    def post(self, port: int, path: str, data: dict):
        return self.request(port, "POST", path, data)


def csrf_token(page: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert match, "the page has a form with a CSRF token"
    return match.group(1)


def form_value(page: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert match, f"the page has a {name} field"
    return match.group(1)


def manage(*args: str, env: dict[str, str], timeout: int = 180) -> subprocess.CompletedProcess:
    """``manage.py`` run in a process of its own, with ``env`` as its whole environment."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# --- Pages ----------------------------------------------------------------------------------------


def html(response) -> str:
    return response.content.decode()


def streamed(response) -> str:
    """A streamed download's text (without the byte-order mark of a CSV)."""
    return b"".join(response.streaming_content).decode("utf-8-sig")


def query_count(client: Client, url: str) -> int:
    """How many queries a GET of ``url`` costs (a download read to its end)."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
        if response.streaming:
            streamed(response)
    assert response.status_code == 200, url
    return len(queries.captured_queries)


def entry_key(response) -> str:
    """The one-time key of the deal form in a rendered scoreboard."""
    match = re.search(r'name="entry_key" value="([^"]+)"', response.content.decode())
    assert match, "the page has no deal form"
    return match.group(1)


def deal_data(response, **fields) -> dict:
    """The POST of the deal form shown in ``response``, with its hidden fields, plus ``fields``."""
    html = response.content.decode()
    number = re.search(r'name="number" value="(\d+)"', html)
    key = re.search(r'name="entry_key" value="([^"]+)"', html)
    assert number and key, "the page has no deal form"
    return {"number": number.group(1), "entry_key": key.group(1), **fields}


def undo_data(response) -> dict:
    """The POST of the undo button shown in ``response``: the deal and the series' version."""
    html = response.content.decode()
    form = re.search(
        r'action="/series/\d+/undo/".*?name="number" value="(\d+)".*?name="version" value="(\d+)"',
        html,
        re.DOTALL,
    )
    assert form, "the page has no undo button"
    return {"number": form.group(1), "version": form.group(2)}


def edit_data(response, **fields) -> dict:
    """The POST of the edit form shown in ``response``: its version, plus ``fields``."""
    version = re.search(r'name="version" value="(\d+)"', response.content.decode())
    assert version, "the page has no edit form"
    return {"version": version.group(1), **fields}


class _ScoreLines(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.depth = 0  # open spans inside a score line (0: outside)
        self.hidden = 0  # the depth at which a visually hidden span opened

    def handle_starttag(self, tag, attrs) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "span" and (self.depth or "score-line" in classes):
            if not self.depth:
                self.lines.append("")
            self.depth += 1
            if "visually-hidden" in classes and not self.hidden:
                self.hidden = self.depth
        elif tag == "img" and self.depth and "goat-icon" in classes:
            self.lines[-1] += f"[{dict(attrs)['alt']}]"

    def handle_endtag(self, tag) -> None:
        if tag == "span" and self.depth:
            if self.hidden == self.depth:
                self.hidden = 0
            self.depth -= 1

    def handle_data(self, data) -> None:
        if self.depth and not self.hidden:
            self.lines[-1] += data


def score_lines(page: str) -> list[str]:
    """The series scores a page lists, as text: "[goat] Anna & Vera 12 : 0 Boris & Gleb"."""
    parser = _ScoreLines()
    parser.feed(page)
    return [" ".join(line.split()) for line in parser.lines]  # split() takes no-break spaces too


def play(client: Client, series: Series, htmx: bool = False, **fields):
    """Open the scoreboard, fill in the deal form with ``fields`` and submit it."""
    url = series.get_absolute_url()
    headers = {"HX-Request": "true"} if htmx else {}
    page = client.get(url, headers=headers)
    return client.post(f"{url}deals/", deal_data(page, **fields), headers=headers)


# --- Races ---------------------------------------------------------------------------------------


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Run the calls in threads released together; each returns its result or its exception."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as error:  # the test looks at what each thread got
            results[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a racing thread hung"
    return results


def raced(scenario: str, races: int = 1) -> None:
    """Count a race for the suite's summary (``tests/race_report.py``)."""
    from django.db import connection

    from tests import race_report

    race_report.count(connection.vendor, scenario, races)


# --- Backups -------------------------------------------------------------------------------------


def exported(queryset=None, secrets=True) -> str:
    """The JSON export of ``queryset`` (every series by default), as one text."""
    return "".join(export_json(queryset if queryset is not None else Series.objects.all(),
                               secrets=secrets))  # fmt: skip


def wipe() -> None:
    """Every club night, league, player and series gone (and with them what hangs on them)."""
    Event.objects.all().delete()  # first: its tables keep their series
    Table.objects.all().delete()
    Series.objects.all().delete()
    Player.objects.all().delete()
    League.objects.all().delete()


def counts() -> tuple[int, ...]:
    """How many leagues, members, players, series, seats, deals and audit events there are."""
    models = (League, Membership, Player, Series, Seat, Deal, DealEvent)
    return tuple(model.objects.count() for model in models)
