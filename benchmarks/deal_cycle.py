"""The deal cycle in one process: CPU per step, and where it goes (``make bench``).

``make loadtest`` measures the cycle under gunicorn against bare Django, on a machine whose speed
moves its figures by a fifth between runs. This runs the same cycle (the load test's data: a
20-deal game per phone, its session holding its links; read the whole page, post the next deal
as htmx does) through Django's WSGI handler in this process alone, with production settings and
the load test's page cache (Redis when one answers), and prints the CPU of each step: small
changes show here first. Before each page the board is dropped from this process's memory, as
for one of gunicorn's four workers that did not serve the deal before (the shell stays, as it
does in every worker).

``PROFILE=1`` also prints cProfile's functions by cumulative time over one round. Figures only.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import loadtest  # noqa: E402 (beside this file)
from quick import QUICK, scaled  # noqa: E402

ROUNDS = scaled(3, 1)
CYCLES = scaled(200, 10)  # a round; the load test's data gives each phone 45 games of 20 deals


class Phone:
    """One client of the load test's data, its games played through the WSGI handler."""

    def __init__(self, app, client: dict):
        self.app, self.cookies, self.games = app, {"session": client["cookie"]}, client["games"]
        self.posted = 0

    def request(self, method: str, path: str, body: dict | None = None, htmx=False) -> str:
        raw = urlencode(body).encode() if body else b""
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "HTTP_HOST": "127.0.0.1:8000",
            "HTTP_COOKIE": "; ".join(self.cookies.values()),
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(raw),
            "wsgi.errors": sys.stderr,
            "CONTENT_LENGTH": str(len(raw)),
            "CONTENT_TYPE": "application/x-www-form-urlencoded",
            "SCRIPT_NAME": "",
        }
        if htmx:
            environ["HTTP_HX_REQUEST"] = "true"
        answer: dict = {}

        def start_response(status, headers, exc_info=None):
            answer["status"], answer["headers"] = status, headers

        text = b"".join(self.app(environ, start_response)).decode()
        if not answer["status"].startswith(("200", "302")):
            raise SystemExit(f"{method} {path} answered {answer['status']}")
        for name, value in answer["headers"]:
            if name.lower() == "set-cookie" and value.strip().startswith("csrftoken="):
                self.cookies["csrf"] = value.strip().split(";", 1)[0]
        return text

    def cycle(self, forget) -> tuple[float, float]:
        """CPU seconds of the page's GET and of the deal's POST."""
        if self.posted == 20:
            self.games.pop(0)
            self.posted = 0
        path = f"/series/{self.games[0]}/"
        forget()
        started = time.process_time()
        page = self.request("GET", path)
        read = time.process_time() - started
        body = loadtest.deal_form_body(page, path)
        started = time.process_time()
        self.request("POST", f"{path}deals/", body, htmx=True)
        self.posted += 1
        return read, time.process_time() - started


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="kozel-deal-cycle-"))
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path) -> None:
    os.environ.update(loadtest.production_env(work))
    os.environ["DJANGO_SETTINGS_MODULE"] = "kozel_site.settings"
    import django

    django.setup()
    from django.core.cache import caches
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command

    from kozel_site.warmup import warm_up

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    data = loadtest.make_data()
    warm_up()
    pages = caches["pages"]

    def forget_the_board() -> None:
        """The newest entry of this process's own page cache: the board the POST kept."""
        newest = list(pages._cache)[-1:]  # the local-memory backend's own store, oldest first
        for key in newest:
            pages._cache.pop(key, None)

    phone = Phone(WSGIHandler(), data["cycles"][0])
    for _ in range(scaled(20, 2)):  # warm: the shell kept, the templates compiled
        phone.cycle(forget_the_board)
    shared = os.environ.get("PAGE_CACHE_URL") or "each process's memory"
    print(f"== the deal cycle in one process (page cache: {shared}), {CYCLES} cycles a round")
    rounds = []
    for _ in range(ROUNDS):
        steps = [phone.cycle(forget_the_board) for _ in range(CYCLES)]
        rounds.append(tuple(sum(step[i] for step in steps) / CYCLES * 1000 for i in (0, 1)))
        print(f"GET page {rounds[-1][0]:.2f} ms, POST deal {rounds[-1][1]:.2f} ms of CPU")
    best = min(rounds, key=sum)
    median = statistics.median(sum(figures) for figures in rounds)
    print(f"cycle: least {sum(best):.2f} ms, median {median:.2f} ms of CPU")
    if os.environ.get("PROFILE"):
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(min(CYCLES, 100)):
            phone.cycle(forget_the_board)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(60)
    if QUICK:
        print("QUICK=1: a short round; these figures mean nothing.")


if __name__ == "__main__":
    main()
