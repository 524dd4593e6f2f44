"""``manage.py task_worker``: django-tasks-db's ``db_worker`` (the exports), started again
whenever it stops, with its pulse written and the tasks of one that died failed at once.

``db_worker`` stops at the first database error (any PostgreSQL restart) and keeps no
heartbeat (``scoring.backup.worker``). This runs one ``db_worker`` at a time as a child
process under a name of its own, writes its pulse every ``PULSE`` while it runs, and when it
stops (an error, a kill, an out-of-memory) fails what it was running and starts another after a
short pause, longer while the database stays away. ``SIGTERM`` or ``SIGINT`` stop it gracefully:
the worker finishes the export it is making.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from types import FrameType

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections, connections

from scoring.backup.worker import PULSE, lost_tasks_fail, pulse_write, worker_stopped

logger = logging.getLogger(__name__)

#: Seconds before a worker that stopped is started again, doubled while they keep stopping.
FIRST_PAUSE, LONGEST_PAUSE = 1.0, 30.0
#: A worker that ran this long stopped for a reason of its moment: the pause starts afresh.
STEADY = 60.0


class Command(BaseCommand):
    help = (
        "Run the task worker (django-tasks-db's db_worker: the downloads) and start it again "
        "whenever it stops, failing at once the task it was running."
    )

    def handle(self, *args, **options) -> None:
        self.verbosity = str(options["verbosity"])
        self.stopping = False
        self.child: subprocess.Popen | None = None
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self.stop)
        stopped: list[str] = []  # workers whose tasks are still to fail (the database away)
        pause = FIRST_PAUSE
        while not self.stopping:
            worker = f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(4)}"

            def ready(worker: str = worker) -> None:
                # The dead one's tasks failed first; the pulse before the worker can claim any.
                self.settle(stopped)
                pulse_write(worker=worker)

            if self.database(ready):
                started = time.monotonic()
                if not self.stopping:  # asked to stop meanwhile
                    self.run(worker)
                stopped.append(worker)
                self.database(lambda: self.settle(stopped))
                pause = FIRST_PAUSE if time.monotonic() - started > STEADY else pause
            self.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    def run(self, worker: str) -> None:
        """Run one ``db_worker`` named ``worker`` to its end, writing its pulse meanwhile."""
        command = [sys.executable, str(settings.BASE_DIR / "manage.py"), "db_worker"]
        command += ["--no-reload", "--no-startup-delay", "--worker-id", worker]
        # Its own process group: a terminal's Ctrl+C reaches this command only, which passes
        # one SIGTERM on (two would cut the export short).
        self.child = subprocess.Popen([*command, "-v", self.verbosity], start_new_session=True)
        logger.info("Task worker %s started (pid %s)", worker, self.child.pid)
        while True:
            try:
                code = self.child.wait(timeout=PULSE.total_seconds())
                break
            except subprocess.TimeoutExpired:
                self.database(lambda: self.beat(worker))
        log = logger.info if self.stopping and code == 0 else logger.warning
        log("Task worker %s stopped (exit status %s)", worker, code)
        self.child = None

    def beat(self, worker: str) -> None:
        """``worker`` is alive; and the tasks of any other known to be dead are failed."""
        pulse_write(worker=worker)
        lost_tasks_fail()

    def settle(self, stopped: list[str]) -> None:
        """Fail the tasks of the workers that stopped, and of any other known to be dead."""
        while stopped:
            worker_stopped(worker=stopped[0])
            stopped.pop(0)
        lost_tasks_fail()

    def database(self, work: Callable[[], None]) -> bool:
        """Do ``work`` (writes of a few rows); False when the database did not answer."""
        close_old_connections()
        try:
            work()
        except DatabaseError as error:
            logger.warning("The database did not answer the task worker's supervisor: %s", error)
            connections.close_all()  # a connection the error broke is not used again
            return False
        return True

    def sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(0.1)

    def stop(self, number: int, frame: FrameType | None) -> None:
        # Passed on once: ``make run``'s Ctrl+C and then its trap's kill both reach this
        # command, and a second signal would make db_worker cut its export short.
        if self.child is not None and not self.stopping:
            self.child.send_signal(signal.SIGTERM)
        self.stopping = True
