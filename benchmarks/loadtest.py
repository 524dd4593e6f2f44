"""``make loadtest``: how many tables this site serves within its latency budget, at club nights
and at kitchen tables.

The budget of issues #26 and #37 is tables, not pages. Two kinds of table are measured, one
after the other, against each server:

- **club nights**: N tables, each with four phones that opened the table's link for the evening,
  one deal a minute, and one big screen per ten tables (one per club night) showing the
  leaderboard through its public link with ``?present=1``, refreshed by htmx (``HX-Request``,
  ``HX-Target`` ...) from the address its last board gave (``hx-get``, with the evening's version:
  nothing new is a 204). A table plays pre-made games one after the other: when one reaches the
  goat (after ten or eleven deals) its phones go on to the table of another club night, made
  beforehand, so that every table takes deals for the whole run.
- **kitchen tables**: N quick games, each with four phones and no big screen. The phone that
  started the game (the home page's "Quick game") holds the score link, scores and manages the
  table (its board draws the share links); the three others opened the watch link, as the
  people around a kitchen table scan it from the first phone (three watchers rather than more
  scorers: a kitchen table scores on one phone, the others follow the score). When a game ends
  at its goat, the scoring phone taps "Rematch" (a plain form: POST ``/series/<pk>/rematch/``,
  redirected to the table's page, whose new board it then shows) and the other phones' boards
  follow by themselves through the same links, the table's live view giving them the new game
  (issue #37: one way to a game at a table). The rematches are live, not pre-made: they are
  what a kitchen table costs (the game over, the new game started and its board), and their
  share of the mix stays that of a real evening because every table's first game had some deals
  before the run, spread over the game (``plan.played_before``), so that in any minute about one
  deal in ten ends a game. Each table says its own network in X-Forwarded-For, as the proxy of
  docs/DEPLOY.md does (``TRUSTED_PROXY_COUNT=1``): the quick games' limit per network counts
  each table apart, as it would count real kitchens.

At both kinds, every phone's board asks its table's live view for news as ``static/js/app.js``
does (``GET /tables/<token>/live/?version=<v>`` with ``HX-Request: true``): nothing new is a 204,
news a 200 with the fresh board, whose version ("<evening>.<game>.<game's version>", compared
element by element) the phone asks with from then on. A deal: the scoring phone reads its
table's page (``GET /tables/<token>/``) and posts its deal form as htmx does (to
``/series/<pk>/deals/``), with the form's CSRF token, number and one-time entry key and the
points typed in.

How often the board and the leaderboard ask is read from the pages themselves (``data-every``,
``hx-trigger``), once, before the run. Requests are sent open-loop: each leaves at its moment
(the phones' phases spread at random) whether or not the server kept up, and its latency counts
from that moment, so a server that falls behind sees its queue in the figures. A deal's latency
is the pair: from the moment its GET was due until the POST's answer has arrived (the POST alone
and the GET alone are printed too); a rematch's, from the tap until the new game's board has
arrived. Phones ask for gzip as browsers do.

A step runs N tables of one kind for a short warm-up and then a window of 60 s, in which every
table posts exactly one deal; only requests due in the window count. A step holds when, in its
window, nothing failed (an error, a timeout, an unexpected status) and the 99th percentile
latency stays under 200 ms for the live polls and for the big screens (each on its own) and
under 300 ms for the deals and for the rematches (each on its own: what a person taps and waits
for). The number of tables is searched on a ladder (10, 25, 50, 100, 150, 200, 250, 300, 400,
500, ...), after a warm-up step of 10 tables that is not counted: from 100 up by doubling, then
halving the gap between the last step that held and the first that did not; N is the largest
that held. A step that missed leaves its server restarted and warmed up again, so that the next
step is not measured on workers a queue far past N stuck or killed; each kind starts on a server
restarted too.

Measured in one run, one server after the other, each under this project's
``kozel_site/gunicorn.conf.py`` with 4 sync workers and production settings (``DEBUG`` off):

- this site on SQLite (a throw-away file);
- this site on PostgreSQL when ``LOADTEST_DATABASE_URL`` names one (created when missing,
  emptied first), e.g. ``postgres://postgres@127.0.0.1:5432/kozel_loadtest``;
- a bare Django project made on the fly (``startproject``, its own middleware) that answers the
  same mix with a trivial view per request: a 204 for a poll, a small page with a form (CSRF
  token, number, key) for the board and for the deal's POST, a redirect to the board for a
  rematch, a small page for the big screen; a kitchen table's deal ends its game (the answer
  offers the rematch form instead of the deal form) one time in as many as the site's games
  last, at random.

The site's data (both kinds of tables, each phone's session) is made through the project's own
code before its server starts (``load.data`` says how). Prints, per step, the rates and p50/p99
latencies of each request, the CPU of the server, of the load generator and of the rest of the
machine, and the load average; at the end N for each kind on each database beside bare Django's
N for that kind and the ratio (the goal: ``plan.GOAL``). Figures only: no speed is asserted (a
QUICK run stops when a request fails other than by a timeout, or when no kitchen table reached
its rematch: its code paths must work). The generator (asyncio with plain sockets, one
connection a request, closed after it: ``Connection: close``) shares the two cores with the
servers; its CPU is printed so that it can be told apart. A whole run with both kinds on both
databases takes about an hour (more steps when the site holds more tables).

``LOADTEST_KINDS`` (default ``club,kitchen``): the kinds measured, e.g. ``kitchen`` alone.
``LOADTEST_PAGE_CACHE_URL`` (e.g. redis://127.0.0.1:6379/14, emptied before each site server):
the site's shared page cache (``PAGE_CACHE_URL``), only to measure code that still has one.
``LOADTEST_MAX_TABLES`` (default 800): the site's largest step (the data is made for it).
``BENCH_QUICK=1`` (``make loadtest QUICK=1``): every code path in a few minutes (3-deal games,
a deal a second), figures meaningless.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from load import ROOT
from load.bare import READY, bare_project, bare_tables
from load.phones import Figures, Load
from load.plan import (
    BUDGET_MS,
    DEAL_EVERY,
    GOAL,
    GOAL_SHARE,
    GOAL_TABLES,
    LADDER,
    MAX_SITE_TABLES,
    PHONES,
    START,
    TABLES_PER_SCREEN,
    WARM_UP,
    WINDOW,
    WORKERS,
    Kind,
    kinds_asked,
)
from load.servers import (
    Server,
    empty_page_cache,
    machine_cpu,
    postgres_ready,
    production_env,
    site_data,
)
from quick import QUICK

BARE = "bare Django"


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


def report(name: str, kind: Kind, figures: Figures) -> None:
    missed = figures.missed()
    tables = figures.tables
    screens = f", {math.ceil(tables / TABLES_PER_SCREEN)} screens" if kind.screens else ""
    verdict = "held" if not missed else "missed: " + "; ".join(missed)
    print(f"-- {name}, {tables} {kind.name} ({tables * PHONES} phones{screens}): {verdict}")
    print(f"   {'':<16}{'sent/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'failed':>8}")
    for sent in kind.sends:
        values = figures.latencies[sent]
        count = len(values) + figures.failures[sent]
        top = max(values) if values else math.inf
        print(
            f"   {sent:<16}{count / WINDOW:>8.1f}{figures.percentile(sent, 0.5):>9.1f}"
            f"{figures.percentile(sent, 0.99):>9.1f}{top:>9.1f}{figures.failures[sent]:>8}"
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


def measure(name: str, kind: Kind, server: Server, data: dict, every: dict, ladder) -> dict:
    """Search the largest N of ``kind``'s tables for one server; its steps as printed."""
    load = Load(server.port, data, kind, every, seed=26)
    steps, rematches = [], 0

    def holds(tables: int) -> bool:
        nonlocal rematches
        spent, mine, busy = server.cpu(), time.process_time(), machine_cpu()
        started = time.perf_counter()
        figures = load.step(tables)
        elapsed = time.perf_counter() - started
        figures.server_cpu = (server.cpu() - spent) / elapsed
        figures.generator_cpu = (time.process_time() - mine) / elapsed
        figures.rest_cpu = (machine_cpu() - busy) / elapsed
        figures.rest_cpu -= figures.server_cpu + figures.generator_cpu
        figures.load = os.getloadavg()[0]
        report(name, kind, figures)
        if QUICK and figures.errors:  # a smoke run is for the code paths: they must work
            raise SystemExit(f"loadtest: {name}, {kind.name}: requests failed, not only slowly")
        rematches += len(figures.latencies.get("rematch", ()))
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
        print(f"-- {name}: warming up ({ladder[0]} {kind.name}, not counted)", flush=True)
        load.step(ladder[0])
        server.settle()

    warm_up()
    found, top = search(ladder, holds, START)
    if QUICK and kind.rematch and name != BARE and not rematches:
        raise SystemExit(f"loadtest: {name}: no kitchen table's game reached its rematch")
    return {"n": found, "top": top, "steps": steps}


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="kozel-loadtest-"))
    try:
        run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path) -> None:
    started = time.perf_counter()
    kinds = kinds_asked()
    databases = {"SQLite": f"sqlite:///{work / 'site.sqlite3'}"}
    if os.environ.get("LOADTEST_DATABASE_URL"):
        databases["PostgreSQL"] = os.environ["LOADTEST_DATABASE_URL"]
    cache = os.environ.get("LOADTEST_PAGE_CACHE_URL") or "none"
    print(
        f"== {' and '.join(kind.name for kind in kinds)}: {PHONES} phones a table, a deal a "
        f"table every {DEAL_EVERY} s, a big screen per {TABLES_PER_SCREEN} club-night tables; "
        f"gunicorn, {WORKERS} sync workers, DEBUG off; steps of {WARM_UP} s warm-up + "
        f"{WINDOW} s measured; shared page cache: {cache}",
        flush=True,
    )
    site_ladder = [rung for rung in LADDER if rung <= MAX_SITE_TABLES]
    results: dict[tuple[str, str], dict] = {}
    every: dict = {}
    for label, database in databases.items():
        name = f"site on {label}"
        print(f"== {name}: making the data", flush=True)
        if label == "PostgreSQL":
            postgres_ready(database)
        env = production_env(work, database)
        data = site_data(env, max(site_ladder), [kind.key for kind in kinds])
        every = every or {key: data[key] for key in ("poll_every", "screen_every")}
        empty_page_cache()
        server = Server("kozel_site.wsgi:application", ROOT, env, "/healthz")
        try:
            results.update(measured(name, kinds, server, data, every, site_ladder))
        finally:
            server.stop()
    print(f"== {BARE}", flush=True)
    bare_home = bare_project(work)
    # The project on the path too: the shared gunicorn config names its access logger class.
    bare_env = dict(
        production_env(work, databases["SQLite"]),
        PYTHONPATH=os.pathsep.join([str(bare_home), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="bare.settings",
    )
    server = Server("bare.wsgi:application", bare_home, bare_env, READY)
    try:
        bare = {kind.key: bare_tables(kind, max(LADDER)) for kind in kinds}
        results.update(measured(BARE, kinds, server, bare, every, LADDER))
    finally:
        server.stop()
    summary(results, kinds, [f"site on {label}" for label in databases])
    print(f"whole run {(time.perf_counter() - started) / 60:.0f} min")
    if QUICK:
        print("QUICK=1: tiny steps; these figures mean nothing.")


def measured(name: str, kinds: list[Kind], server: Server, data, every, ladder) -> dict:
    """Each kind's search on one server, each kind from a fresh start of it."""
    results = {}
    for at, kind in enumerate(kinds):
        if at:
            server.restart()
        results[kind.key, name] = measure(name, kind, server, data[kind.key], every, ladder)
    return results


def summary(results: dict[tuple[str, str], dict], kinds: list[Kind], sites: list[str]) -> None:
    print()
    print(
        f"== the most tables that held (p99: live polls and big screens < "
        f"{BUDGET_MS['live poll']} ms, deals (GET + POST) and rematches (POST + the new board) "
        f"< {BUDGET_MS['deal']} ms, no failure)"
    )

    def said(result: dict) -> str:
        if result["n"] is None:
            return f"< {LADDER[0]}"
        return (">= " if result["top"] else "") + str(result["n"])

    for kind in kinds:
        print(f"{kind.name}:")
        bare = results[kind.key, BARE]
        for name in [*sites, BARE]:
            result = results[kind.key, name]
            steps = ", ".join(f"{n} {'held' if held else 'missed'}" for n, held in result["steps"])
            ratio, verdict = "", ""
            if name != BARE and result["n"] and bare["n"]:
                share = result["n"] / bare["n"]
                met = result["n"] >= GOAL_TABLES and share >= GOAL_SHARE
                ratio = f"{share:.0%} of bare"
                verdict = "goal met" if met else "goal not met"
            elif name != BARE:
                verdict = "goal not met"
            print(f"  {name:<20}N {said(result):>7}  {ratio:<13} {verdict:<13} ({steps})")
    print(f"goal: {GOAL}")


if __name__ == "__main__":
    if "--data" in sys.argv:
        from load.data import make_data

        tables, supply = (int(value) for value in sys.argv[2:4])
        print(json.dumps(make_data(tables, supply, sys.argv[4].split(","))))
    else:
        main()
