"""Who sent a request: the client's address, the same for every check that limits by address.

Behind a reverse proxy every connection comes from the proxy, so ``REMOTE_ADDR`` is the proxy's
address for everybody. Each proxy appends the address it got the request from to
``X-Forwarded-For``; with ``TRUSTED_PROXY_COUNT`` proxies in front of the app, the entry that
many places from the right is the one the outermost trusted proxy saw, the real client. Entries
further left are whatever the client wrote itself, and without trusted proxies the whole header
is: then it is ignored, so nobody can pass for somebody else's address.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(value: str) -> str | None:
    """``value`` as a plain IP address (a port or IPv6 brackets taken off), or None."""
    value = value.strip()
    if value.startswith("["):  # [2001:db8::1]:443
        value = value[1 : value.find("]")] if "]" in value else ""
    elif value.count(":") == 1:  # 192.0.2.1:443
        value = value.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str:
    """The address of the client that sent ``request`` (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "")
    trusted = settings.TRUSTED_PROXY_COUNT
    if trusted <= 0:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    if len(forwarded) < trusted:
        return remote  # not through all the trusted proxies: nothing in the header is theirs
    return _address(forwarded[-trusted]) or remote
