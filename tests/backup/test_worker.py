"""The task worker's pulse (scoring/backup/worker.py): an export whose worker died is failed with
words at once and holds no place, and the page of a waiting export says when no worker runs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from scoring.backup import jobs, worker
from scoring.models import Export, WorkerPulse
from tests.helpers import html, logged_in, run_tasks

BACKUP = "/history/export.json"
NOBODY = "No downloads are being made right now"


def beat(name: str, *, ago: timedelta = timedelta(0)) -> None:
    WorkerPulse.objects.create(worker=name, beat_at=timezone.now() - ago)


def claimed(name: str) -> Export:
    """The one export, its task claimed by worker ``name`` and started, as ``db_worker`` and
    ``jobs.export_make`` do before the export's document is written."""
    DBTaskResult.objects.get().claim(name)
    Export.objects.update(started_at=timezone.now(), worker=name)
    return Export.objects.get()


def test_an_export_whose_worker_died_is_failed_at_once_and_its_owner_may_ask_again(scorer):
    client = logged_in(scorer)
    page = client.post(BACKUP)["Location"]
    beat("w1")
    claimed("w1")
    assert "Being made" in html(client.get(page))
    assert client.post(BACKUP).status_code == 429  # still being made: one at a time

    WorkerPulse.objects.update(beat_at=timezone.now() - worker.STALE)  # its pulse stopped
    assert "could not be made. Ask for it again" in html(client.get(page))
    assert Export.objects.get().finished_at is None  # the page only read
    assert client.post(BACKUP).status_code == 302  # and the person asks again at once
    assert Export.objects.filter(failed=True).count() == 1


def test_a_supervisor_fails_the_tasks_of_its_worker_that_stopped(scorer):
    client = logged_in(scorer)
    page = client.post(BACKUP)["Location"]
    beat("w1")
    beat("w2")
    export = claimed("w1")
    worker.worker_stopped(worker="w1")
    export.refresh_from_db()
    assert export.failed and export.finished_at is not None
    task = DBTaskResult.objects.get()
    assert task.status == TaskResultStatus.FAILED
    assert task.exception_class_path == "scoring.backup.worker.WorkerLost"
    assert list(WorkerPulse.objects.values_list("worker", flat=True)) == ["w2"]
    assert "could not be made. Ask for it again" in html(client.get(page))


def test_the_work_of_a_worker_nobody_watches_is_trusted_until_lost(scorer):
    client = logged_in(scorer)
    page = client.post(BACKUP)["Location"]
    claimed("by-hand")  # db_worker run by hand: no pulse at all
    assert worker.lost_tasks_fail() == 0
    assert "Being made" in html(client.get(page))
    Export.objects.update(created_at=timezone.now() - jobs.LOST)
    assert "could not be made" in html(client.get(page))


def test_a_waiting_export_says_when_no_worker_is_taking_tasks(scorer):
    client = logged_in(scorer)
    page = client.post(BACKUP)["Location"]
    assert NOBODY in html(client.get(page, headers={"HX-Request": "true"}))
    beat("dead", ago=worker.STALE)
    assert NOBODY in html(client.get(page))
    beat("alive")
    assert "Waiting for its turn" in html(client.get(page))
    assert NOBODY not in html(client.get(page))


@pytest.mark.django_db(transaction=True)
def test_the_worker_that_makes_an_export_is_written_down(scorer, exports_storage):
    logged_in(scorer).post(BACKUP)
    run_tasks()
    export = Export.objects.get()
    assert export.finished_at is not None and not export.failed
    made = DBTaskResult.objects.get(task_path=jobs.export_make.module_path)
    assert export.worker == made.worker_ids[-1] != ""


@pytest.mark.django_db(transaction=True)
def test_an_export_given_up_while_it_was_made_keeps_no_file(scorer, exports_storage):
    logged_in(scorer).post(BACKUP)
    Export.objects.update(failed=True, finished_at=timezone.now())  # given up meanwhile
    run_tasks()
    assert Export.objects.get().file == "" and list(exports_storage.iterdir()) == []
