"""``make loadtest``: how many club-night tables this site serves within its latency budget.

The budget of issue #26 is a club night, not a page. N tables, each with:

- four phones that opened the table's link for the evening, whose boards ask the table's live
  view for news every 2 s, as ``static/js/app.js`` does (``GET /tables/<token>/live/?version=<v>``
  with ``HX-Request: true``): nothing new is a 204, news a 200 with the fresh board, whose
  version the phone asks with from then on;
- one deal a minute: the scoring phone reads the table's board (``GET /tables/<token>/``) and
  posts its deal form as htmx does (to ``/series/<pk>/deals/``), with the form's CSRF token,
  number and one-time entry key and the points typed in;
- and one big screen per ten tables (one per club night) showing the leaderboard through its
  public link with ``?present=1``, refreshed by htmx (``HX-Request``, ``HX-Target`` ...) from
  the address its last board gave (``hx-get``, with the evening's version: nothing new is a
  204).

How often the board and the leaderboard ask is read from the pages themselves (``data-every``,
``hx-trigger``), once, before the run. Requests are sent open-loop: each leaves at its moment
(the phones' phases spread at random) whether or not the server kept up, and its latency counts
from that moment, so a server that falls behind sees its queue in the figures. A deal's latency
is the pair: from the moment its GET was due until the POST's answer has arrived (the POST alone
and the GET alone are printed too). Phones ask for gzip as browsers do.

A step runs N tables for a short warm-up and then a window of 60 s, in which every table posts
exactly one deal; only requests due in the window count. A step holds when, in its window,
nothing failed (an error, a timeout, an unexpected status) and the 99th percentile latency stays
under 200 ms for the live polls and for the big screens (each kind on its own) and under 300 ms
for the deals. The number of tables is searched on a ladder (10, 25, 50, 100, 150, 200, 250,
300, 400, 500, ...), after a warm-up step of 10 tables that is not counted: from 100 up by
doubling, then halving the gap between the last step that held and the first that did not; N is
the largest that held. A step that missed leaves its server restarted and warmed up again, so
that the next step is not measured on workers a queue far past N stuck or killed.

Measured in one run, one server after the other, each under this project's
``kozel_site/gunicorn.conf.py`` with 4 sync workers and production settings (``DEBUG`` off):

- this site on SQLite (a throw-away file);
- this site on PostgreSQL when ``LOADTEST_DATABASE_URL`` names one (created when missing,
  emptied first), e.g. ``postgres://postgres@127.0.0.1:5432/kozel_loadtest``;
- a bare Django project made on the fly (``startproject``, its own middleware) that answers the
  same mix with a trivial view per request: a 204 for a poll, a small page with a form (CSRF
  token, number, key) for the board and for the deal's POST, a small page for the big screen.

The site's data is made through the project's own services before its server starts: per club
night of ten tables a league, its organiser and 40 players, and a few club nights
(``events.services.event_create`` starts round 1's tables) whose tables a table plays one after
the other: a series ends at the goat after ten or eleven deals and its table moves on to the
next, so every table takes deals for the whole run. Each phone has its own session holding its
table's links (``access.remember_table``).

Prints, per step, the rates and p50/p99 latencies of each kind, the CPU of the server, of the
load generator and of the rest of the machine, and the load average; at the end N for the site
on each database beside bare Django's N and the ratio (issue #26's goal: N >= 100 on both
databases and >= 40 % of bare's N). Figures only: no speed is asserted (a QUICK run stops when a
request fails other than by a timeout: its code paths must work). The generator (asyncio with
plain sockets, one connection a request as gunicorn's sync workers close each) shares the two
cores with the servers; its CPU is printed so that it can be told apart. A whole run with both
databases takes 20 to 30 minutes (more steps when the site holds more tables).

``LOADTEST_PAGE_CACHE_URL`` (e.g. redis://127.0.0.1:6379/14, emptied before each site server):
the site's shared page cache (``PAGE_CACHE_URL``), only to measure code that still has one.
``LOADTEST_MAX_TABLES`` (default 800): the site's largest step (the data is made for it).
``BENCH_QUICK=1`` (``make loadtest QUICK=1``): every code path in a minute, figures meaningless.
"""

from __future__ import annotations

import asyncio
import html
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from quick import QUICK, scaled

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))
from scoring import rules  # noqa: E402 (the engine alone: pure Python, no Django)

WORKERS = 4
PHONES = 4  # a table's phones; the first one scores
TABLES_PER_SCREEN = 10  # a club night's tables: one big screen each
PLAYERS_PER_TABLE = 4
ROUNDS = 5  # a club night's planned rounds (round 1 is played)
DEAL_EVERY = scaled(60, 1)  # seconds between a table's deals
WARM_UP = scaled(10, 1)
WINDOW = scaled(60, 6)  # >= DEAL_EVERY: every table posts a deal in it
TIMEOUT = 5.0  # seconds a request may take before it counts as failed
BUDGET_MS = {"live poll": 200, "big screen": 200, "deal": 300}
LADDER = [1, 2] if QUICK else [10, 25, 50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1200, 1600]
START = 1 if QUICK else 100
MAX_SITE_TABLES = int(os.environ.get("LOADTEST_MAX_TABLES") or scaled(800, 2))
#: Side 0's card points, deal after deal (the other side takes the rest of 120): classic rules
#: end such a series at the goat after 10 or 11 deals. QUICK: a 3-deal series (4 points each).
POINTS = (100,) if QUICK else (70, 45, 60, 85, 35, 75, 50, 20, 65, 60, 40, 90)
GOAL = "N >= 100 and >= 40 % of bare Django's N"

BARE_VIEWS = '''
"""One trivial view per request of the club night's mix."""
import uuid

from django.http import HttpResponse
from django.template import engines
from django.views.decorators.http import require_GET, require_POST

BOARD = engines["django"].from_string(
    '<!doctype html><title>Table</title><section id="scoreboard" data-version="1">'
    '<form method="post" class="deal-form" action="/series/{{ pk }}/deals/">{% csrf_token %}'
    '<input type="hidden" name="number" value="1">'
    '<input type="hidden" name="entry_key" value="{{ key }}">'
    '<input type="number" name="points_0" value="" data-points>'
    '<input type="number" name="points_1" value="" data-points>'
    "<button>Record deal</button></form></section>"
)
SCREEN = "<!doctype html><title>Leaderboard</title><table>" + "<tr><td>Player</td></tr>" * 40


@require_GET
def board(request, pk):
    return HttpResponse(BOARD.render({"pk": pk, "key": uuid.uuid4()}, request))


@require_POST
def deal(request, pk):
    return HttpResponse(BOARD.render({"pk": pk, "key": uuid.uuid4()}, request))


@require_GET
def live(request, pk):
    return HttpResponse(status=204)


@require_GET
def screen(request, token):
    return HttpResponse(SCREEN + "</table>")
'''
BARE_URLS = """
from django.urls import path

from bare import views

urlpatterns = [
    path("series/<int:pk>/", views.board),
    path("series/<int:pk>/deals/", views.deal),
    path("series/<int:pk>/live/", views.live),
    path("public/events/<str:token>/", views.screen),
]
"""


# The site's data (made in a child process with Django loaded) ---------------------------------


def series_length(offset: int) -> int:
    """Deals until the goat of a series whose deals take ``POINTS`` from ``offset`` on."""
    series, number = rules.Series(2, rules=rules.PRESETS["classic"]), 0
    while not series.finished:
        points = POINTS[(offset + number) % len(POINTS)]
        series.add((points, rules.DEAL_TOTAL - points))
        number += 1
    return number


def series_per_table() -> int:
    """Enough series for a table that takes part in every step of a search."""
    deals = (len(LADDER) + 1) * math.ceil((WARM_UP + WINDOW) / DEAL_EVERY)  # and a warm-up
    shortest = min(series_length(offset) for offset in range(len(POINTS)))
    return math.ceil(deals / shortest) + 1


def make_data(tables: int, supply: int) -> dict:
    """Club nights of up to ten tables, ``supply`` series a table, four phones' sessions a
    table; and how often the pages ask (read from them, rendered here)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    import django

    django.setup()
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.http import HttpRequest
    from django.test import Client
    from django.urls import reverse

    from scoring.access import remember_table
    from scoring.events import services as events
    from scoring.events.tables import live_version
    from scoring.leagues.services import league_create
    from scoring.models import EventTable

    call_command("flush", interactive=False, verbosity=0)
    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore
    made_tables, screens = [], []
    for club in range(math.ceil(tables / TABLES_PER_SCREEN)):
        size = min(TABLES_PER_SCREEN, tables - club * TABLES_PER_SCREEN)
        organiser = get_user_model().objects.create_user(f"organiser-{club + 1}", password=None)
        league = league_create(name=f"Club {club + 1}", user=organiser)
        names = [f"Player {club + 1}.{n + 1}" for n in range(size * PLAYERS_PER_TABLE)]
        nights, links = [], []
        for night in range(supply):
            event = events.event_create(
                league=league,
                name=f"Club night {night + 1}",
                players=[],
                names=names,
                rounds=ROUNDS,
                length="goat",
                length_value=None,
                ruleset=rules.PRESETS["classic"],
                three_player_tables=False,
                tie_break="difference",
                seed=night + 1,
                user=organiser,
            )
            event = events.share_renew(event=event)
            links.append(reverse("event_public", args=[event.share_token]) + "?present=1")
            seated = EventTable.objects.filter(round__event=event).order_by("number")
            links_of = {link.number: link for link in event.table_links.all()}
            # The version a phone that opened the link holds: what the live view compares with.
            nights.append(
                [
                    (links_of[table.number], live_version(links_of[table.number].token))
                    for table in seated
                ]
            )
        screens.append(links)
        for number in range(size):
            supplied = [night[number] for night in nights]
            phones = []
            for _ in range(PHONES):  # every phone at the table opened the table's link
                request = HttpRequest()
                request.session = SessionStore()
                for link, _version in supplied:
                    remember_table(request, link)
                request.session.create()
                phones.append({settings.SESSION_COOKIE_NAME: request.session.session_key})
            made_tables.append(
                {
                    "phones": phones,
                    "series": [
                        {
                            "board": reverse("table_link", args=[link.token]),
                            "live": reverse("table_live", args=[link.token]),
                            "version": version,
                        }
                        for link, version in supplied
                    ],
                }
            )
    from django.db import connection

    if connection.vendor == "postgresql":
        # A database in use has its planner's statistics (autovacuum's ANALYZE); this machine's
        # PostgreSQL runs without autovacuum, and the tables just filled would be planned blind.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    client = Client(SERVER_NAME="127.0.0.1")
    client.cookies.load(made_tables[0]["phones"][0])
    board = client.get(made_tables[0]["series"][0]["board"]).content.decode()
    screen = client.get(screens[0][0]).content.decode()
    poll_every = re.search(r'id="scoreboard"[^>]*data-every="([0-9.]+)"', board)
    screen_every = re.search(r'hx-trigger="every ([0-9.]+)s"', screen)
    if not (poll_every and screen_every and deal_form(board)):
        raise SystemExit("loadtest: the board or the leaderboard no longer reads as expected")
    first = made_tables[0]["series"][0]
    if client.get(first["live"], {"version": first["version"]}).status_code != 204:
        raise SystemExit("loadtest: a phone's first poll has news: its version is not the live one")
    return {
        "tables": made_tables,
        "screens": screens,
        "poll_every": float(poll_every.group(1)),
        "screen_every": float(screen_every.group(1)),
    }


def bare_data(tables: int, poll_every: float, screen_every: float) -> dict:
    """The same shape for the bare project: its views take any id."""
    return {
        "tables": [
            {
                "phones": [{} for _ in range(PHONES)],
                "series": [{"board": f"/series/{n}/", "live": f"/series/{n}/live/", "version": 1}],
            }
            for n in range(1, tables + 1)
        ],
        "screens": [
            [f"/public/events/{club}/?present=1"]
            for club in range(math.ceil(tables / TABLES_PER_SCREEN))
        ],
        "poll_every": poll_every,
        "screen_every": screen_every,
    }


# The servers -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def empty_page_cache() -> None:
    """Empty the Redis of ``LOADTEST_PAGE_CACHE_URL`` (the site's shared page cache), if any:
    the databases' ids are alike, so a page kept for one must not be served for the other."""
    url = os.environ.get("LOADTEST_PAGE_CACHE_URL", "")
    if url:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).flushdb()


def production_env(work: Path, database: str) -> dict[str, str]:
    return dict(
        os.environ,
        PAGE_CACHE_URL=os.environ.get("LOADTEST_PAGE_CACHE_URL", ""),
        DEBUG="false",
        SECRET_KEY="loadtest-only-" + uuid.uuid4().hex + uuid.uuid4().hex,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        SECURE_HSTS_SECONDS="0",
        SECURE_PROXY_SSL_HEADER="false",
        DATABASE_URL=database,
        STATIC_ROOT=str(work / "static"),
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
        WEB_CONCURRENCY=str(WORKERS),
        PYTHONPATH=str(ROOT),
    )


def postgres_ready(url: str) -> None:
    """The database named by ``url``, created when missing (it is emptied by the data step)."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as connection:
        if not connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone():
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def site_data(env: dict[str, str], tables: int) -> dict:
    """Migrate, collect static files and make the club nights (in a child process)."""
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
    started = time.perf_counter()
    supply = series_per_table()
    done = subprocess.run(
        [sys.executable, __file__, "--data", str(tables), str(supply)],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    print(
        f"   {tables} tables in {math.ceil(tables / TABLES_PER_SCREEN)} clubs, {supply} series "
        f"a table, {tables * PHONES} phones' sessions: {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def bare_project(work: Path) -> Path:
    """``startproject`` with the mix's trivial views; DEBUG off, as the site runs."""
    home = work / "bare"
    home.mkdir()
    subprocess.run([BIN / "django-admin", "startproject", "bare", str(home)], check=True)
    (home / "bare" / "views.py").write_text(BARE_VIEWS)
    (home / "bare" / "urls.py").write_text(BARE_URLS)
    settings = home / "bare" / "settings.py"
    text = settings.read_text().replace("DEBUG = True", "DEBUG = False")
    text = text.replace("ALLOWED_HOSTS = []", 'ALLOWED_HOSTS = ["127.0.0.1", "localhost"]')
    settings.write_text(text)
    return home


class Server:
    """gunicorn with the project's config, in its own process group."""

    def __init__(self, app: str, cwd: Path, env: dict[str, str], ready: str):
        self.port, self.ready = free_port(), ready
        command = [
            str(BIN / "gunicorn"),
            "-c",
            str(ROOT / "kozel_site" / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{self.port}",
            "--access-logfile",
            os.devnull,
            app,
        ]
        self.app, self.command, self.cwd, self.env = app, command, cwd, env
        self.start()

    def start(self) -> None:
        """Start gunicorn and wait until it answers."""
        self.process = subprocess.Popen(
            self.command, cwd=self.cwd, env=self.env, start_new_session=True
        )
        if self.answer_time(deadline=30) is None:
            self.stop()
            raise SystemExit(f"{self.app} did not answer on port {self.port}")

    def restart(self) -> None:
        self.stop()
        self.start()

    def answer_time(self, deadline: float) -> float | None:
        """Seconds the server took to answer ``ready`` (any status below 500), asked until
        ``deadline`` seconds have passed; None if it never did."""
        import http.client

        give_up = time.monotonic() + deadline
        while time.monotonic() < give_up:
            started = time.monotonic()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=deadline)
                connection.request("GET", self.ready)
                if connection.getresponse().status < 500:
                    return time.monotonic() - started
            except OSError:
                time.sleep(0.1)
            finally:
                connection.close()
        return None

    def settle(self) -> None:
        """Wait until the requests left queued by a step have been served (at most 60 s)."""
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            took = self.answer_time(deadline=10)
            if took is not None and took < 0.02:
                return
            time.sleep(0.5)

    def cpu(self) -> float:
        """Seconds of CPU of the server's process group (master, workers, workers reaped)."""
        total = 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            if int(fields[2]) == self.process.pid:
                total += int(fields[11]) + int(fields[12])  # user and system ticks
                if int(entry.name) == self.process.pid:  # and its reaped workers'
                    total += int(fields[13]) + int(fields[14])
        return total / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


# The phones and the big screens ----------------------------------------------------------------

DEAL_FORM = re.compile(r'<form\b[^>]*\bclass="deal-form\b[^>]*>')
INPUT = re.compile(r"<input\b([^>]*)>")
ATTRIBUTE = re.compile(r'([\w:-]+)(?:="([^"]*)")?')
VERSION = re.compile(r'data-version="([0-9]+)"')
POLL = re.compile(r'<div id="board"[^>]*\shx-get="([^"]+)"')  # the big screen's next poll


def deal_form(page: str) -> tuple[str, dict[str, str], list[str]] | None:
    """The deal form as a browser submits it: where it posts, its named inputs (radios only
    when checked; an input outside it that names it by its id too) and the names of its points
    inputs; None when the board has none."""
    found = DEAL_FORM.search(page)
    if found is None:
        return None
    tag = dict(ATTRIBUTE.findall(found.group(0)))
    fields, points = {}, []
    inside = range(found.end(), page.find("</form>", found.end()))
    for element in INPUT.finditer(page):
        attributes = dict(ATTRIBUTE.findall(element.group(1)))
        name = attributes.get("name")
        # Its inputs, and those elsewhere that name it (form="its id"), as a browser sends them.
        owner = attributes.get("form")
        if not (owner == tag.get("id") if owner else element.start() in inside):
            continue
        if not name or (attributes.get("type") == "radio" and "checked" not in attributes):
            continue
        fields[name] = html.unescape(attributes.get("value", ""))
        if "data-points" in attributes:
            points.append(name)
    return html.unescape(tag.get("hx-post") or tag["action"]), fields, points


@dataclass
class Phone:
    cookies: dict[str, str]
    versions: dict[str, int] = field(default_factory=dict)  # by the series' live path
    polls: dict[str, str] = field(default_factory=dict)  # a big screen's: by its page's path


@dataclass
class Table:
    """A table and its supply of series, played one after the other."""

    number: int
    series: list[dict]
    phones: list[Phone]
    at: int = 0
    posting: bool = False  # a deal of this table is on its way

    @property
    def current(self) -> dict:
        return self.series[self.at]

    def move_on(self) -> None:
        if self.at + 1 == len(self.series):
            raise RuntimeError("a table ran out of series: raise series_per_table()")
        self.at += 1

    def points(self, number: int) -> int:
        return POINTS[(self.number + number - 1) % len(POINTS)]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    cookies: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        if self.headers.get("transfer-encoding"):  # Django's CommonMiddleware gives a length
            raise Failed("an answer in chunks")
        body = self.body
        if self.headers.get("content-encoding") == "gzip":
            body = zlib.decompress(body, 31)
        return body.decode()


def parse(raw: bytes) -> Answer:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers, cookies = {}, {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        headers[name] = value
        if name == "set-cookie":
            pair = value.split(";", 1)[0]
            cookies[pair.partition("=")[0]] = pair.partition("=")[2]
    return Answer(int(lines[0].split()[1]), headers, cookies, body)


class Exchange:
    """One request on its own non-blocking socket, driven by the event loop's callbacks alone (no
    task, future or transport: the generator shares the two cores with the servers). ``done``
    gets what came until the server closed the connection, or a ``Failed``."""

    def __init__(self, loop, port: int, request: bytes, deadline: float, done: Callable):
        self.loop, self.request, self.done, self.chunks = loop, request, done, []
        self.sock = socket.socket()
        self.sock.setblocking(False)
        self.fd = self.sock.fileno()
        self.timer = loop.call_at(deadline, self._finish, Failed("timed out"))
        self.sock.connect_ex(("127.0.0.1", port))  # in progress; writable once connected
        loop.add_writer(self.fd, self._send)

    def _send(self) -> None:
        try:
            self.request = self.request[self.sock.send(self.request) :]
        except OSError as error:  # refused, reset
            return self._finish(Failed(repr(error)))
        if not self.request:
            self.loop.remove_writer(self.fd)
            self.loop.add_reader(self.fd, self._receive)

    def _receive(self) -> None:
        try:
            data = self.sock.recv(1 << 18)
        except OSError as error:
            return self._finish(Failed(repr(error)))
        if data:
            self.chunks.append(data)
        else:
            self._finish(b"".join(self.chunks))

    def _finish(self, outcome: bytes | Failed) -> None:
        self.timer.cancel()
        self.loop.remove_writer(self.fd)
        self.loop.remove_reader(self.fd)
        self.sock.close()
        self.done(outcome)


class Failed(Exception):
    pass


@dataclass
class Figures:
    """What one step measured in its window."""

    tables: int
    latencies: dict[str, list[float]]
    failures: dict[str, int]
    examples: list[str]
    late: list[float]
    news: int = 0  # live polls answered with a fresh board
    errors: int = 0  # failures other than timeouts
    server_cpu: float = 0.0
    generator_cpu: float = 0.0
    rest_cpu: float = 0.0  # cores the rest of the machine kept busy meanwhile
    load: float = 0.0

    def percentile(self, kind: str, share: float) -> float:
        values = sorted(self.latencies[kind])
        if not values:
            return math.inf
        return values[max(0, math.ceil(share * len(values)) - 1)]

    def missed(self) -> list[str]:
        """Why the step did not hold (nothing: it held)."""
        reasons = [f"{count} {kind} failed" for kind, count in self.failures.items() if count]
        for kind, budget in BUDGET_MS.items():
            p99 = self.percentile(kind, 0.99)
            if p99 >= budget:
                reasons.append(f"{kind} p99 {p99:.0f} ms >= {budget}")
        return reasons


KINDS = ("live poll", "big screen", "deal", "board GET", "deal POST")


class ClubNight:
    """The open-loop load of N tables of ``data`` against one server."""

    def __init__(self, port: int, data: dict, seed: int):
        self.port, self.data = port, data
        self.host = f"127.0.0.1:{port}"
        self.origin = f"http://{self.host}"
        self.random = random.Random(seed)
        self.tables = [
            Table(n, table["series"], [Phone(dict(cookies)) for cookies in table["phones"]])
            for n, table in enumerate(data["tables"])
        ]
        self.screens = [Phone({}) for _ in data["screens"]]

    def step(self, tables: int) -> Figures:
        return asyncio.run(self._step(tables))

    async def _step(self, tables: int) -> Figures:
        self.loop = asyncio.get_running_loop()
        self.open = 0  # requests under way
        self.deals: set[asyncio.Task] = set()
        self.figures = Figures(
            tables, {kind: [] for kind in KINDS}, dict.fromkeys(KINDS, 0), [], []
        )
        start = self.loop.time() + 0.5
        self.window = (start + WARM_UP, start + WARM_UP + WINDOW)
        end = self.window[1]
        every, screen_every = self.data["poll_every"], self.data["screen_every"]
        for table in self.tables[:tables]:
            for phone in table.phones:
                first = start + self.random.uniform(0, every)
                self._every(every, first, end, self._poll, table, phone)
            first = start + self.random.uniform(0, DEAL_EVERY)
            self._every(DEAL_EVERY, first, end, self._deal, table)
        for club in range(math.ceil(tables / TABLES_PER_SCREEN)):
            first = start + self.random.uniform(0, screen_every)
            self._every(screen_every, first, end, self._screen, club)
        await asyncio.sleep(end - self.loop.time())
        while self.open or self.deals:
            await asyncio.sleep(0.05)
        return self.figures

    def _every(self, period: float, first: float, end: float, send: Callable, *args) -> None:
        """``send(moment, *args)`` at ``first``, then every ``period`` s until ``end``."""

        def tick(moment: float) -> None:
            if self._counted(moment):
                self.figures.late.append((self.loop.time() - moment) * 1000)
            send(moment, *args)
            if moment + period < end:
                self.loop.call_at(moment + period, tick, moment + period)

        if first < end:
            self.loop.call_at(first, tick, first)

    def _counted(self, moment: float) -> bool:
        return self.window[0] <= moment < self.window[1]

    def _request(self, method: str, path: str, phone: Phone, extra: str = "", body=b"") -> bytes:
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}",
            "User-Agent: kozel-loadtest",
            "Accept-Encoding: gzip",
            "Connection: close",
        ]
        if phone.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in phone.cookies.items()))
        if body:
            lines.append("Content-Type: application/x-www-form-urlencoded")
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n" + extra + "\r\n").encode() + body

    def _send(self, request: bytes, deadline: float, then: Callable) -> None:
        """Send ``request``; ``then(outcome)`` with its raw answer or a ``Failed``."""
        self.open += 1

        def done(outcome: bytes | Failed) -> None:
            self.open -= 1
            then(outcome)

        Exchange(self.loop, self.port, request, deadline, done)

    def _fetch(self, request: bytes, deadline: float) -> asyncio.Future:
        future = self.loop.create_future()
        self._send(request, deadline, future.set_result)
        return future

    @staticmethod
    def _answer(outcome: bytes | Failed, phone: Phone, expected: tuple[int, ...]) -> Answer:
        if isinstance(outcome, Failed):
            raise outcome
        answer = parse(outcome)
        phone.cookies.update(answer.cookies)
        if answer.status not in expected:
            raise Failed(f"answered {answer.status}")
        return answer

    def _failed(self, kinds: list[str], moment: float, error: Exception) -> None:
        if not self._counted(moment):
            return
        for kind in kinds:
            self.figures.failures[kind] += 1
        self.figures.errors += str(error) != "timed out"
        if len(self.figures.examples) < 5:
            self.figures.examples.append(f"{kinds[-1]}: {error}")

    def _took(self, kind: str, moment: float, since: float) -> None:
        if self._counted(moment):
            self.figures.latencies[kind].append((self.loop.time() - since) * 1000)

    def _poll(self, moment: float, table: Table, phone: Phone) -> None:
        series = table.current
        version = phone.versions.get(series["live"], series["version"])
        path = f"{series['live']}?version={version}"
        request = self._request("GET", path, phone, "HX-Request: true\r\n")

        def then(outcome: bytes | Failed) -> None:
            try:
                answer = self._answer(outcome, phone, (200, 204))
                self._took("live poll", moment, moment)
                if answer.status == 200:
                    self.figures.news += self._counted(moment)
                    self._read_version(answer.text, series, phone)
            except Exception as error:  # counted and shown, never lost
                self._failed(["live poll"], moment, error)

        self._send(request, moment + TIMEOUT, then)

    def _read_version(self, page: str, series: dict, phone: Phone) -> None:
        found = VERSION.search(page)
        if found is None:
            raise Failed("a board without its version")
        phone.versions[series["live"]] = max(
            int(found.group(1)), phone.versions.get(series["live"], 0)
        )

    def _deal(self, moment: float, table: Table) -> None:
        if table.posting:  # a table types its next deal once its last one is answered
            return  # (only QUICK's deal a second can catch up with a slow answer)
        table.posting = True
        task = self.loop.create_task(self._read_and_post(moment, table))
        self.deals.add(task)
        task.add_done_callback(self.deals.discard)

    async def _read_and_post(self, moment: float, table: Table) -> None:
        kinds, deadline = ["deal", "board GET"], moment + 2 * TIMEOUT
        series, phone = table.current, table.phones[0]
        try:
            request = self._request("GET", series["board"], phone)
            page = self._answer(await self._fetch(request, deadline), phone, (200,)).text
            self._took("board GET", moment, moment)
            kinds[-1] = "deal POST"
            form = deal_form(page)
            if form is None:  # the series ended and its end was not seen (a lost answer)
                table.move_on()
                raise Failed("a board without a deal form")
            self._read_version(page, series, phone)
            action, fields, points = form
            if len(points) != 2:
                raise Failed(f"a deal form with {len(points)} sides")
            scored = table.points(int(fields["number"]))
            fields[points[0]], fields[points[1]] = str(scored), str(rules.DEAL_TOTAL - scored)
            headers = (
                f"Origin: {self.origin}\r\nHX-Request: true\r\nHX-Target: scoreboard\r\n"
                f"HX-Current-URL: {self.origin}{series['board']}\r\n"
            )
            posted = self.loop.time()
            request = self._request("POST", action, phone, headers, urlencode(fields).encode())
            answer = self._answer(await self._fetch(request, deadline), phone, (200,)).text
            self._took("deal POST", moment, posted)
            self._took("deal", moment, moment)
            self._read_version(answer, series, phone)
            if DEAL_FORM.search(answer) is None:  # the goat: the table's next series
                table.move_on()
        except Exception as error:  # counted and shown, never lost
            self._failed(kinds, moment, error)
        finally:
            table.posting = False

    def _screen(self, moment: float, club: int) -> None:
        # The club night its first table plays (its tables move on to the next one together).
        links, screen = self.data["screens"][club], self.screens[club]
        page = links[min(self.tables[club * TABLES_PER_SCREEN].at, len(links) - 1)]
        # htmx asks the address the board it shows gave (hx-get: with the evening's version,
        # answered 204 while nothing changed); the first time, the page's own address.
        path = screen.polls.get(page, page)
        headers = (
            f"HX-Request: true\r\nHX-Target: board\r\nHX-Trigger: board\r\n"
            f"HX-Current-URL: {self.origin}{path}\r\n"
        )

        def then(outcome: bytes | Failed) -> None:
            try:
                answer = self._answer(outcome, screen, (200, 204))
                self._took("big screen", moment, moment)
                if answer.status == 200:
                    found = POLL.search(answer.text)
                    screen.polls[page] = html.unescape(found.group(1)) if found else page
            except Exception as error:  # counted and shown, never lost
                self._failed(["big screen"], moment, error)

        self._send(self._request("GET", path, screen, headers), moment + TIMEOUT, then)


# The search --------------------------------------------------------------------------------------


def search(ladder: list[int], holds: Callable[[int], bool], start: int) -> tuple[int | None, bool]:
    """The largest rung of ``ladder`` that holds, and whether it is the top one: from the rung
    ``start`` (or the one below it) up by doubling, then halving the gap between the last rung
    that held and the first that did not."""
    best, worst = -1, len(ladder)  # indexes: the largest that held, the smallest that did not
    at = max((i for i, rung in enumerate(ladder) if rung <= start), default=0)
    while True:
        if holds(ladder[at]):
            best = at
        else:
            worst = at
        if worst - best <= 1:
            break
        if worst == len(ladder):
            at = next((i for i, r in enumerate(ladder) if r >= 2 * ladder[best]), len(ladder) - 1)
            at = max(at, best + 1)
        else:
            at = (best + worst) // 2
    return (ladder[best] if best >= 0 else None), best == len(ladder) - 1


def report(name: str, figures: Figures) -> None:
    missed = figures.missed()
    tables = figures.tables
    screens = math.ceil(tables / TABLES_PER_SCREEN)
    verdict = "held" if not missed else "missed: " + "; ".join(missed)
    print(f"-- {name}, {tables} tables ({tables * PHONES} phones, {screens} screens): {verdict}")
    print(f"   {'':<16}{'sent/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'failed':>8}")
    for kind in KINDS:
        values = figures.latencies[kind]
        sent = len(values) + figures.failures[kind]
        top = max(values) if values else math.inf
        print(
            f"   {kind:<16}{sent / WINDOW:>8.1f}{figures.percentile(kind, 0.5):>9.1f}"
            f"{figures.percentile(kind, 0.99):>9.1f}{top:>9.1f}{figures.failures[kind]:>8}"
        )
    late = sorted(figures.late)
    late_p99 = late[math.ceil(0.99 * len(late)) - 1] if late else 0.0
    polls = len(figures.latencies["live poll"])
    print(
        f"   live polls with news (200): {figures.news / max(polls, 1):.1%}; sends late by p99 "
        f"{late_p99:.1f} ms; load average {figures.load:.2f}"
    )
    print(
        f"   CPU: server {figures.server_cpu:.0%} of a core "
        f"({figures.server_cpu * 1000 / tables:.1f} ms a second a table), load generator "
        f"{figures.generator_cpu:.0%}, the rest of the machine {figures.rest_cpu:.0%} "
        "(the database, Redis, others' work)"
    )
    for example in figures.examples:
        print(f"   failure: {example}")
    sys.stdout.flush()


def machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent since it started (Linux's /proc/stat)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    busy = sum(int(value) for value in fields[:8]) - int(fields[3]) - int(fields[4])
    return busy / os.sysconf("SC_CLK_TCK")  # all but idle and I/O wait


def measure(name: str, server: Server, data: dict, ladder: list[int]) -> dict:
    """Search the largest N for one server; its steps' figures as printed."""
    club = ClubNight(server.port, data, seed=26)
    steps = []

    def holds(tables: int) -> bool:
        spent, mine, busy = server.cpu(), time.process_time(), machine_cpu()
        started = time.perf_counter()
        figures = club.step(tables)
        elapsed = time.perf_counter() - started
        figures.server_cpu = (server.cpu() - spent) / elapsed
        figures.generator_cpu = (time.process_time() - mine) / elapsed
        figures.rest_cpu = (machine_cpu() - busy) / elapsed
        figures.rest_cpu -= figures.server_cpu + figures.generator_cpu
        figures.load = os.getloadavg()[0]
        report(name, figures)
        if QUICK and figures.errors:  # a smoke run is for the code paths: they must work
            raise SystemExit(f"loadtest: {name}: requests failed, not only slowly")
        steps.append((tables, not figures.missed()))
        if figures.missed():
            # A server far past its N can be left with workers stuck or killed by their timeout
            # and a backlog of requests whose senders gave up (bare Django once missed 500
            # tables at 34 % of a core after 800): the next step starts on a fresh server.
            server.restart()
            warm_up()
        server.settle()
        return not figures.missed()

    def warm_up() -> None:
        # A server just started answers its first requests slowly (each worker loads its
        # templates and catalogues, opens its connection): seconds of queue at 100 tables,
        # which would count against the next step. A club night's server has long been warm;
        # a small step warms it.
        print(f"-- {name}: warming up ({ladder[0]} tables, not counted)", flush=True)
        club.step(ladder[0])
        server.settle()

    warm_up()
    found, top = search(ladder, holds, START)
    return {"n": found, "top": top, "steps": steps}


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="kozel-loadtest-"))
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path) -> None:
    started = time.perf_counter()
    databases = {"SQLite": f"sqlite:///{work / 'site.sqlite3'}"}
    if os.environ.get("LOADTEST_DATABASE_URL"):
        databases["PostgreSQL"] = os.environ["LOADTEST_DATABASE_URL"]
    cache = os.environ.get("LOADTEST_PAGE_CACHE_URL") or "none"
    print(
        f"== club nights: {PHONES} phones a table, a deal a table every {DEAL_EVERY} s, a big "
        f"screen per {TABLES_PER_SCREEN} tables; gunicorn, {WORKERS} sync workers, DEBUG off; "
        f"steps of {WARM_UP} s warm-up + {WINDOW} s measured; shared page cache: {cache}",
        flush=True,
    )
    site_ladder = [rung for rung in LADDER if rung <= MAX_SITE_TABLES]
    results: dict[str, dict] = {}
    intervals = None
    for label, database in databases.items():
        name = f"site on {label}"
        print(f"== {name}: making the data", flush=True)
        if label == "PostgreSQL":
            postgres_ready(database)
        env = production_env(work, database)
        data = site_data(env, max(site_ladder))
        intervals = intervals or (data["poll_every"], data["screen_every"])
        empty_page_cache()
        server = Server("kozel_site.wsgi:application", ROOT, env, "/healthz")
        try:
            results[name] = measure(name, server, data, site_ladder)
        finally:
            server.stop()
    print("== bare Django", flush=True)
    bare_home = bare_project(work)
    # The project on the path too: the shared gunicorn config names its access logger class.
    bare_env = dict(
        production_env(work, databases["SQLite"]),
        PYTHONPATH=os.pathsep.join([str(bare_home), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="bare.settings",
    )
    server = Server("bare.wsgi:application", bare_home, bare_env, "/series/1/live/")
    try:
        results["bare Django"] = measure(
            "bare Django", server, bare_data(max(LADDER), *intervals), LADDER
        )
    finally:
        server.stop()
    print()
    print(
        f"== the most club-night tables that held (p99: live polls and big screens < "
        f"{BUDGET_MS['live poll']} ms, deals (GET + POST) < {BUDGET_MS['deal']} ms, no failure)"
    )

    def said(result: dict) -> str:
        if result["n"] is None:
            return f"< {LADDER[0]}"
        return (">= " if result["top"] else "") + str(result["n"])

    bare = results["bare Django"]
    for name, result in results.items():
        steps = ", ".join(f"{n} {'held' if held else 'missed'}" for n, held in result["steps"])
        ratio = ""
        if name != "bare Django" and result["n"] and bare["n"]:
            ratio = f"  {result['n'] / bare['n']:.0%} of bare"
        print(f"{name:<22}N {said(result):>7}{ratio}   ({steps})")
    print(f"goal: {GOAL}; whole run {(time.perf_counter() - started) / 60:.0f} min")
    if QUICK:
        print("QUICK=1: tiny steps; these figures mean nothing.")


if __name__ == "__main__":
    if "--data" in sys.argv:
        tables, supply = (int(value) for value in sys.argv[2:4])
        print(json.dumps(make_data(tables, supply)))
    else:
        main()
