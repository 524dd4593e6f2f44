"""A PostgreSQL that restarts or stops under a running site: no 500, the site's 503 while it is
away, and no connection the restart broke used for a request.

A throwaway PostgreSQL cluster of this module's own (initdb and pg_ctl from the machine's
PostgreSQL binaries, on a free port) is stopped and started under a gunicorn server with
production settings; the machine's shared PostgreSQL is never touched. The binaries are on
every machine the suite runs on (.ci/run starts the shared cluster from them): without them the
module fails, it does not skip.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers import Browser, csrf_token, free_port, manage
from tests.served import gunicorn_serving

pytestmark = pytest.mark.slow  # its own PostgreSQL and gunicorn: make test runs it
PASSWORD = "outage-password-3Kq"
#: settings.DATABASE_CONNECT_TIMEOUT's default: the longest a request waits for a database that
#: is away (a stopped one refuses at once).
CONNECT_TIMEOUT = 2.0
PAGES = ("/accounts/", "/history/", "/leagues/")


def binaries() -> Path:
    """The newest PostgreSQL's bin folder (Debian: /usr/lib/postgresql/<version>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        pytest.fail("no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)")
    return found[-1].parent


def as_postgres(command: list[str]) -> subprocess.CompletedProcess:
    """Run a PostgreSQL tool, as the postgres user when this is root (initdb refuses root)."""
    if os.geteuid() == 0:
        command = ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(command)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


class Cluster:
    """A PostgreSQL cluster in a folder of its own (its socket there too), on ``port``."""

    def __init__(self, folder: Path, port: int) -> None:
        self.bin, self.folder, self.port = binaries(), folder, port
        self.data = folder / "data"
        self.options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"

    def pg_ctl(self, *args: str) -> None:
        log = str(self.folder / "postgres.log")
        as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", log, *args])

    def init(self) -> None:
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        initdb = [str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"]
        as_postgres([*initdb, "--no-sync"])

    def start(self) -> None:
        self.pg_ctl("-o", self.options, "-w", "start")

    def stop(self) -> None:
        self.pg_ctl("-m", "fast", "-w", "stop")

    def restart(self) -> None:
        self.pg_ctl("-o", self.options, "-m", "fast", "-w", "restart")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Made in a folder of /tmp (the postgres user cannot enter pytest's), removed afterwards."""
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="kozel-outage-")), free_port())
    try:
        cluster.init()
        cluster.start()
        import psycopg

        with psycopg.connect(cluster.url("postgres"), autocommit=True) as connection:
            connection.execute("CREATE DATABASE kozel_outage")
        yield cluster
    finally:
        with contextlib.suppress(AssertionError):  # stopped already, or never started
            cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def environment(cluster, tmp_path_factory) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "DJANGO_", "GUNICORN_", "DATABASE_")) and key != "DEBUG"
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=cluster.url("kozel_outage"),
        STATIC_ROOT=str(tmp_path_factory.mktemp("static")),
        WEB_CONCURRENCY="2",
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
    )
    for args in (
        ("migrate", "--noinput", "-v0"),
        ("collectstatic", "--noinput", "-v0"),
        (
            "shell",
            "-v0",
            "-c",
            "from django.contrib.auth import get_user_model; "
            f"get_user_model().objects.create_user('olga', password={PASSWORD!r})",
        ),
    ):
        done = manage(*args, env=env)
        assert done.returncode == 0, done.stderr
    return env


@pytest.fixture(scope="module")
def server(environment, tmp_path_factory) -> Iterator[tuple[int, Path]]:
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    with gunicorn_serving(environment, log) as port:
        yield port, log


@pytest.fixture
def olga(server) -> Browser:
    """A browser logged in: each of its pages reads the session and the user from PostgreSQL."""
    port, _log = server
    browser = Browser()
    page = browser.get(port, "/accounts/login/")[2]
    data = {"csrfmiddlewaretoken": csrf_token(page), "username": "olga", "password": PASSWORD}
    assert browser.post(port, "/accounts/login/", data)[0] == 302
    return browser


def timed(browser: Browser, port: int, method: str, path: str, **headers: str):
    started = time.monotonic()
    data = {} if method == "POST" else None
    status, answer, body = browser.request(port, method, path, data=data, headers=headers)
    return status, answer, body, time.monotonic() - started


def test_a_restart_of_the_database_costs_no_request_an_error(cluster, server, olga):
    port, log = server
    for path in PAGES:
        assert olga.get(port, path)[0] == 200  # every worker holds a connection now
    cluster.restart()
    statuses = [olga.get(port, path)[0] for _ in range(4) for path in PAGES]
    assert statuses == [200] * len(statuses), "a connection the restart broke was handed out"

    with ThreadPoolExecutor(max_workers=2) as pool:  # asking all through another restart
        asking = pool.submit(lambda: [olga.get(port, "/history/")[0] for _ in range(40)])
        time.sleep(0.2)
        cluster.restart()
        during = asking.result(timeout=120)
    assert set(during) <= {200, 503} and 500 not in during
    assert olga.get(port, "/history/")[0] == 200
    assert "Internal Server Error" not in log.read_text()


def test_while_the_database_is_away_every_request_gets_the_try_again_page(cluster, server, olga):
    port, _log = server
    assert olga.get(port, "/accounts/")[0] == 200
    cluster.stop()
    try:
        answers = [timed(olga, port, "GET", path) for path in PAGES]
        answers.append(timed(olga, port, "GET", "/history/", **{"HX-Request": "true"}))
        answers.append(timed(olga, port, "POST", "/accounts/logout/"))
        answers.append(timed(Browser(), port, "GET", "/series/1/"))  # a visitor's board
        for status, headers, body, took in answers:
            assert status == 503 and headers["Retry-After"] == "5"
            assert "no-store" in headers["Cache-Control"]
            assert "was not saved yet" in body and "Traceback" not in body
            assert took < CONNECT_TIMEOUT + 1.5, f"answered after {took:.1f} s"
        assert "<html" in answers[0][2] and "<html" not in answers[3][2]  # htmx: the message
        assert Browser().get(port, "/healthz")[0] == 503
    finally:
        cluster.start()
    statuses = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        statuses.append(olga.get(port, "/accounts/")[0])
        if statuses[-1] == 200:
            break
        time.sleep(0.2)
    assert statuses[-1] == 200 and 500 not in statuses, statuses
