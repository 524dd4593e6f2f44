"""``make loadtest``: this site against a bare Django project under the same gunicorn, in one run.

The bare project is made on the fly (``django-admin startproject``, its own middleware, one view
answering GET and POST with a 1 KB page). Both are served by gunicorn with this project's
``kozel_site/gunicorn.conf.py`` (the same workers, timeouts and access log), production settings
(``DEBUG`` off), on free local ports, one after the other so they never share the machine. Then:

- GETs under ``wrk -t2 -c16`` (Debian's wrk): the scoreboard of a 20-deal game, the home page,
  the live poll while nothing changed (204), the standings of a league and its public standings;
  the bare project's page for each;
- the deal cycle: 8 clients, each reading a board and posting the next deal on it the way htmx
  does (one request for the fresh board), against GET + POST of the bare page.

Prints requests (or cycles) per second and the 99th percentile latency of each, and the ratio
this site / bare Django, with the goals of issue #14 beside them (scoreboard and home >= 35 %,
deal cycle >= 20 %). It asserts nothing. ``ROUNDS`` rounds alternate the two servers; each figure
keeps its best round (a busy moment of a shared machine only ever takes away).

The site's workers share their page cache in a Redis (``PAGE_CACHE_URL``, as docs/DEPLOY.md
advises for several processes) when one answers at ``LOADTEST_PAGE_CACHE_URL`` (default
redis://127.0.0.1:6379/14, emptied; "" for each worker's own memory). SQLite in a throw-away
folder unless ``LOADTEST_DATABASE_URL`` names another database (for
example ``postgres://postgres@127.0.0.1:5432/kozel_loadtest``, emptied first). ``BENCH_QUICK=1``
(``make loadtest QUICK=1``): one short round, every code path, figures meaningless.
``LOADTEST_ONLY`` (comma-separated names, e.g. ``deal cycle``): only those figures, to follow
one change quickly.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from quick import QUICK, scaled

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SECONDS = scaled(8, 1)
ROUNDS = scaled(3, 1)
WORKERS = 4
CYCLE_CLIENTS = 8
BOARD_DEALS = 20
#: Each cycle client gets this many games of 20 deals and moves on after 20 more deals on one.
GAMES_PER_CLIENT = scaled(45, 3)
GOALS = {"scoreboard GET": 0.35, "home GET": 0.35, "deal cycle": 0.20}

BARE_VIEW = """
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

PAGE = "<!doctype html><title>bare</title><p>" + "x" * 1000 + "</p>"


@csrf_exempt
def page(request):
    return HttpResponse(PAGE)
"""
BARE_URLS = """
from django.urls import path

from bare.views import page

urlpatterns = [path("", page)]
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def page_cache_url() -> str:
    """The Redis the site's workers share rendered pages in, as DEPLOY.md advises for several
    processes (``LOADTEST_PAGE_CACHE_URL``; "" for each worker's own memory): emptied first.
    Without a Redis answering, each worker keeps its own."""
    url = os.environ.get("LOADTEST_PAGE_CACHE_URL", "redis://127.0.0.1:6379/14")
    if not url:
        return ""
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=0.5).flushdb()
    except Exception:  # no Redis here: the workers' own memory, said in the header
        return ""
    return url


def production_env(work: Path) -> dict[str, str]:
    database = os.environ.get("LOADTEST_DATABASE_URL") or f"sqlite:///{work / 'site.sqlite3'}"
    return dict(
        os.environ,
        PAGE_CACHE_URL=page_cache_url(),
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


def bare_project(work: Path) -> Path:
    """``startproject`` with one view; DEBUG off, as the site runs."""
    home = work / "bare"
    home.mkdir()
    subprocess.run([BIN / "django-admin", "startproject", "bare", str(home)], check=True)
    (home / "bare" / "views.py").write_text(BARE_VIEW)
    (home / "bare" / "urls.py").write_text(BARE_URLS)
    settings = home / "bare" / "settings.py"
    text = settings.read_text().replace("DEBUG = True", "DEBUG = False")
    text = text.replace("ALLOWED_HOSTS = []", 'ALLOWED_HOSTS = ["127.0.0.1", "localhost"]')
    settings.write_text(text)
    return home


def site_data(env: dict[str, str]) -> dict:
    """Migrate, collect static files and make the games and the league (in a child process)."""
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
    done = subprocess.run(
        [sys.executable, __file__, "--data"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_data() -> dict:
    """The paths, cookies and games the load runs use (run in a child process by ``site_data``,
    which reads them as JSON; ``benchmarks/deal_cycle.py`` calls it in its own process)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from scoring import rules
    from scoring.access import SESSION_LINKS
    from scoring.leagues import services as league_services
    from scoring.models import Deal, League, Membership, Role, Seat, Series, new_token
    from scoring.table import services

    call_command("flush", interactive=False, verbosity=0)
    classic = rules.PRESETS["classic"]  # 60:60 scores nothing: a game that can take many deals

    def game(names: list[str], league: League | None = None, deals: int = BOARD_DEALS) -> Series:
        players = services.players_resolve(names=names, league=league, known=None)
        series = services.series_start(
            mode="teams", players=players, first_dealer=0, ruleset=classic, league=league
        )
        for number in range(1, deals + 1):
            # Mostly eggs, now and then a deal lost by 2: the game stays on at 20 deals.
            points = (70, 50) if number % 7 == 0 else (60, 60)
            services.deal_record(series_id=series.pk, number=number, points=points, tricks=None)
        series.refresh_from_db()
        return series

    def clone(series: Series) -> Series:
        """The same game again (its rows copied): cheap games for the deal cycle."""
        copy = Series.objects.get(pk=series.pk)
        copy.pk = None
        copy.score_token, copy.watch_token = new_token(), new_token()
        copy.save()
        for model in (Seat, Deal):
            rows = list(model.objects.filter(series=series))
            for row in rows:
                row.pk = None
                row.series = copy
                if model is Deal:
                    row.entry_key = None
            model.objects.bulk_create(rows)
        return copy

    def session_for(user=None, links: dict[str, str] | None = None) -> str:
        session = SessionStore()
        if user is not None:
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session[SESSION_LINKS] = links or {}
        session.create()
        return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"

    board = game(["Anna", "Boris", "Vera", "Gleb"])
    owner = get_user_model().objects.create_user("loadtest", password=None)
    league = League.objects.create(name="Thursday club")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    names = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zhenya", "Ilya"]
    for number in range(scaled(24, 4)):
        seated = [names[(number * 3 + seat * 5) % len(names)] for seat in range(4)]
        played = game(seated, league, deals=0)
        points = [20, 100, 45, 0, 60, 30, 110, 25, 80, 15, 70, 5] * 3
        for deal, side_zero in enumerate(points, start=1):
            if played.finished:
                break
            tricks = (side_zero > 0, True) if side_zero in (0, 120) else None
            played = services.deal_record(
                series_id=played.pk, number=deal, points=(side_zero, 120 - side_zero), tricks=tricks
            ).series
    league = league_services.share_renew(league=league)
    cycles = []
    for _ in range(CYCLE_CLIENTS):
        games = [clone(board) for _ in range(GAMES_PER_CLIENT)]
        links = {str(series.pk): series.score_token for series in games}
        cycles.append({"cookie": session_for(links=links), "games": [s.pk for s in games]})
    return {
        "board": f"/series/{board.pk}/",
        "live": f"/series/{board.pk}/live/?version={board.version}",
        "board_cookie": session_for(links={str(board.pk): board.score_token}),
        "owner_cookie": session_for(owner),
        "standings": f"/leagues/{league.pk}/standings/",
        "public": f"/public/{league.share_token}/",
        "cycles": cycles,
    }


class Server:
    """gunicorn with the project's config, in its own process group."""

    def __init__(self, app: str, cwd: Path, env: dict[str, str], ready: str):
        self.port = free_port()
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
        self.process = subprocess.Popen(command, cwd=cwd, env=env, start_new_session=True)
        # Answering, not just listening (the master binds before its workers have booted); then
        # a second of load, not measured, so that every worker has loaded the project.
        for _ in range(300):
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                connection.request("GET", ready)
                if connection.getresponse().status < 500:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            self.stop()
            raise SystemExit(f"{app} did not answer on port {self.port}")
        subprocess.run(
            ["wrk", "-t2", "-c16", "-d1s", f"http://127.0.0.1:{self.port}{ready}"],
            capture_output=True,
            check=True,
        )

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def wrk(port: int, path: str, headers: dict[str, str]) -> tuple[float, float]:
    """Requests per second and the 99th percentile latency (ms) of ``wrk -t2 -c16``."""
    command = ["wrk", "-t2", "-c16", f"-d{SECONDS}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    done = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=True
    )
    out = done.stdout
    if "Non-2xx or 3xx responses" in out or " 0 requests in" in out:
        raise SystemExit(f"{path}: error responses under load\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", out).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, flags=re.MULTILINE).group(1))
    return rate, p99


#: Where a board's deal form starts, and the inputs a cycle reads from it.
DEAL_FORM = '<form method="post" class="deal-form'
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
NUMBER_INPUT = re.compile(r'name="number" value="([0-9]+)"')
KEY_INPUT = re.compile(r'name="entry_key" value="([^"]+)"')
POINTS_INPUT = re.compile(r'name="(points_[0-9])"')


def deal_form_body(page: str, path: str) -> dict[str, str]:
    """The next deal (60:60) as the board's deal form posts it, read as a phone's browser reads
    the form: its own inputs only, the side fields named as the page names them."""
    start = page.find(DEAL_FORM)
    form = page[start : page.find("</form>", start)] if start >= 0 else ""
    token, number, key = (pattern.search(form) for pattern in (CSRF_INPUT, NUMBER_INPUT, KEY_INPUT))
    if not (token and number and key):
        raise RuntimeError(f"no deal form on {path}")
    return {
        "csrfmiddlewaretoken": token.group(1),
        "number": number.group(1),
        "entry_key": key.group(1),
        **{field: "60" for field in POINTS_INPUT.findall(form)},
    }


class Cycler(threading.Thread):
    """One phone: read the board, post the next deal (htmx), again, for ``SECONDS``."""

    def __init__(self, port: int, cookie: str, games: list[int] | None):
        super().__init__(daemon=True)
        self.port, self.cookie, self.games = port, cookie, list(games or [])
        self.latencies: list[float] = []
        self.error: str | None = None

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        cookies = {"session": self.cookie}
        deadline = time.perf_counter() + SECONDS
        posted = 0
        try:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                if self.games:
                    if posted == 20:
                        self.games.pop(0)
                        posted = 0
                        if not self.games:
                            raise RuntimeError("ran out of games: raise GAMES_PER_CLIENT")
                    path = f"/series/{self.games[0]}/"
                    page = self._request(connection, "GET", path, cookies)
                    body = deal_form_body(page, path)
                    self._request(
                        connection, "POST", f"{path}deals/", cookies, body, {"HX-Request": "true"}
                    )
                    posted += 1
                else:
                    self._request(connection, "GET", "/", cookies)
                    self._request(connection, "POST", "/", cookies, {"deal": "60"})
                self.latencies.append((time.perf_counter() - started) * 1000)
        except Exception as error:  # reported by the run, never swallowed
            self.error = f"{type(error).__name__}: {error}"
        finally:
            connection.close()

    def _request(self, connection, method, path, cookies, body=None, extra=None) -> str:
        from urllib.parse import urlencode

        headers = {"Cookie": "; ".join(cookies.values()), **(extra or {})}
        data = None
        if body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie" and value.startswith("csrftoken="):
                cookies["csrf"] = value.split(";", 1)[0]
        if response.status >= 400:
            raise RuntimeError(f"{method} {path} answered {response.status}")
        return text


def group_cpu(leader: int) -> float:
    """Seconds of CPU the processes of ``leader``'s process group have used (gunicorn's master
    and workers, also the workers recycled meanwhile), from Linux's /proc; 0 elsewhere."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == leader:  # its process group
            total += int(fields[11]) + int(fields[12])  # user and system ticks
            if int(entry.name) == leader:  # and the workers it has reaped (max_requests)
                total += int(fields[13]) + int(fields[14])
    return total / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.0


def cycle(port: int, clients: list[dict] | None) -> tuple[float, float]:
    """Cycles per second over all clients and the 99th percentile cycle latency (ms)."""
    threads = (
        [Cycler(port, client["cookie"], client["games"]) for client in clients]
        if clients
        else [Cycler(port, "", None) for _ in range(CYCLE_CLIENTS)]
    )
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    errors = [thread.error for thread in threads if thread.error]
    if errors:
        raise SystemExit(f"deal cycle failed: {errors[0]}")
    latencies = sorted(value for thread in threads for value in thread.latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return len(latencies) / elapsed, p99


def main() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("loadtest: wrk is missing (make loadtest installs Debian's wrk)")
    work = Path(tempfile.mkdtemp(prefix="kozel-loadtest-"))
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path) -> None:
    env = production_env(work)
    pages = env["PAGE_CACHE_URL"] or "each worker's memory"
    print(
        f"== preparing the site ({env['DATABASE_URL'].split(':', 1)[0]}, page cache: {pages}) "
        "and a bare Django"
    )
    data = site_data(env)
    bare_home = bare_project(work)
    # The project on the path too: the shared gunicorn config names its access logger class.
    bare_env = dict(
        env,
        PYTHONPATH=os.pathsep.join([str(bare_home), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="bare.settings",
    )
    board = {"Cookie": data["board_cookie"]}
    htmx_board = {**board, "HX-Request": "true"}
    owner = {"Cookie": data["owner_cookie"]}
    scenarios = {
        "scoreboard GET": (data["board"], board),
        "home GET": ("/", board),
        "live poll (204)": (data["live"], htmx_board),
        "standings GET": (data["standings"], owner),
        "public standings GET": (data["public"], {}),
    }
    only = {name.strip() for name in os.environ.get("LOADTEST_ONLY", "").split(",") if name.strip()}
    if only:
        scenarios = {name: scenario for name, scenario in scenarios.items() if name in only}
    cycling = not only or "deal cycle" in only
    best: dict[str, dict[str, tuple[float, float]]] = {"site": {}, "bare": {}}
    cpu: dict[str, list[float]] = {"site": [], "bare": []}  # server CPU ms per deal cycle

    def keep(kind: str, name: str, figures: tuple[float, float]) -> None:
        if name not in best[kind] or figures[0] > best[kind][name][0]:
            best[kind][name] = figures

    for round_ in range(ROUNDS):
        print(f"== round {round_ + 1} of {ROUNDS}", flush=True)
        for kind in ("bare", "site") if round_ % 2 == 0 else ("site", "bare"):
            if kind == "bare":
                server = Server("bare.wsgi:application", bare_home, bare_env, "/")
            else:
                server = Server("kozel_site.wsgi:application", ROOT, env, "/healthz")
            try:
                for name, (path, headers) in scenarios.items():
                    keep(kind, name, wrk(server.port, "/" if kind == "bare" else path, headers))
                if not cycling:
                    continue
                clients = data["cycles"] if kind == "site" else None
                if kind == "site" and round_ > 0:
                    clients = [
                        {
                            **client,
                            "games": client["games"][round_ * len(client["games"]) // ROUNDS :],
                        }
                        for client in clients
                    ]
                spent = group_cpu(server.process.pid)
                started = time.perf_counter()
                figures = cycle(server.port, clients)
                cycles = figures[0] * (time.perf_counter() - started)
                cpu[kind].append((group_cpu(server.process.pid) - spent) / max(cycles, 1) * 1000)
                keep(kind, "deal cycle", figures)
            finally:
                server.stop()
    print()
    print(
        f"gunicorn, {WORKERS} sync workers, DEBUG off; wrk -t2 -c16 for {SECONDS} s a GET, "
        f"{CYCLE_CLIENTS} clients for the deal cycle; best of {ROUNDS} rounds"
    )
    header = f"{'':<22}{'site req/s':>11}{'p99 ms':>8}{'bare req/s':>12}{'p99 ms':>8}{'ratio':>7}"
    print(f"{header}  goal")
    for name in [*scenarios, *(["deal cycle"] if cycling else [])]:
        site_rate, site_p99 = best["site"][name]
        bare_rate, bare_p99 = best["bare"][name]
        ratio = site_rate / bare_rate
        goal = GOALS.get(name)
        verdict = "" if goal is None else f">= {goal:.0%}" + ("" if ratio >= goal else "  missed")
        print(
            f"{name:<22}{site_rate:>11.0f}{site_p99:>8.1f}{bare_rate:>12.0f}{bare_p99:>8.1f}"
            f"{ratio:>7.0%}  {verdict}"
        )
    print("(deal cycle: cycles/s; the bare cycle is GET + POST of its page)")
    if cycling and cpu["site"] and cpu["bare"]:
        print(
            f"server CPU per deal cycle (least of the rounds): site {min(cpu['site']):.1f} ms, "
            f"bare {min(cpu['bare']):.1f} ms"
        )
    if QUICK:
        print("QUICK=1: one short round; these figures mean nothing.")


if __name__ == "__main__":
    if "--data" in sys.argv:
        print(json.dumps(make_data()))
    else:
        main()
