"""Django's Redis cache backend, holding one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` for every cache call, and
redis-py builds a table of several hundred response callbacks in each one: about 90 µs of CPU a
call on this project's machines, more than the ``GET`` of a 15 KB page from a Redis on the same
host (``docs/PERFORMANCE.md``). The page cache (``scoring.pagecache``) asks Redis once or twice
on every deal, so the client is made once per pool and kept. Both are safe across gunicorn's
fork: redis-py's pool notices a new process and opens its own connections there, and a client
holds nothing but the pool (no connection of its own outside a pipeline or pub/sub, which the
cache never uses). Everything else is Django's backend as documented.

``OPTIONS["unanswered_sets"]``: ``set`` sends its ``SET`` on a connection of this process's own
that asked Redis not to answer (``CLIENT REPLY OFF``), and returns without waiting. The page
cache's sets (a board after every deal) then cost the sending alone: under load, waiting for
Redis's answer cost a worker about 0.2 ms of CPU a deal (the wait hands the core to another
process and takes it back cold), against 0.07 ms on a quiet machine (docs/PERFORMANCE.md). What
is sent on one connection reaches Redis before the next request that could ask for it (the
answer to this one has not left yet); a set that Redis never stored is only a miss. Sending
still raises when Redis cannot be reached: a connection found closed is opened again once.
A Redis that answers there anyway (``CLIENT`` refused: a proxy, a renamed command) is found
at the next set, which reads the answer: the process then waits for answers as Django's
backend does, and says so in its log. Only for a cache that is only a cache (``add``,
``delete`` and the rest wait as usual).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient

logger = logging.getLogger(__name__)


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, unanswered_sets: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[bool, Any] = {}
        self._unanswered = unanswered_sets
        self._quiet: tuple[int, Any] | None = None  # (the process, its unanswered connection)

    def get_client(self, key=None, *, write=False):
        """The client Django's backend would make, made once (per kind, writing or reading:
        with several servers, a process reads from the one it picked first)."""
        client = self._clients.get(write)
        if client is None:
            client = self._clients[write] = super().get_client(key, write=write)
        return client

    def set(self, key, value, timeout):
        connection = self._quiet_connection() if self._unanswered and timeout != 0 else None
        if connection is None:  # timeout 0: Django's backend deletes the key
            return super().set(key, value, timeout)
        # Django's backend's own serializer, library and pools (private: the stubs lack them).
        command: tuple[Any, ...] = ("SET", key, self._serializer.dumps(value))  # type: ignore[attr-defined]
        if timeout is not None:
            command += ("EX", timeout)
        try:
            connection.send_command(*command)
        except self._lib.ConnectionError:  # type: ignore[attr-defined]
            # Closed by Redis meanwhile (its idle timeout, a restart): once more, on a new one.
            connection.send_command(*command)

    def _quiet_connection(self):
        """This process's connection that Redis does not answer on (made after a fork anew),
        or None once Redis was found answering on it."""
        if self._quiet is None or self._quiet[0] != os.getpid():
            pool = self._get_connection_pool(write=True)  # type: ignore[attr-defined]
            connection = pool.connection_class(**pool.connection_kwargs)
            connection.register_connect_callback(self._no_replies)
            self._quiet = (os.getpid(), connection)
        connection = self._quiet[1]
        # Something to read where nothing should come: the connection closed, or an answer.
        # (redis-py's ``can_read`` would connect a connection without a socket.)
        if connection._sock is None:
            return connection
        try:
            if not connection.can_read(timeout=0):
                return connection
            answer = connection.read_response()
        except self._lib.ConnectionError:  # type: ignore[attr-defined]
            connection.disconnect()  # closed: the next send opens a new one
            return connection
        except self._lib.ResponseError as error:  # type: ignore[attr-defined]
            answer = error
        connection.disconnect()
        self._unanswered = False
        logger.warning("Redis answers where it was asked not to (%r): sets wait for it", answer)
        return None

    def _no_replies(self, connection) -> None:
        """On every (re)connection, before anything else is sent on it."""
        connection.send_command("CLIENT", "REPLY", "OFF")


class RedisCache(DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with a client kept per pool."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
