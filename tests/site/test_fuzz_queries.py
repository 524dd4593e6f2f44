"""No server errors from query strings: every parameter each view reads is listed (a view that
reads one not listed fails), and odd values of each, huge numbers, non-ASCII digits and the
rest, get a 4xx or the page, never a 500 (tests/site/fuzzing.py has the strategies)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from tests.helpers import (
    PARAMETER,
)
from tests.site.fuzzing import (
    ENDPOINTS,
    GET_PARAMETERS,
    argument_kind,
    query_strings,
    real_paths,
)

pytestmark = pytest.mark.slow


def test_every_url_has_its_query_parameters_listed():
    assert set(GET_PARAMETERS) == {endpoint.name for endpoint in ENDPOINTS}


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_odd_query_strings_never_get_a_server_error(endpoint, site):
    """Every parameter a view reads, with unicode digits, huge numbers, NUL, bytes that are not
    UTF-8, repeated keys, blanks and long strings, as a visitor, an outsider, the league's owner
    and the holder of a quick game's link: never a 500."""
    parameters = GET_PARAMETERS[endpoint.name]

    @given(data=st.data())
    def fuzz(data):
        who = data.draw(st.sampled_from(sorted(site.clients)), label="who")
        client = site.clients[who]
        if who in site.logins and "_auth_user_id" not in client.session:
            client.force_login(site.logins[who])
        path = data.draw(real_paths(site, endpoint), label="path")
        query = data.draw(query_strings(site, parameters), label="query")
        htmx = {"HX-Request": "true"} if data.draw(st.booleans(), label="htmx") else {}
        response = client.get(f"{path}?{query}", headers=htmx)
        assert response.status_code < 500, f"GET {path}?{query} as {who}"

    fuzz()


def test_views_read_only_the_query_parameters_listed(site, recorded_reads):
    """Each view, as each visitor, with none of its parameters and with all of them (real
    values): what it looks up is in its list, and everything in its list is looked up by
    someone, so the list is neither short nor stale."""
    real = {
        "league": site.arguments["league"][0],
        "again": site.arguments["series"][0],
        "player": site.arguments["player"][0],
        "first": site.arguments["player"][0],
        "second": site.arguments["player"][1],
        "page": 1,
        "version": 0,
        "next": "/",
        "everyone": 1,
    }
    for endpoint in ENDPOINTS:
        listed = set(GET_PARAMETERS[endpoint.name])
        names = [match["parameter"] for match in PARAMETER.finditer(endpoint.route)]
        kwargs = {name: site.arguments[argument_kind(endpoint.route, name)][0] for name in names}
        path = reverse(endpoint.name, kwargs=kwargs)
        every = urlencode({name: real.get(name, "") for name in listed} | {"unlisted": "1"})
        seen: set[str] = set()
        for who, client in site.clients.items():
            if who in site.logins and "_auth_user_id" not in client.session:
                client.force_login(site.logins[who])
            for query in ("", "unlisted=1", every):
                recorded_reads.clear()
                client.get(f"{path}?{query}")
                read = set(recorded_reads)
                assert read <= listed, f"{endpoint.name} as {who} reads {read - listed}"
                seen |= read
        assert seen == listed, f"{endpoint.name} never reads {listed - seen}"
