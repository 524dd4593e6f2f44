"""The project's gunicorn (``kozel_site/gunicorn.conf.py``), started in a process group of its own
on a free port, waited for until its health check answers, and stopped with its workers."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import ROOT, Browser, free_port


@contextlib.contextmanager
def gunicorn_serving(env: dict[str, str], log: Path) -> Iterator[int]:
    """gunicorn under ``env``, its output in ``log``: its port, once ``/healthz`` answers 200."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "kozel_site/gunicorn.conf.py"],
        cwd=ROOT,
        env={**env, "BIND": f"127.0.0.1:{port}"},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_until_healthy(port, process, log)
        yield port
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _wait_until_healthy(
    port: int, process: subprocess.Popen, log: Path, *, timeout: float = 60
) -> None:
    """Until gunicorn on ``port`` answers its health check (its output in ``log`` when it stops
    or does not answer in ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"gunicorn on {port} stopped:\n{log.read_text()}")
        try:
            if Browser().get(port, "/healthz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"gunicorn on {port} did not answer in time:\n{log.read_text()}")
