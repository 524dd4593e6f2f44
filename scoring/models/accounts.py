"""What an account keeps beside Django's user, and the downloads made for it."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.utils.translation import gettext_lazy as _


class AccountSettings(models.Model):
    """What an account keeps beside Django's user: the language its pages speak ("" until it
    picks one: then the browser's cookie or Accept-Language decides)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings"
    )
    language = models.CharField(max_length=16, blank=True)

    class Meta:
        verbose_name = verbose_name_plural = _("account settings")

    def __str__(self) -> str:
        return f"Settings of user {self.user_id}"


def exports_storage() -> Storage:
    """Where finished exports are kept (settings ``STORAGES["exports"]``)."""
    return storages["exports"]


class Export(models.Model):
    """A download made by the task worker (``scoring.backup.jobs``), for who asked only: ``user``,
    or with none the browser whose session remembers the id. The file is there once
    ``finished_at`` is set (written whole first), and goes with the row ``jobs.KEEP`` later."""

    class Kind(models.TextChoices):
        HISTORY_JSON = "history-json", _("history as JSON (backup)")
        HISTORY_CSV = "history-csv", _("history as CSV (spreadsheet)")
        ACCOUNT = "account", _("everything about your account")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    #: A digest of the address a request without an account came from: the per-network limit.
    address = models.CharField(max_length=64, blank=True)
    scope = models.JSONField(default=dict)
    #: The finished file's name in ``exports_storage()`` ("" until it is there).
    file = models.CharField(max_length=100, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    failed = models.BooleanField(default=False)
    #: The task worker making it (``WorkerPulse.worker``), from when it starts.
    worker = models.CharField(max_length=64, blank=True)
    #: For a request without an account, which of its network's ``jobs.PER_ADDRESS`` places
    #: this unfinished export holds (the limit kept by the database, whatever races it).
    slot = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One export at a time per person, and a network's few: asks at the same moment
            # cannot both pass a check made before either is written.
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(finished_at__isnull=True, user__isnull=False),
                name="one_unfinished_export_per_user",
            ),
            models.UniqueConstraint(
                fields=["address", "slot"],
                condition=models.Q(finished_at__isnull=True, user__isnull=True),
                name="unfinished_exports_per_network",
            ),
        ]
        verbose_name = _("export")
        verbose_name_plural = _("exports")

    def __str__(self) -> str:
        return f"{self.kind} export {self.pk}"
