"""Django's Redis cache backend, holding one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` makes a new ``redis.Redis`` for every cache call, and
redis-py builds a table of several hundred response callbacks in each one: about 90 µs of CPU a
call on this project's machines, more than the ``GET`` of a 15 KB page from a Redis on the same
host (``docs/PERFORMANCE.md``). The page cache (``scoring.pagecache``) asks Redis once or twice
on every deal, so the client is made once per pool and kept. Both are safe across gunicorn's
fork: redis-py's pool notices a new process and opens its own connections there, and a client
holds nothing but the pool (no connection of its own outside a pipeline or pub/sub, which the
cache never uses). Everything else is Django's backend as documented.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[bool, Any] = {}

    def get_client(self, key=None, *, write=False):
        """The client Django's backend would make, made once (per kind, writing or reading:
        with several servers, a process reads from the one it picked first)."""
        client = self._clients.get(write)
        if client is None:
            client = self._clients[write] = super().get_client(key, write=write)
        return client


class RedisCache(DjangoRedisCache):
    """``django.core.cache.backends.redis.RedisCache`` with a client kept per pool."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
