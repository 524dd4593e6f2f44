"""The task worker's pulse, and what becomes of the work of one that died.

django-tasks-db's ``db_worker`` keeps no heartbeat, and stops at the first database error (a
PostgreSQL restart of a fraction of a second): an export it was making stayed "being made" for
``jobs.LOST``, holding its owner's place. ``manage.py task_worker`` runs ``db_worker`` under
watch: it names each one (``--worker-id``), writes its pulse every ``PULSE`` while it runs, and
when it stops fails the tasks it was running at once (then starts another). A worker whose
pulse is older than ``STALE`` died with its supervisor (killed, the machine gone): its exports
are lost for every page and limit, and the next supervisor fails them. A worker with no pulse
row at all (``db_worker`` run by hand, the tests' ``run_tasks``) is trusted until ``LOST``.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from scoring.models import Export, WorkerPulse

#: How often the supervisor writes a running worker's pulse.
PULSE = timedelta(seconds=5)
#: A pulse this old is a dead worker's (a few pulses missed: not a slow moment of the database).
STALE = timedelta(seconds=20)


class WorkerLost(Exception):
    """Why a task failed: the process running it stopped before it ended."""


def pulse_write(*, worker: str) -> None:
    """``worker`` is alive now."""
    WorkerPulse.objects.update_or_create(worker=worker, defaults={"beat_at": timezone.now()})


def stale_workers() -> QuerySet[WorkerPulse]:
    """The workers known to be dead: their pulse stopped."""
    return WorkerPulse.objects.filter(beat_at__lte=timezone.now() - STALE)


def worker_alive() -> bool:
    """Whether any worker is taking tasks now (a page says so when none is)."""
    return WorkerPulse.objects.filter(beat_at__gt=timezone.now() - STALE).exists()


def worker_stopped(*, worker: str) -> None:
    """``worker`` has stopped: nothing it was running will end, so fail it now."""
    WorkerPulse.objects.filter(worker=worker).update(beat_at=timezone.now() - STALE)
    lost_tasks_fail()


@transaction.atomic
def lost_tasks_fail() -> int:
    """Fail the exports and tasks of every dead worker, so that their owners may ask again at
    once and their pages say so, then forget those workers. Returns the exports failed."""
    dead = set(stale_workers().values_list("worker", flat=True))
    if not dead:
        return 0
    now = timezone.now()
    failed = Export.objects.filter(finished_at__isnull=True, worker__in=dead).update(
        failed=True, finished_at=now
    )
    for result in DBTaskResult.objects.running().select_for_update():  # a handful at most
        if result.worker_ids and result.worker_ids[-1] in dead:
            result.set_failed(WorkerLost(f"worker {result.worker_ids[-1]} stopped"))
    WorkerPulse.objects.filter(worker__in=dead).delete()
    return failed
