"""Exports made off the request: a history as JSON or CSV, and an account's own data.

A whole league's JSON is tens of megabytes: written by the request, it held a web worker for
seconds and was cut off at the worker's timeout. So a request only asks: what it may see is
written down (``history_scope``), an ``Export`` row made and a task queued (django-tasks'
database backend, run by ``manage.py task_worker``: ``scoring.backup.worker``). The task
writes the whole document, gzipped, aside and only then into the exports storage, so a file
there is always whole; it goes ``KEEP`` after. One export at a time per person, and
``PER_ADDRESS`` per network without an account (which can make a new session at will). A
league is written whole (with its club nights and change log) only for its owners: they can
move or restore it, and the change log names members' accounts.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.files import File
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import TaskContext, task

from scoring.accounts import privacy
from scoring.backup.csv_export import BOM, history_csv
from scoring.backup.json_export import export_json
from scoring.backup.worker import stale_workers, worker_alive
from scoring.history.forms import HistoryFilterForm
from scoring.history.selectors import history_filter
from scoring.models import Export, League, Membership, Role, Series, exports_storage
from scoring.table.selectors import visible_series
from scoring.web.clients import client_network
from scoring.web.sessions import visitor_of

#: How long a finished export stays to be downloaded.
KEEP = timedelta(hours=1)
#: An export neither done nor failed after this long was lost (its worker was killed unseen):
#: it no longer counts against its owner's limit, and its page says to ask again. One whose
#: worker is known dead (``worker.stale_workers``) is lost at once.
LOST = timedelta(minutes=30)
#: Exports waiting or being made at once from one network, for requests without an account.
PER_ADDRESS = 3
#: The browser's own exports, for a visitor without an account (newest last).
SESSION_EXPORTS = "exports"
REMEMBERED = 20
DATES = ("start", "end")

WAITING, RUNNING, DONE, FAILED = "waiting", "running", "done", "failed"


class ExportRefused(Exception):
    """This request may not ask for an export now; ``str(error)`` says why."""

    def __init__(self, message: str, *, current: Export | None = None) -> None:
        super().__init__(message)
        self.current = current


def _digest(address: str) -> str:
    """The network kept only as a digest: the limit needs to compare it, not to read it."""
    return hashlib.sha256(f"exports:{address}".encode()).hexdigest()[:32]


def _user(request: HttpRequest) -> User | None:
    user = request.user
    return user if isinstance(user, User) else None


def _lost() -> Q:
    """Exports neither done nor failed that will never be: their worker died."""
    dead = Q(started_at__isnull=False, worker__in=stale_workers().values("worker"))
    return Q(finished_at__isnull=True) & (Q(created_at__lte=timezone.now() - LOST) | dead)


def _unfinished() -> QuerySet[Export]:
    return Export.objects.filter(finished_at__isnull=True).exclude(_lost()).order_by("created_at")


def exports_held(request: HttpRequest) -> QuerySet[Export]:
    """The exports this request may have: its account's, and those its session asked for."""
    condition = Q(pk__in=request.session.get(SESSION_EXPORTS, []), user__isnull=True)
    user = _user(request)
    if user is not None:
        condition |= Q(user=user)
    return Export.objects.filter(condition)


def _still_made(current: Export | None) -> ExportRefused:
    return ExportRefused(
        _("A download you asked for is still being made: wait for it, then ask again."),
        current=current,
    )


def _network_busy() -> ExportRefused:
    return ExportRefused(
        _(
            "Several downloads asked for from your network are being made. "
            "Try again in a few minutes, or log in."
        )
    )


def export_refusal(request: HttpRequest) -> ExportRefused | None:
    """Why this request may not ask for an export now, or None when it may."""
    current = _unfinished().filter(pk__in=exports_held(request).values("pk")).first()
    if current is not None:
        return _still_made(current)
    if _user(request) is None:
        nearby = _unfinished().filter(user__isnull=True, address=_digest(client_network(request)))
        if nearby.count() >= PER_ADDRESS:
            return _network_busy()
    return None


def owned_leagues(request: HttpRequest) -> QuerySet[League]:
    """The leagues this request's account owns: those a download may write whole."""
    user = _user(request)
    if user is None:
        return League.objects.none()
    return League.objects.filter(memberships__user=user, memberships__role=Role.OWNER)


def history_scope(request: HttpRequest, filters: dict[str, Any]) -> dict[str, Any]:
    """What a history export of this request holds: the series it may see now, as its leagues
    and its other series (the quick games of its links: a few hundred at most), narrowed by the
    history's ``filters`` (a ``HistoryFilterForm``'s cleaned data), and the leagues it owns."""
    user = _user(request)
    roles = Membership.objects.filter(user=user) if user is not None else Membership.objects.none()
    leagues = sorted(roles.values_list("league_id", flat=True))
    return {
        "leagues": leagues,
        "series": sorted(
            visible_series(visitor_of(request))
            .exclude(league_id__in=leagues)
            .values_list("pk", flat=True)
        ),
        "owned": sorted(owned_leagues(request).values_list("pk", flat=True)),
        "filters": {
            name: value.isoformat() if isinstance(value, date) else value
            for name, value in filters.items()
            if name in HistoryFilterForm.FILTERS and value not in (None, "")
        },
        "language": translation.get_language(),
    }


def scope_series(scope: dict[str, Any]) -> QuerySet[Series]:
    """The series a history export's ``scope`` holds, as they are now."""
    series = Series.objects.filter(Q(league_id__in=scope["leagues"]) | Q(pk__in=scope["series"]))
    filters = {
        name: date.fromisoformat(value) if name in DATES else value
        for name, value in scope["filters"].items()
    }
    return history_filter(series, filters)


@transaction.atomic
def export_request(*, kind: str, user: User | None, address: str, scope: dict[str, Any]) -> Export:
    """A new export of ``kind``, queued for the task worker (row and task in one transaction:
    the worker never finds a task without its export). The database keeps the limits (one
    unfinished export per account, ``PER_ADDRESS`` per network without one), so that asks
    racing each other past ``export_refusal`` make one export, the others ``ExportRefused``."""
    now = timezone.now()
    # Lost with their worker, they hold no place any more (their page already says so).
    Export.objects.filter(_lost()).update(failed=True, finished_at=now)
    if user is None:
        export = _in_a_free_slot(kind=kind, address=_digest(address), scope=scope)
    else:
        try:
            with transaction.atomic():
                export = Export.objects.create(kind=kind, user=user, scope=scope)
        except IntegrityError:  # another ask took the place at the same moment
            raise _still_made(_unfinished().filter(user=user).first()) from None
    export_make.enqueue(str(export.pk))
    return export


def _in_a_free_slot(*, kind: str, address: str, scope: dict[str, Any]) -> Export:
    """A network's new export in the first of its ``PER_ADDRESS`` places that is free. Asks
    racing each other see the same free places: one that loses a place to another tries the
    next, so a burst makes as many exports as the network may hold, never more."""
    taken = _unfinished().filter(user__isnull=True, address=address).values_list("slot")
    for slot in sorted(set(range(PER_ADDRESS)) - {held for (held,) in taken}):
        try:
            with transaction.atomic():
                return Export.objects.create(kind=kind, address=address, scope=scope, slot=slot)
        except IntegrityError:  # another ask took this place at the same moment
            continue
    raise _network_busy()


def export_ask(request: HttpRequest, *, kind: str, scope: dict[str, Any]) -> Export:
    """This request's export of ``kind``, queued; ``ExportRefused`` when it may not ask now."""
    refusal = export_refusal(request)
    if refusal is not None:
        raise refusal
    user = _user(request)
    export = export_request(kind=kind, user=user, address=client_network(request), scope=scope)
    if user is None:
        held = [pk for pk in request.session.get(SESSION_EXPORTS, []) if pk != str(export.pk)]
        request.session[SESSION_EXPORTS] = [*held, str(export.pk)][-REMEMBERED:]
    return export


@dataclass(frozen=True)
class ExportState:
    export: Export
    state: str  # WAITING, RUNNING, DONE or FAILED
    ahead: int = 0  # exports queued before it, while it waits
    no_worker: bool = False  # no task worker is alive to make it, while it waits
    kept_until: datetime | None = None  # when a finished file goes

    @property
    def finished(self) -> bool:
        return self.state in (DONE, FAILED)


def export_state(export: Export) -> ExportState:
    if export.failed:
        return ExportState(export, FAILED)
    if export.finished_at is not None:
        return ExportState(export, DONE, kept_until=export.finished_at + KEEP)
    if Export.objects.filter(_lost(), pk=export.pk).exists():
        return ExportState(export, FAILED)
    if export.started_at is not None:
        return ExportState(export, RUNNING)
    ahead = _unfinished().filter(started_at__isnull=True, created_at__lt=export.created_at)
    return ExportState(export, WAITING, ahead=ahead.count(), no_worker=not worker_alive())


def download_name(export: Export) -> str:
    """The file name a finished export is saved under by the browser."""
    if export.kind == Export.Kind.ACCOUNT:
        day = timezone.localdate(export.created_at).isoformat()
        return f"kozel-account-{export.user_id}-{day}.json"
    return "kozel-history.csv" if export.kind == Export.Kind.HISTORY_CSV else "kozel-history.json"


def content_type(export: Export) -> str:
    if export.kind == Export.Kind.HISTORY_CSV:
        return "text/csv; charset=utf-8"
    return "application/json; charset=utf-8"


def _pieces(export: Export) -> Iterable[str]:
    if export.kind == Export.Kind.ACCOUNT:
        if export.user is None:
            raise ValueError(f"export {export.pk}: an account's data needs its account")
        document = privacy.personal_data(export.user)
        yield json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True)
        return
    series = scope_series(export.scope)
    if export.kind == Export.Kind.HISTORY_CSV:
        yield BOM
        yield from history_csv(series)
        return
    owned = League.objects.filter(pk__in=export.scope["owned"])
    yield from export_json(series, secrets=False, whole=owned)


@task(takes_context=True)
def export_make(context: TaskContext, export_id: str) -> int:
    """The task: write the export's whole document, then put it where it is downloaded from.
    Returns its size in bytes (0 when the export is gone, or was given up as lost)."""
    export = Export.objects.filter(pk=export_id).select_related("user").first()
    if export is None:
        return 0
    worker = context.task_result.worker_ids[-1]
    Export.objects.filter(pk=export.pk).update(started_at=timezone.now(), worker=worker)
    try:
        with (
            translation.override(export.scope.get("language")),
            tempfile.TemporaryFile() as spool,
        ):
            # Kept gzipped: a tenth of the bytes to keep and to send, compressed once here
            # rather than by a web worker at every download.
            size = 0
            with gzip.GzipFile(fileobj=spool, mode="wb", compresslevel=6) as packed:
                for piece in _pieces(export):
                    data = piece.encode()
                    packed.write(data)
                    size += len(data)
            suffix = "csv" if export.kind == Export.Kind.HISTORY_CSV else "json"
            name = exports_storage().save(f"{export.pk}.{suffix}.gz", File(spool))
    except BaseException:
        Export.objects.filter(pk=export.pk).update(failed=True, finished_at=timezone.now())
        raise
    done = Export.objects.filter(pk=export.pk, finished_at__isnull=True).update(
        file=name, size=size, finished_at=timezone.now()
    )
    if not done:  # given up as lost, or pruned, while it was being made: nobody can have it
        exports_storage().delete(name)
    exports_prune.using(run_after=timezone.now() + KEEP).enqueue()
    return size


@task()
def exports_prune() -> int:
    """The task each export queues to run ``KEEP`` after it is done: delete every export done
    that long ago (or lost), with its file, and the task results of days ago."""
    now = timezone.now()
    old = Export.objects.filter(
        Q(finished_at__lte=now - KEEP) | Q(finished_at__isnull=True, created_at__lte=now - LOST)
    )
    count = 0
    for export in old:
        if export.file:
            exports_storage().delete(export.file)
        export.delete()
        count += 1
    call_command("prune_db_task_results", min_age_days=1, verbosity=0)
    return count
