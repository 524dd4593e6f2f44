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

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from django import forms
from django.apps import apps
from django.test import Client
from django.urls import URLPattern, URLResolver, converters, get_resolver
from django.urls.resolvers import RoutePattern
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from scoring.models import Deal, League, Membership, Player, Role, Series, new_token
from tests.helpers import client_with_link, record, start_series

ROOT = Path(__file__).resolve().parents[2]
PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<parameter>[^>]+)>")

settings.register_profile(
    "default",
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

pytestmark = pytest.mark.slow  # hundreds of requests: make test runs it, make test-fast does not

# Rows that a refused request may still write, and why:
UNCHECKED = {
    # A refused login is recorded by django-axes on purpose (that is how lock-outs work).
    "axes.accessattempt",
    "axes.accessfailurelog",
    "axes.accesslog",
    # The session is the browser's own state (a remembered link, a flash message), not data.
    "sessions.session",
}


@dataclass(frozen=True)
class Endpoint:
    route: str  # e.g. "series/<int:pk>/deals/"
    name: str | None
    levels: tuple = field(repr=False)  # the pattern of each resolver level, outermost first

    def __str__(self) -> str:
        return self.route or "(home)"


def endpoints() -> list[Endpoint]:
    """Every URL pattern of the project, with the patterns of the includes leading to it."""
    found = []

    def walk(resolver: URLResolver, levels: tuple) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                walk(entry, (*levels, entry.pattern))
            elif isinstance(entry, URLPattern):
                chain = (*levels, entry.pattern)
                route = "".join(str(level) for level in chain)
                found.append(Endpoint(route=route, name=entry.name, levels=chain))

    walk(get_resolver(), ())
    return found


def field_names() -> list[str]:
    """Names a form on the site may post: every form class's fields, every template's inputs."""
    names = {"number", "entry_key", "points_0", "points_1", "points_2", "tricks_0", "tricks_1"}
    names |= {"tricks_2", "count_A", "count_10", "count_K", "count_Q", "count_J", "league"}
    names |= {"version", "next", "language", "link", "role", "user", "player", "series"}
    pending = [forms.Form, forms.ModelForm]
    while pending:
        form = pending.pop()
        pending.extend(form.__subclasses__())
        names |= set(getattr(form, "base_fields", {}))
    for template in (ROOT / "templates").rglob("*.html"):
        names |= set(re.findall(r'name="([A-Za-z0-9_-]+)"', template.read_text()))
    return sorted(names)


ENDPOINTS = endpoints()
FIELDS = field_names()


@dataclass
class World:
    """Two leagues, a quick game, the people who knock, and every id and token there is."""

    clients: dict[str, Client]
    logins: dict[str, object]
    ids: list[int]
    tokens: list[str]


@pytest.fixture(autouse=True)
def quick_hashing(settings):
    """Users are made for every URL; the real password hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def world(league, owner, scorer, viewer, outsider) -> World:
    mine = start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))
    record(record(mine, (70, 50)), (30, 90))
    quick = record(start_series(), (80, 40))
    other = League.objects.create(name="Other table", invite_token=new_token())
    Membership.objects.create(league=other, user=outsider, role=Role.OWNER)
    theirs = start_series(league=other, names=("Ivan", "Kira"), mode="duel")
    record(theirs, (60, 60), (True, True))
    League.objects.filter(pk=league.pk).update(invite_token=new_token(), share_token=new_token())

    logins = {"league member elsewhere": outsider, "scorer": scorer, "viewer": viewer}
    clients = {"visitor": Client(), "link holder": client_with_link(quick)}
    for name, user in logins.items():
        clients[name] = Client()
        clients[name].force_login(user)
    ids = sorted(
        {
            *Series.objects.values_list("pk", flat=True),
            *League.objects.values_list("pk", flat=True),
            *Player.objects.values_list("pk", flat=True),
            *Membership.objects.values_list("pk", flat=True),
            *Deal.objects.values_list("number", flat=True),
            owner.pk,
            outsider.pk,
        }
    )
    tokens = [
        token
        for token in itertools.chain(
            Series.objects.values_list("score_token", "watch_token"),
            League.objects.values_list("invite_token", "share_token"),
        )
        for token in token
        if token
    ]
    return World(clients=clients, logins=logins, ids=ids, tokens=tokens)


ODD_TEXT = [
    "",
    " ",
    "0",
    "-1",
    "1e9",
    "NaN",
    "inf",
    "None",
    "null",
    "true",
    "[]",
    "{}",
    "0x10",
    "٣",  # Arabic-Indic three
    "１２",  # fullwidth twelve
    "𝟙𝟚",
    "\x00",
    "a\x00b",
    "\u202eevil",
    "ＡＢＣ",
    "Ωμέγα",
    "🐐" * 30,
    "x" * 5000,
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "%00",
    "\r\n",
]


def numbers() -> st.SearchStrategy[int]:
    return st.one_of(
        st.integers(0, 50),
        st.integers(-(10**6), 10**6),
        st.integers(2**31 - 2, 2**31 + 2),
        st.integers(2**63 - 2, 2**63 + 2),
        st.integers(10**20, 10**40),
    )


def values(world: World) -> st.SearchStrategy[str]:
    return st.one_of(
        numbers().map(str),
        st.sampled_from(world.ids).map(str),
        st.sampled_from(world.tokens),
        st.sampled_from(ODD_TEXT),
        st.text(max_size=40),
        st.uuids().map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
        st.sampled_from(["yes", "no", "on", "owner", "scorer", "viewer", "teams", "duel", "three"]),
    )


def argument(world: World, converter) -> st.SearchStrategy[str]:
    """A value for a path argument: what the converter accepts, real ids and tokens, or junk."""
    if isinstance(converter, converters.IntConverter):
        return st.one_of(st.sampled_from(world.ids).map(str), numbers().map(abs).map(str))
    if isinstance(converter, converters.StringConverter):
        junk = st.text(min_size=1, max_size=60).map(lambda text: quote(text, safe=""))
        return st.one_of(st.sampled_from(world.tokens), junk, st.sampled_from(ODD_TEXT[1:]))
    return st.from_regex(converter.regex, fullmatch=True).map(lambda text: quote(text, safe="/"))


@st.composite
def paths(draw, world: World, endpoint: Endpoint) -> str:
    parts = []
    for level in endpoint.levels:
        if isinstance(level, RoutePattern):
            route = str(level)

            def fill(match, level=level):
                return draw(argument(world, level.converters[match["parameter"]]))

            parts.append(PARAMETER.sub(fill, route))
        else:  # a regular expression pattern
            text = draw(st.from_regex(level.regex.pattern.lstrip("^").rstrip("$") or "", True))
            parts.append(quote(text, safe="/"))
    return "/" + "".join(parts)


def bodies(world: World) -> st.SearchStrategy[dict]:
    value = values(world)
    return st.dictionaries(
        st.one_of(st.sampled_from(FIELDS), st.text(max_size=12)),
        st.one_of(value, st.lists(value, min_size=2, max_size=3)),
        max_size=12,
    )


def snapshot() -> dict[str, list]:
    """Every row of every model a refused request must not touch."""
    state = {}
    for model in apps.get_models():
        label = model._meta.label_lower
        if label not in UNCHECKED:
            state[label] = list(model._base_manager.order_by("pk").values_list())
    return state


def changes(before: dict[str, list], after: dict[str, list]) -> list[str]:
    return [label for label in before if before[label] != after[label]]


def test_every_url_of_the_site_is_fuzzed():
    names = {endpoint.name for endpoint in ENDPOINTS}
    assert {"home", "series_detail", "deal_record", "healthz"} <= names
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
            response = client.post(path + "?" + _encode(query), body, headers=headers)
        else:
            response = client.put(path, _encode(body), headers=headers)

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


def _encode(values: dict) -> str:
    return urlencode(values, doseq=True)
