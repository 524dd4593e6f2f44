"""``manage.py task_worker`` (``make run``, ``make serve``, the deploy's unit): the worker it runs
is started again when it dies, and what it was making is failed at once, with words.

The supervisor runs in a process of its own on a SQLite file; its worker is killed (SIGKILL, as
the out-of-memory killer does) in the middle of an export, and then made to stop with an error
by a database it cannot open.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.helpers import ROOT, free_port, manage
from tests.site.test_database_outage import Cluster

pytestmark = pytest.mark.slow  # processes of their own, a few seconds each: make test runs it
STATE = """
import json
from django_tasks_db.models import DBTaskResult
from scoring.models import Export, WorkerPulse
print(json.dumps({
    "workers": list(WorkerPulse.objects.values_list("worker", flat=True)),
    "exports": list(Export.objects.values("failed", "finished_at", "worker")),
    "tasks": list(DBTaskResult.objects.values("status", "exception_class_path")),
}, default=str))
"""
ASK = """
from django.contrib.auth import get_user_model
from scoring.models import Export
from tests.backup.stuck import export_stuck
user = get_user_model().objects.create_user("ivan")
export = Export.objects.create(kind=Export.Kind.HISTORY_JSON, user=user)
export_stuck.enqueue(str(export.pk), {started!r})
"""


def environment_of(database: str) -> dict[str, str]:
    """The environment of the test's processes, on ``database`` (migrated)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_")) and key != "DEBUG"
    }
    env.update(DATABASE_URL=database, LOG_LEVEL="INFO")
    done = manage("migrate", "--noinput", "-v0", env=env)
    assert done.returncode == 0, done.stderr
    return env


@contextlib.contextmanager
def supervised(env: dict[str, str], folder: Path) -> Iterator[tuple[subprocess.Popen, Path]]:
    """``manage.py task_worker`` running, and its log."""
    log = folder / "task_worker.log"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "task_worker"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )
    try:
        yield process, log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for child in log.read_text().split("(pid ")[1:]:  # its workers, which a kill leaves
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(child.split(")")[0]), signal.SIGKILL)


def state(env: dict[str, str]) -> dict:
    done = manage("shell", "-v0", "-c", STATE, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def until(test, seconds: float, what: str, log: Path):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if value := test():
            return value
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen in {seconds} s:\n{log.read_text()}")


def test_a_worker_killed_mid_export_fails_it_at_once_and_comes_back(tmp_path):
    env = environment_of(f"sqlite:///{tmp_path / 'site.sqlite3'}")
    started = tmp_path / "started"
    with supervised(env, tmp_path) as (process, log):
        done = manage("shell", "-v0", "-c", ASK.format(started=str(started)), env=env)
        assert done.returncode == 0, done.stderr
        begun = until(lambda: started.exists() and started.read_text(), 30, "a start", log)
        pid, first = begun.split()
        assert state(env)["workers"] == [first]

        os.kill(int(pid), signal.SIGKILL)  # as the out-of-memory killer does
        killed = time.monotonic()
        now = until(lambda: (seen := state(env))["exports"][0]["failed"] and seen, 30, "", log)
        assert time.monotonic() - killed < 10  # at once, not after jobs.LOST
        assert now["exports"][0]["finished_at"] is not None  # its place is free
        assert now["tasks"] == [
            {"status": "FAILED", "exception_class_path": "scoring.backup.worker.WorkerLost"}
        ]
        again = until(lambda: state(env)["workers"], 30, "a new worker", log)
        assert len(again) == 1 and again != [first]
        assert process.poll() is None

        process.send_signal(signal.SIGTERM)  # as make's trap and systemd stop it
        assert process.wait(timeout=20) == 0
        assert state(env)["workers"] == []  # and it says so


def test_a_worker_stopped_by_a_database_restart_is_started_again(tmp_path):
    """On a PostgreSQL cluster of the test's own (tests/site/test_database_outage.py), stopped
    long enough for the worker's look for tasks to fail, then started."""
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="kozel-worker-")), free_port())
    try:
        cluster.init()
        cluster.start()
        with psycopg.connect(cluster.url("postgres"), autocommit=True) as connection:
            connection.execute("CREATE DATABASE kozel_worker")
        env = environment_of(cluster.url("kozel_worker"))
        with supervised(env, tmp_path) as (process, log):
            first = until(lambda: state(env)["workers"], 30, "a worker", log)
            cluster.stop()
            try:
                until(lambda: "stopped (exit status 1)" in log.read_text(), 30, "a stop", log)
            finally:
                cluster.start()
            again = until(lambda: state(env)["workers"] != first, 60, "a new worker", log)
            assert again and process.poll() is None
    finally:
        with contextlib.suppress(AssertionError):
            cluster.stop()
        shutil.rmtree(cluster.folder, ignore_errors=True)
