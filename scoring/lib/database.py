"""What Django's documented API does not give, for the few statements written in SQL: the only
module that reaches the database backend's operations (``connection.ops``, not part of Django's
documented API), so that a change there is met in one place.

- A table's and a column's name as the backend quotes them (``quote_name``), for a statement
  written out where docs/PERFORMANCE.md ("Statements written in SQL") measures why; the names
  themselves are the models' documented ``_meta.db_table`` and fields' ``column``.
- A datetime as the backend stores it (``adapt_datetimefield_value``: UTC text on SQLite, the
  aware value on PostgreSQL), for such a statement's parameters and rows; the ORM adapts its own.
- Sequences moved past rows written with their ids (a restored backup's): the ORM leaves
  PostgreSQL's sequences behind, and ``manage.py sqlsequencereset`` only prints the statements
  (``sequence_reset_sql``) that ``sequences_reset`` runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.core.management.color import no_style
from django.db import connection
from django.db.models import Model


def table(model: type[Model]) -> str:
    """The model's table, quoted for the backend."""
    return connection.ops.quote_name(model._meta.db_table)


def columns(model: type[Model]) -> dict[str, str]:
    """The model's field names -> their columns, quoted for the backend."""
    return {
        field.name: connection.ops.quote_name(str(field.column))
        for field in model._meta.concrete_fields
    }


def stored_datetime(value: datetime | None) -> Any:
    """``value`` as the backend stores a ``DateTimeField``, for a statement written in SQL."""
    return connection.ops.adapt_datetimefield_value(value)


def sequences_reset(models: Iterable[type[Model]]) -> None:
    """After rows written with their ids, the next new row of each model gets an id above them
    (PostgreSQL's sequences; SQLite needs nothing)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), list(models)):
            cursor.execute(sql)


def sequence_past(model: type[Model], highest: int) -> None:
    """The next new row of ``model`` gets an id above ``highest``, even with no row that high (an
    id a removed row had, which must not be given again)."""
    name = model._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), %s)",
                [connection.ops.quote_name(name), model._meta.pk.column, highest],
            )
        elif connection.vendor == "sqlite":  # AUTOINCREMENT: sqlite_sequence holds the highest
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [highest, name])
            if not cursor.rowcount:
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [name, highest]
                )
