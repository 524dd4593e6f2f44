"""A task that starts an export as ``jobs.export_make`` does, then hangs: a worker to kill in
the middle of one (tests/backup/test_task_worker.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from django.utils import timezone
from django_tasks import TaskContext, task

from scoring.models import Export


@task(takes_context=True)
def export_stuck(context: TaskContext, export_id: str, started: str) -> None:
    worker = context.task_result.worker_ids[-1]
    Export.objects.filter(pk=export_id).update(started_at=timezone.now(), worker=worker)
    Path(started).write_text(f"{os.getpid()} {worker}")
    time.sleep(600)
