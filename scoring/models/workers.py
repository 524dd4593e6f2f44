"""The task workers' pulse: which ``manage.py task_worker`` is alive, for the exports' pages and
for failing the tasks of one that died (``scoring.backup.worker``)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class WorkerPulse(models.Model):
    """A task worker (one ``db_worker`` process, by the id its supervisor gave it) and when its
    supervisor last saw it alive. Written only by the supervisor, never by a web request."""

    worker = models.CharField(max_length=64, primary_key=True)
    beat_at = models.DateTimeField()

    class Meta:
        verbose_name = _("task worker")
        verbose_name_plural = _("task workers")

    def __str__(self) -> str:
        return f"task worker {self.worker}"
