"""The client's address: REMOTE_ADDR, or the trusted proxies' X-Forwarded-For entry; and its
network, what limits count as one client."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from scoring.web.clients import client_address, client_network


def request(remote="10.0.0.2", forwarded=None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


@pytest.mark.parametrize("forwarded", [None, "", "198.51.100.7", "198.51.100.7, 203.0.113.9"])
def test_without_a_trusted_proxy_the_header_is_ignored(settings, forwarded):
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_address(request("203.0.113.1", forwarded)) == "203.0.113.1"


@pytest.mark.parametrize(
    ("count", "forwarded", "expected"),
    [
        (1, "203.0.113.9", "203.0.113.9"),
        # What the client wrote itself stands left of what the proxy appended.
        (1, "198.51.100.7, 203.0.113.9", "203.0.113.9"),
        (1, "198.51.100.7,203.0.113.9", "203.0.113.9"),
        (2, "198.51.100.7, 203.0.113.9, 10.0.0.1", "203.0.113.9"),
        (1, "2001:db8::1", "2001:db8::1"),
        (1, "[2001:db8::1]:4711", "2001:db8::1"),
        (1, "203.0.113.9:4711", "203.0.113.9"),
        # Not through every trusted proxy, or nonsense: the connection's own address.
        (1, None, "10.0.0.2"),
        (1, "", "10.0.0.2"),
        (2, "203.0.113.9", "10.0.0.2"),
        (1, "unknown", "10.0.0.2"),
        (1, "203.0.113.9, <script>", "10.0.0.2"),
    ],
)
def test_behind_trusted_proxies_the_entry_the_outermost_one_added_is_the_client(
    settings, count, forwarded, expected
):
    settings.TRUSTED_PROXY_COUNT = count
    assert client_address(request("10.0.0.2", forwarded)) == expected


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"),  # one /64, any of its addresses
        ("2001:db8:1:2::1", "2001:db8:1:2::"),
        ("2001:db8:1:3::1", "2001:db8:1:3::"),
        ("::ffff:203.0.113.9", "203.0.113.9"),  # an IPv4 address written as IPv6
        ("203.0.113.9", "203.0.113.9"),  # IPv4: the address itself, never its neighbours
        ("203.0.113.10", "203.0.113.10"),
    ],
)
def test_an_ipv6_64_is_one_network_and_an_ipv4_address_is_its_own(settings, address, network):
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_network(request("10.0.0.2", address)) == network


def test_axes_asks_for_the_network(settings):
    from axes.helpers import get_client_ip_address

    settings.TRUSTED_PROXY_COUNT = 1
    assert get_client_ip_address(request("10.0.0.2", "1.2.3.4, 203.0.113.9")) == "203.0.113.9"
    assert get_client_ip_address(request("10.0.0.2", "2001:db8::7")) == "2001:db8::"
