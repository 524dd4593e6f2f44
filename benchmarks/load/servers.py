"""The servers under test: gunicorn with this project's config and production settings, the
databases they use, and the CPU they spend."""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from load import ROOT
from load.plan import PHONES, TABLES_PER_SCREEN, WORKERS, series_per_table

BIN = Path(sys.executable).parent
SCRIPT = ROOT / "benchmarks" / "loadtest.py"


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
        # As behind the proxy of docs/DEPLOY.md: a kitchen table's phones say their own network
        # in X-Forwarded-For, so the quick games' limit per network counts each table apart.
        TRUSTED_PROXY_COUNT="1",
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


def site_data(env: dict[str, str], tables: int, kinds: list[str]) -> dict:
    """Migrate, collect static files and make the tables of ``kinds`` (in a child process)."""
    for command in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)
    supply = series_per_table()
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(tables), str(supply), ",".join(kinds)],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    if "club" in data:
        print(
            f"   club nights: {tables} tables in {math.ceil(tables / TABLES_PER_SCREEN)} clubs, "
            f"{supply} games a table, {tables * PHONES} phones' sessions: "
            f"{data['club']['seconds']:.0f} s",
            flush=True,
        )
    if "kitchen" in data:
        print(
            f"   kitchen tables: {tables} quick games started and their links opened by "
            f"{tables * PHONES} phones, deals played before the run: "
            f"{data['kitchen']['seconds']:.0f} s",
            flush=True,
        )
    return data


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


def machine_cpu() -> float:
    """Seconds of CPU the whole machine has spent since it started (Linux's /proc/stat)."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    busy = sum(int(value) for value in fields[:8]) - int(fields[3]) - int(fields[4])
    return busy / os.sysconf("SC_CLK_TCK")  # all but idle and I/O wait
