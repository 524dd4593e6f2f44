"""Who sent a request: the client's address, and its network, the same for every check that
limits by address (the failed-login lockout, the quick games, sign-ups).

Behind ``TRUSTED_PROXY_COUNT`` proxies, each appending the address it got the request from to
``X-Forwarded-For``, the entry that many places from the right is the real client's; entries
further left are whatever the client wrote, and without trusted proxies the header is ignored.
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


def client_network(request: HttpRequest) -> str:
    """The address that stands for the client's network: what limits count, as one client.

    An IPv6 subscriber gets a /64 at least and may use any of its 2**64 addresses (browsers
    change theirs every day), so the /64 counts as one: its first address. An IPv4 address is
    itself; never a wider block, since behind one IPv4 address (a carrier's NAT, a club's wifi)
    there are already many people, and a block would add strangers to them.
    """
    address = client_address(request)
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address  # what REMOTE_ADDR says outside a real server (a test's "testserver")
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:  # ::ffff:203.0.113.9 is the IPv4 address
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False).network_address)
    return address
