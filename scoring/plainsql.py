"""Plain SQL for the reads and writes of the deal-entry path, built once per database.

The ORM builds the SQL of a query anew on every call, and on the busiest path of the site (a
phone reading a board, then recording a deal on it) building it cost more than the database
spent answering (``docs/PERFORMANCE.md``). Here a model's columns, their order and the ORM's
own converters are worked out once per database connection alias, and rows become model
instances through ``Model.from_db``, exactly as a queryset makes them; an ``UPDATE`` or an
``INSERT`` takes each value as its field prepares it for saving. The same values whatever the
database (tested against the ORM in ``tests/table/test_plainsql.py``). Everything else writes
and reads through the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

#: A column's converters, with the column expression they expect.
Steps = list[tuple[list[Callable], Any]]


class Columns:
    """A model's concrete columns on one database: their SQL (qualified by the table) and how
    a row's values become the instance's."""

    def __init__(self, model: type[Model], connection: BaseDatabaseWrapper) -> None:
        meta = model._meta
        chosen = list(meta.concrete_fields)
        self.model = model
        self.table = connection.ops.quote_name(meta.db_table)
        self.names = [field.attname for field in chosen]
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{self.table}.{quote(str(field.column))}" for field in chosen)
        self.steps: list[Steps] = []
        for field in chosen:
            column = field.get_col(meta.db_table)
            found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
            self.steps.append([(found, column)] if found else [])

    def __len__(self) -> int:
        return len(self.names)

    def instance(self, connection: BaseDatabaseWrapper, values: Sequence[Any]) -> Any:
        """The model instance of ``values`` (its columns, in order)."""
        converted = []
        for value, steps in zip(values, self.steps, strict=True):
            for found, column in steps:
                for converter in found:
                    value = converter(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.names, converted)


_KNOWN: dict[tuple[str, type[Model]], Columns] = {}


def columns(model: type[Model], connection: BaseDatabaseWrapper) -> Columns:
    """``model``'s columns on ``connection``'s database, worked out once."""
    key = (connection.alias, model)
    known = _KNOWN.get(key)
    if known is None:
        known = _KNOWN[key] = Columns(model, connection)
    return known


def reader(model: type[Model]) -> BaseDatabaseWrapper:
    """The connection the router reads ``model`` from."""
    return connections[router.db_for_read(model)]


def writer(model: type[Model]) -> BaseDatabaseWrapper:
    """The connection the router writes ``model`` to."""
    return connections[router.db_for_write(model)]


def param(model: type[Model], field: str, value: Any, connection: BaseDatabaseWrapper) -> Any:
    """``value`` as the database takes it for ``model.field`` (a UUID on SQLite is text)."""
    return cast(Field, model._meta.get_field(field)).get_db_prep_value(value, connection)


def update(model: type[Model], values: dict[str, Any], where: dict[str, Any]) -> int:
    """``model.objects.filter(**where).update(**values)`` for plain field values (no
    expressions) as one plain ``UPDATE``: each value prepared by its field, as the ORM
    prepares it for saving. Returns the number of rows changed."""
    connection = writer(model)
    meta = model._meta
    quote = connection.ops.quote_name
    sets, params = [], []
    for name, value in values.items():
        field = cast(Field, meta.get_field(name))
        sets.append(f"{quote(str(field.column))} = %s")
        params.append(field.get_db_prep_save(value, connection))
    conditions = []
    for name, value in where.items():
        field = cast(Field, meta.get_field(name))
        conditions.append(f"{quote(str(field.column))} = %s")
        params.append(field.get_db_prep_value(value, connection))
    sql = f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} WHERE {' AND '.join(conditions)}"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def insert(instance: Any) -> Any:
    """``instance.save()`` of a new row as one plain ``INSERT … RETURNING id``: every field's
    value as the ORM's save takes it (``pre_save``: ``auto_now`` and ``auto_now_add`` set),
    prepared by its field. Returns the instance, saved (its id set, no longer "adding")."""
    model = type(instance)
    connection = writer(model)
    if not connection.features.can_return_columns_from_insert:  # an SQLite before 3.35
        instance.save(force_insert=True)
        return instance
    meta = model._meta
    quote = connection.ops.quote_name
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    columns = ", ".join(quote(str(field.column)) for field in fields)
    marks = ", ".join(["%s"] * len(fields))
    params = [
        field.get_db_prep_save(field.pre_save(instance, add=True), connection) for field in fields
    ]
    key = cast(Field, meta.pk)
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks}) "
        f"RETURNING {quote(str(key.column))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (pk,) = cursor.fetchone()
    setattr(instance, key.attname, pk)
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance
