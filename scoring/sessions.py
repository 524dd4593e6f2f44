"""Sessions in the database, as Django's ``db`` backend keeps them, read with one plain query.

Every request of a table's phone reads its session (the links it holds). Django's backend reads
it through the ORM, which costs more to build the query than the database spends answering it;
this one sends the same ``SELECT`` as plain SQL. Everything else (writing, expiry, clearing,
the ``django_session`` table) is Django's, so the two backends read each other's sessions.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone


class SessionStore(DatabaseSessionStore):
    def load(self) -> dict:
        key = self.session_key
        if not key:  # Django's reader finds nothing for it either (and says so nowhere)
            self._session_key = None
            return {}
        model = self.model
        connection = connections[router.db_for_read(model)]
        table = connection.ops.quote_name(model._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                [key, now],
            )
            row = cursor.fetchone()
        if row is None:  # unknown or expired: a new session, as Django's backend does
            self._session_key = None
            return {}
        return self.decode(row[0])
