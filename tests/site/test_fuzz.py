"""No server errors: random and malformed requests to every URL of the site get a 4xx, never a 500.

Every URL pattern the project has is found through Django's resolver, so views added later are
covered as they land. For each, Hypothesis sends random path arguments (small, huge, negative-ish
and real ids, tokens of other series and leagues, odd unicode), random GET and POST bodies (wrong
types, huge numbers, missing fields, unicode, ids of objects in other leagues) with and without
htmx, as five people: a visitor, the holder of a quick game's score link, a member of another
league, a scorer and a viewer of the league. Every answer must be below 500; a refused one (4xx)
must say something and leave the database as it was.

Set ``HYPOTHESIS_PROFILE=explore`` for a long random run; the default replays the same examples
every run, so the suite is stable.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from tests.site.fuzzing import (
    ENDPOINTS,
    FIELDS,
    ID_FIELDS,
    bodies,
    changes,
    encode,
    id_bodies,
    paths,
    real_paths,
    snapshot,
)

pytestmark = pytest.mark.slow  # hundreds of requests: make test runs it, make test-fast does not


def test_every_url_of_the_site_is_fuzzed():
    names = {endpoint.name for endpoint in ENDPOINTS}
    assert {"home", "series_detail", "deal_record", "deal_propose", "event_links"} <= names
    assert len(FIELDS) > 20


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_random_requests_never_get_a_server_error(endpoint, world):
    state = {"snapshot": snapshot()}

    @given(data=st.data())
    def fuzz(data):
        who = data.draw(st.sampled_from(sorted(world.clients)), label="who")
        client = world.clients[who]
        if who in world.logins and "_auth_user_id" not in client.session:
            client.force_login(world.logins[who])  # a fuzzed "log out" logged them out
            state["snapshot"] = snapshot()
        method = data.draw(st.sampled_from(["GET", "POST", "POST", "HEAD", "PUT"]), label="method")
        path = data.draw(paths(world, endpoint), label="path")
        query = data.draw(bodies(world), label="query")
        body = data.draw(bodies(world), label="body") if method in ("POST", "PUT") else {}
        htmx = data.draw(st.booleans(), label="htmx")
        headers = {"HX-Request": "true"} if htmx else {}

        if method == "GET":
            response = client.get(path, query, headers=headers)
        elif method == "HEAD":
            response = client.head(path, query, headers=headers)
        elif method == "POST":
            response = client.post(path + "?" + encode(query), body, headers=headers)
        else:
            response = client.put(path, encode(body), headers=headers)

        status = response.status_code
        assert status < 500, f"{method} {path} as {who}: {status}"
        if status >= 400:
            if status == 405:
                assert response.has_header("Allow")
            elif method != "HEAD":
                assert response.content.strip(), f"{method} {path}: {status} without a message"
            after = snapshot()
            changed = changes(state["snapshot"], after)
            assert not changed, f"{method} {path} as {who} answered {status} but changed {changed}"
        else:
            state["snapshot"] = snapshot()

    fuzz()


def test_the_id_fields_of_the_forms_are_found():
    assert {"players", "into", "membership", "user", "league", "first", "second"} <= set(ID_FIELDS)
    assert {"before", "after", "player"} <= set(ID_FIELDS)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_hostile_ids_posted_to_every_form_never_get_a_server_error(endpoint, site):
    client = site.clients["owner"]

    @given(data=st.data())
    def fuzz(data):
        if "_auth_user_id" not in client.session:
            client.force_login(site.logins["owner"])
        path = data.draw(real_paths(site, endpoint), label="path")
        body = data.draw(id_bodies(site), label="body")
        htmx = {"HX-Request": "true"} if data.draw(st.booleans(), label="htmx") else {}
        response = client.post(
            path, body, content_type="application/x-www-form-urlencoded", headers=htmx
        )
        assert response.status_code < 500, f"POST {path} {body[:200]}"

    fuzz()


def test_the_history_takes_only_ascii_digits_for_a_league(site, owner):
    """Regression: "²" passed ``str.isdigit()`` and broke ``int()``; 20 digits broke SQLite."""
    for who in ("visitor", "owner"):
        for path in ("/history/", "/history/export.csv", "/history/export.json"):
            for value in ("%C2%B2", "%D9%A3", "%EF%BC%90", "1" * 20, "-1", "%00", "%ED%A0%80"):
                response = site.clients[who].get(f"{path}?league={value}")
                assert response.status_code in (404, 422), (who, path, value)
