"""Sessions in the database, as Django's ``db`` backend keeps them, read with one plain query.

Every request of a table's phone reads its session (the links it holds). Django's backend reads
it through the ORM, which costs more to build the query than the database spends answering it;
this one sends the same ``SELECT`` as plain SQL. Everything else (writing, expiry, clearing,
the ``django_session`` table) is Django's, so the two backends read each other's sessions.

Decoding a session checks its signature, then inflates and parses it: about 65 µs for a phone
that holds a few dozen links, on every request. A process keeps the JSON of the sessions it
decoded lately under their stored text (signed: the same text is the same session, already
checked), and parses it afresh for each request, which gets a session of its own to change.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.core.signing import JSONSerializer
from django.db import connections, router
from django.utils import timezone

#: How many decoded sessions a process keeps (a few KB each).
KEPT = 2000
_decoded: OrderedDict[bytes | str, str] = OrderedDict()
_lock = threading.Lock()  # gthread workers share a process


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

    def decode(self, session_data: bytes | str) -> dict:
        if self.serializer is not JSONSerializer:
            return super().decode(session_data)
        with _lock:
            found = _decoded.get(session_data)
            if found is not None:
                _decoded.move_to_end(session_data)
        if found is not None:
            return json.loads(found)
        decoded = super().decode(session_data)  # {} for a bad signature: not kept
        if decoded:
            with _lock:
                _decoded[session_data] = json.dumps(decoded)
                if len(_decoded) > KEPT:
                    _decoded.popitem(last=False)
        return decoded
