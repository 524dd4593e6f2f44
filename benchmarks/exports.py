"""Benchmark of the exports: the demo league (about 150,000 deals) downloaded whole.

Reuses the demo database of ``league_pages.py`` (built there when it is missing), on a copy of
its own (migrated, for the exports' tables: the demo file may be another checkout's), and
measures, in two parts:

1. The documents themselves, in this process: the league's JSON backup and history CSV written
   to their end (what the task worker does), the biggest series' JSON and CSV (still made by
   the request: a series holds at most 300 deals), and whether each ends with its closing mark.
   Wall-clock and CPU, best of a few. The goals of issue 14 (CSV under 5 s, JSON under 20 s)
   are printed beside them.
2. The site under gunicorn (three workers, DEBUG off) with its task worker
   (``manage.py task_worker``), as issue 25 found it: three accounts ask for the league's backup
   at once while a visitor keeps asking for the home page and a member for the league's
   standings. Prints when each file was ready, how long its download took and whether it came
   whole (its length and closing mark), and the other pages' latencies while the exports were
   being made against the same pages with nothing running (goal: every one under 1 s).

Figures only, it never asserts a speed. Run with ``make bench`` or
``.venv/bin/python benchmarks/exports.py [--database demo.sqlite3]`` (a demo league made by
``make demo-data`` instead of league_pages.py's; ``BENCH_QUICK=1``: small data, figures
meaningless).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from league_pages import DATABASES  # noqa: E402
from quick import scaled  # noqa: E402

GOALS = {"csv": 5.0, "json": 20.0}
ROUNDS = scaled(2, 1)
#: Seconds between two requests of each page watcher while the exports are made.
EVERY = 0.2
WORKERS = 3  # gunicorn workers: one per export asked for, as issue 25 found them (sync then)
PAGE_GOAL = 1.0
ASKERS = ("demo", "natasha", "mike")  # the league's owner and its two scorers


def _timed(pieces) -> tuple[float, float, int, str]:
    """Wall-clock and CPU seconds to write ``pieces`` to their end, the bytes, and the tail."""
    started, started_cpu = time.perf_counter(), time.process_time()
    size, tail = 0, ""
    for piece in pieces:
        size += len(piece.encode())
        tail = (tail + piece)[-200:]
    return time.perf_counter() - started, time.process_time() - started_cpu, size, tail


def _setup_django(database: str) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def measure_documents(database: str) -> dict:
    """Part 1, in a child process with Django set up on the demo database's copy."""
    _setup_django(database)
    from django.db.models import Count

    from scoring.backup.csv_export import history_csv, series_csv
    from scoring.backup.json_export import export_json
    from scoring.models import Deal, League, Series

    league = League.objects.get(name="Demo club")
    series = Series.objects.filter(league=league)
    biggest = series.annotate(played=Count("deals")).order_by("-played").first()
    count = series.count()
    found: dict = {"series": count, "biggest": biggest.played}
    makers = {
        "json": lambda: export_json(series, secrets=False),
        "csv": lambda: history_csv(series),
        "series json": lambda: export_json(Series.objects.filter(pk=biggest.pk), secrets=False),
        "series csv": lambda: series_csv(
            biggest, list(Deal.objects.filter(series=biggest).order_by("number"))
        ),
    }
    for kind, make in makers.items():
        best = None
        for _ in range(ROUNDS):
            took = _timed(make())
            best = took if best is None or took[0] < best[0] else best
        wall, cpu, size, tail = best
        closed = (
            tail.rstrip().endswith('"complete":true}')
            if "json" in kind
            else kind == "series csv" or tail.rstrip().endswith(f"# end of export: {count} series")
        )
        found[kind] = {"wall": wall, "cpu": cpu, "bytes": size, "closed": closed}
    return found


def sessions(database: str) -> dict:
    """Logged-in sessions of the askers and the league's id, in a child process."""
    _setup_django(database)
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )

    from scoring.models import League

    store = import_module(settings.SESSION_ENGINE).SessionStore
    cookies = {}
    for username in ASKERS:
        user = get_user_model().objects.get(username=username)
        session = store()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookies[username] = session.session_key
    return {"cookies": cookies, "league": League.objects.get(name="Demo club").pk}


def _child(part: str, database: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, part, str(database)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


class Browser:
    """Cookies and one request at a time, on a connection of its own."""

    def __init__(self, port: int, session: str | None = None) -> None:
        self.port = port
        self.cookies = {"sessionid": session} if session else {}

    def request(self, method: str, path: str, body: dict | None = None, **headers: str):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        site = f"http://127.0.0.1:{self.port}"
        headers = {"Origin": site, "Referer": site + path, **headers}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if body is not None:
            data = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        return response.status, response.headers, content, time.perf_counter() - started


def _environment(work: Path, database: Path) -> dict[str, str]:
    return dict(
        os.environ,
        DATABASE_URL=f"sqlite:///{database}",
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        SECURE_HSTS_SECONDS="0",
        SECURE_PROXY_SSL_HEADER="false",
        STATIC_ROOT=str(work / "static"),
        EXPORTS_ROOT=str(work / "exports"),
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
        WEB_CONCURRENCY=str(WORKERS),
    )


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _watch(browser: Browser, path: str, stop: threading.Event, into: list[float]) -> None:
    while not stop.is_set():
        status, _headers, _body, took = browser.request("GET", path)
        into.append(took if status == 200 else float("inf"))
        stop.wait(EVERY)


def _latencies(values: list[float]) -> str:
    if not values:
        return "no requests"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    over = sum(1 for value in values if value >= PAGE_GOAL)
    return (
        f"{len(values):>4} requests  median {statistics.median(values) * 1000:>6.0f} ms  "
        f"p95 {p95 * 1000:>6.0f} ms  max {max(values) * 1000:>6.0f} ms  "
        f"{over} at {PAGE_GOAL:.0f} s or more"
    )


def measure_site(work: Path, database: Path) -> dict:
    """Part 2: gunicorn and its task worker on the demo database's copy, driven over HTTP."""
    given = _child("--sessions", database)
    league = given["league"]
    env = _environment(work, database)
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "collectstatic", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "kozel_site/gunicorn.conf.py"],
        env={**env, "BIND": f"127.0.0.1:{port}"},
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [*manage, "task_worker", "-v0"],
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        return _drive(port, given["cookies"], league)
    finally:
        for process in (server, worker):
            os.killpg(process.pid, signal.SIGTERM)
        for process in (server, worker):
            process.wait(timeout=60)


def _drive(port: int, cookies: dict[str, str], league: int) -> dict:
    for _ in range(300):
        try:
            if Browser(port).request("GET", "/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.1)
    visitor, member = Browser(port), Browser(port, cookies["natasha"])
    pages = {
        "home (visitor)": (visitor, "/"),
        "standings": (member, f"/leagues/{league}/standings/"),
    }
    idle: dict[str, list[float]] = {name: [] for name in pages}
    for _ in range(scaled(10, 2)):
        for name, (browser, path) in pages.items():
            idle[name].append(browser.request("GET", path)[3])

    askers = {name: Browser(port, session) for name, session in cookies.items()}
    backup = f"/history/export.json?league={league}"
    forms = {}
    for name, browser in askers.items():
        page = browser.request("GET", backup)[2].decode()
        forms[name] = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    busy: dict[str, list[float]] = {name: [] for name in pages}
    stop = threading.Event()
    watchers = [
        threading.Thread(target=_watch, args=(browser, path, stop, busy[name]))
        for name, (browser, path) in pages.items()
    ]
    for thread in watchers:
        thread.start()
    started = time.perf_counter()
    places = {}
    for name, browser in askers.items():
        status, headers, _body, took = browser.request(
            "POST", backup, {"csrfmiddlewaretoken": forms[name]}
        )
        places[name] = {"asked": status, "ask took": took, "page": headers.get("Location", "")}
    second = askers["demo"].request("POST", backup, {"csrfmiddlewaretoken": forms["demo"]})
    ready: dict[str, float] = {}
    deadline = time.perf_counter() + scaled(600, 60)
    while len(ready) < len(askers) and time.perf_counter() < deadline:
        for name, browser in askers.items():
            if (
                name not in ready
                and b"/download" in browser.request("GET", places[name]["page"])[2]
            ):
                ready[name] = time.perf_counter() - started
        time.sleep(0.5)
    stop.set()
    for thread in watchers:
        thread.join()
    results = {}
    for name, browser in askers.items():
        status, headers, body, took = browser.request(
            "GET", places[name]["page"] + "download", **{"Accept-Encoding": "identity"}
        )
        zipped = browser.request(
            "GET", places[name]["page"] + "download", **{"Accept-Encoding": "gzip"}
        )
        results[name] = {
            **places[name],
            "ready": ready.get(name),
            "status": status,
            "bytes": len(body),
            "length matches": headers.get("Content-Length") == str(len(body)),
            "closed": body.rstrip().endswith(b'"complete":true}'),
            "download": took,
            "gzip bytes": len(zipped[2]),
            "gzip download": zipped[3],
        }
    return {
        "exports": results,
        "second ask": second[0],
        "idle": {name: _latencies(values) for name, values in idle.items()},
        "busy": {name: _latencies(values) for name, values in busy.items()},
        "busy max": max((max(values) for values in busy.values() if values), default=0.0),
    }


def main() -> None:
    # One key for the server and the child that makes its sessions: a login hashes with it.
    os.environ["SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex + uuid.uuid4().hex
    demo = DATABASES["demo"]
    if "--database" in sys.argv:  # a demo league made elsewhere (make demo-data)
        demo = Path(sys.argv[sys.argv.index("--database") + 1])
    elif not demo.exists():
        print("building the demo database (league_pages.py) ...", flush=True)
        subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "league_pages.py"), "--child", "demo"],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
    with tempfile.TemporaryDirectory(prefix="kozel-bench-exports-") as folder:
        work = Path(folder)
        database = work / "demo.sqlite3"
        with sqlite3.connect(demo) as source, sqlite3.connect(database) as copy:
            source.backup(copy)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            env=dict(os.environ, DATABASE_URL=f"sqlite:///{database}"),
            check=True,
            cwd=ROOT,
        )
        found = _child("--documents", database)
        report_documents(found)
        report_site(measure_site(work, database))


def report_documents(found: dict) -> None:
    print(f"The demo league's documents ({found['series']:,} series), best of {ROUNDS}:")
    print(f"{'document':<12} {'wall':>8} {'CPU':>8} {'size':>10}  closing mark  goal")
    for kind in ("csv", "json"):
        row = found[kind]
        flag = "" if row["wall"] < GOALS[kind] else "  over the goal"
        print(
            f"{kind:<12} {row['wall']:>7.1f}s {row['cpu']:>7.1f}s {row['bytes'] / 1e6:>8.1f}MB  "
            f"{'yes' if row['closed'] else 'NO':<12}  < {GOALS[kind]:.0f} s{flag}"
        )
    print(f"The biggest series ({found['biggest']} deals), made by the request itself:")
    for kind in ("series csv", "series json"):
        row = found[kind]
        print(
            f"{kind:<12} {row['wall'] * 1000:>6.0f}ms {row['cpu'] * 1000:>6.0f}ms "
            f"{row['bytes'] / 1e3:>8.1f}kB  {'yes' if row['closed'] else 'NO'}"
        )


def report_site(site: dict) -> None:
    print()
    print(
        f"gunicorn ({WORKERS} workers, DEBUG off) and one task worker: {len(ASKERS)} accounts "
        "ask for the league's JSON backup at once"
    )
    for name, row in site["exports"].items():
        ready = f"{row['ready']:.1f} s" if row["ready"] is not None else "NOT READY"
        print(
            f"  {name:<8} asked: {row['asked']} in {row['ask took'] * 1000:.0f} ms, ready after "
            f"{ready}; download {row['status']} {row['bytes'] / 1e6:.1f} MB in "
            f"{row['download']:.2f} s (gzip: {row['gzip bytes'] / 1e6:.1f} MB in "
            f"{row['gzip download']:.2f} s), length "
            f"{'right' if row['length matches'] else 'WRONG'}, closing mark "
            f"{'yes' if row['closed'] else 'NO'}"
        )
    print(f"  a second ask while the first is made: {site['second ask']}")
    print("Other pages, nothing running:")
    for name, line in site["idle"].items():
        print(f"  {name:<16} {line}")
    print("Other pages while the three exports were made:")
    for name, line in site["busy"].items():
        print(f"  {name:<16} {line}")
    flag = "" if site["busy max"] < PAGE_GOAL else "  over the goal"
    print(f"  slowest: {site['busy max'] * 1000:.0f} ms (goal: under {PAGE_GOAL:.0f} s){flag}")


if __name__ == "__main__":
    if "--documents" in sys.argv:
        print(json.dumps(measure_documents(sys.argv[-1])))
    elif "--sessions" in sys.argv:
        print(json.dumps(sessions(sys.argv[-1])))
    else:
        main()
