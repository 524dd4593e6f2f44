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
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from django import forms
from django.apps import apps
from django.core.handlers.wsgi import WSGIRequest
from django.http import QueryDict
from django.test import Client
from django.urls import converters, reverse
from django.urls.resolvers import RoutePattern
from django.utils.encoding import force_bytes
from django.utils.functional import cached_property
from django.utils.http import urlsafe_base64_encode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from scoring.events import services as event_services
from scoring.history.forms import HistoryFilterForm
from scoring.leagues import players as league_players
from scoring.leagues.forms import HeadToHeadForm, StandingsFilterForm
from scoring.models import (
    MAX_ID,
    Deal,
    Event,
    Export,
    League,
    Membership,
    Player,
    Role,
    Series,
    new_token,
)
from tests.helpers import (
    PARAMETER,
    Endpoint,
    client_with_link,
    endpoints,
    make_event,
    record,
    start_series,
)

ROOT = Path(__file__).resolve().parents[2]

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
    evening = make_event(league, 4, rounds=2)  # its public link and its table's link
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
            *Event.objects.values_list("pk", flat=True),
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
            [(evening.share_token, evening.table_links.get(number=1).token)],
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


# --- Query strings --------------------------------------------------------------------------
#
# Every parameter each view reads from its query string, by URL name. A view that reads one not
# listed here fails ``test_views_read_only_the_query_parameters_listed``, so the fuzzing below
# always knows every parameter there is.

HISTORY_FILTERS = tuple(HistoryFilterForm.base_fields)
STANDINGS_FILTERS = (*StandingsFilterForm.base_fields, "everyone", "sort")
GET_PARAMETERS: dict[str, tuple[str, ...]] = {
    "set_language": ("next",),
    "home": (),
    "series_new": ("league", "again"),
    "series_quick": (),
    "series_detail": ("undone",),
    "deal_record": (),
    "deal_edit": (),
    "deal_undo": (),
    "deal_redo": (),
    "series_players": (),
    "series_rematch": (),
    "series_live": ("version",),
    "link_revoke": (),
    "link_join": (),
    "history": HISTORY_FILTERS,
    "history_export_json": HISTORY_FILTERS,
    "history_export_csv": HISTORY_FILTERS,
    "series_sheet": (),
    "series_export_csv": (),
    "series_export_json": (),
    "export_detail": (),
    "export_download": (),
    "player_detail": (),
    "league_list": (),
    "league_new": ("next",),
    "league_detail": ("page",),
    "league_standings": STANDINGS_FILTERS,
    "league_head_to_head": (*HeadToHeadForm.base_fields, *StandingsFilterForm.base_fields),
    "league_members": (),
    "membership_role": (),
    "membership_remove": (),
    "ownership_transfer": (),
    "league_leave": (),
    "invite_renew": (),
    "invite_revoke": (),
    "league_players": (),
    "player_link": (),
    "player_edit": (),
    "player_rename": (),
    "player_merge": ("into",),
    "league_changes": (),
    "merge_undo": (),
    "league_archive": (),
    "league_unarchive": (),
    "league_delete": (),
    "league_settings": (),
    "share_renew": (),
    "share_revoke": (),
    "league_join": (),
    "public_standings": STANDINGS_FILTERS,
    "public_history": ("page",),
    "series_move": (),
    "event_list": (),
    "event_new": (),
    "event_detail": (),
    "event_cards": (),
    "event_round_next": (),
    "event_round_finish": (),
    "event_players": (),
    "event_board": ("present", "version"),
    "event_share": (),
    "event_share_revoke": (),
    "event_public": ("present", "version"),
    "event_seat": ("pick", "version"),
    "table_link": (),
    "table_live": ("version",),
    "account": (),
    "account_data": (),
    "account_delete": (),
    "signup": ("next",),
    "login": ("next",),
    "logout": (),
    "password_change": (),
    "password_change_done": (),
    "password_reset": (),
    "password_reset_done": (),
    "password_reset_confirm": (),
    "password_reset_complete": (),
    "healthz": (),
    "manifest": (),
    "service_worker": (),
    "offline": (),
}

#: Values that once gave a server error, or could: digits that ``str.isdigit()`` or ``int()``
#: take but the database does not, numbers beyond 64 bits, NUL, bytes that are not UTF-8 (a
#: lone surrogate, 0xFF), blanks, and strings longer than any field. Percent-encoded as sent.
UNICODE_DIGITS = ["²", "¹", "٣", "۳", "०", "০", "０", "１２", "𝟙𝟚", "①", "፩", "߁", "1²", "²1"]
RAW_VALUES = [
    "",
    "%00",
    "1%00",
    "%001",
    "%ED%A0%80",  # a lone surrogate, as UTF-8 would spell it (it may not)
    "%ED%BF%BF",
    "1%ED%A0%80",
    "%FF",
    "%FE%FF",
    "%C0%AE",
    "%C2",
    "%F4%90%80%80",  # beyond U+10FFFF
    "%20",
    "%09",
    "%0A",
    "%0D%0A",
    "%20%201%20",
    "%C2%A0",
    "%E3%80%80",
    "1%2C2",
    "%2B1",
    "1e3",
    "0x1",
    "-0",
    "00000000000000000000001",
    "x" * 5000,
    "1" * 5000,  # past Python's 4300-digit limit for int()
    "9" * 100,
]


def huge_numbers() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(10**19, 10**40).map(str),
        st.integers(-(10**40), -1).map(str),
        st.sampled_from([2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1]).map(str),
    )


@dataclass
class Site:
    """A league with its owner, a quick game, and whoever knocks: the objects every URL names."""

    clients: dict[str, Client]
    logins: dict[str, object]
    arguments: dict[str, list]  # real values for each kind of path argument
    samples: list[str]  # real ids, tokens and choices, encoded for a query string


@pytest.fixture
def site(league, owner, outsider) -> Site:
    mine = record(record(start_series(league=league), (70, 50)), (30, 90))
    quick = record(start_series(names=("Ira", "Kolya", "Liza", "Max")), (80, 40))
    League.objects.filter(pk=league.pk).update(invite_token=new_token(), share_token=new_token())
    league.refresh_from_db()
    event = event_services.share_renew(event=make_event(league, 4, rounds=1))
    table_link = event.table_links.get(number=1)
    clients = {"visitor": Client(), "link holder": client_with_link(quick)}
    clients["table phone"] = Client()  # a club night's table, by its link for the evening
    clients["table phone"].post(table_link.get_absolute_url())
    logins = {"outsider": outsider, "owner": owner}
    for name, user in logins.items():
        clients[name] = Client()
        clients[name].force_login(user)
    zed = Player.objects.create(name="Zed", league=league)
    merge = league_players.players_merge(
        league=league, source_id=zed.pk, target_id=mine.seats.first().player_id, user=owner
    )
    players = list(Player.objects.order_by("pk").values_list("pk", flat=True))
    backup = Export.objects.create(kind=Export.Kind.HISTORY_JSON, user=owner)  # not made yet
    arguments = {
        "export": [backup.pk],
        "event": [event.pk],  # a club night
        "change": [merge.pk],  # a league's change (a merge), undone by its own URL
        "event share": [event.share_token],
        "table link": [table_link.token],
        "series": [mine.pk, quick.pk],
        "league": [league.pk],
        "player": players,
        "membership": list(league.memberships.values_list("pk", flat=True)),
        "number": [1, 2],
        "series token": [quick.score_token, quick.watch_token],
        "invite": [league.invite_token],
        "share": [league.share_token],
        "uidb64": [urlsafe_base64_encode(force_bytes(owner.pk))],
        "reset token": ["set-password", "abc-123"],
    }
    samples = [str(value) for value in (mine.pk, quick.pk, league.pk, *players)]
    samples += [str(mine.version), "2025-03-31", "9999-12-31", "0001-01-01"]
    samples += ["teams", "duel", "classic", "custom", "finished", "playing", "1", "0", "-1"]
    return Site(clients=clients, logins=logins, arguments=arguments, samples=samples)


def argument_kind(route: str, parameter: str) -> str:
    """Which real objects a path argument names, from where it stands in the route."""
    if parameter == "pk":
        for prefix, kind in (
            ("series/", "series"),
            ("leagues/", "league"),
            ("players/", "player"),
            ("exports/", "export"),
        ):
            if route.startswith(prefix):
                return kind
    if parameter == "token":
        for prefix, kind in (
            ("join/", "series token"),
            ("invite/", "invite"),
            ("public/events/", "event share"),
            ("tables/", "table link"),
            ("public/", "share"),
        ):
            if route.startswith(prefix):
                return kind
        return "reset token"
    if parameter == "event_pk" and "/changes/" in route:
        return "change"  # an entry of the league's audit trail, not a club night
    kinds = {"membership_pk": "membership", "player_pk": "player", "event_pk": "event"}
    return kinds.get(parameter, parameter)


def real_paths(site: Site, endpoint: Endpoint) -> st.SearchStrategy[str]:
    """The endpoint's URL for real objects, every argument one of the site's own."""
    names = [match["parameter"] for match in PARAMETER.finditer(endpoint.route)]
    choices = [site.arguments[argument_kind(endpoint.route, name)] for name in names]
    return st.tuples(*(st.sampled_from(values) for values in choices)).map(
        lambda values: reverse(endpoint.name, kwargs=dict(zip(names, values, strict=True)))
    )


def query_values(site: Site) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(UNICODE_DIGITS).map(lambda text: quote(text, safe="")),
        huge_numbers(),
        st.sampled_from(RAW_VALUES),
        st.sampled_from(site.samples).map(lambda text: quote(text, safe="")),
        st.text(max_size=30).map(lambda text: quote(text, safe="")),
    )


@st.composite
def query_strings(draw, site: Site, parameters: tuple[str, ...]) -> str:
    """Pairs of the view's parameters (repeated keys too) and odd values, now and then a key that
    is odd itself; percent-encoded by hand, so bytes no browser would send get through."""
    known = st.sampled_from(parameters) if parameters else st.just("league")
    odd_key = st.sampled_from(["%00", "%FF", "%ED%A0%80", "", "league%5B%5D", "a" * 300])
    key = st.one_of(known, known, known, odd_key)
    pairs = draw(st.lists(st.tuples(key, query_values(site)), min_size=1, max_size=6))
    if parameters and draw(st.booleans()):  # the same key twice, a good value and a bad one
        name = draw(st.sampled_from(parameters))
        pairs += [(name, draw(st.sampled_from(site.samples))), (name, draw(query_values(site)))]
    return "&".join(f"{name}={value}" for name, value in pairs)


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


# --- Ids posted to forms --------------------------------------------------------------------
#
# Every form field that takes ids (rows ticked or picked, a cursor), found among the site's form
# classes, gets huge, negative, NUL, non-ASCII and surrogate values posted to every URL by the
# league's owner, who may use every form: a database must never see them.


def takes_ids(field: forms.Field) -> bool:
    if isinstance(field, forms.ModelChoiceField):  # and ModelMultipleChoiceField, RowsField
        return True
    if isinstance(field, forms.TypedChoiceField) and field.coerce is int:
        return True
    return isinstance(field, forms.IntegerField) and field.max_value == MAX_ID


def id_fields() -> list[str]:
    names = set()
    pending = [forms.Form, forms.ModelForm]
    while pending:
        form = pending.pop()
        pending.extend(form.__subclasses__())
        fields = getattr(form, "base_fields", {})
        names |= {name for name, field in fields.items() if takes_ids(field)}
    return sorted(names)


ID_FIELDS = id_fields()
#: Ids no row has, as a browser would send them (percent-encoded): beyond 64 bits either way,
#: negative, 0, NUL, a lone surrogate (as UTF-8 would spell it), digits that are not ASCII.
HOSTILE_IDS = [
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "-1",
    "0",
    "-0",
    "%00",
    "1%00",
    "%001",
    "%ED%A0%80",
    "1%ED%A0%80",
    "%ED%BF%BF",
    "%FF",
    "1" * 30,
    "9" * 5000,
]


def hostile_ids(site: Site) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(HOSTILE_IDS),
        huge_numbers(),
        st.integers(-(10**30), 0).map(str),
        st.sampled_from(UNICODE_DIGITS).map(lambda text: quote(text, safe="")),
        st.sampled_from(site.samples).map(lambda text: quote(text, safe="")),  # real ones beside
    )


@st.composite
def id_bodies(draw, site: Site) -> str:
    """A form body naming ids in some of the id fields, a field now and then repeated."""
    names = draw(st.lists(st.sampled_from(ID_FIELDS), min_size=1, max_size=len(ID_FIELDS)))
    pairs = [(name, draw(hostile_ids(site))) for name in names]
    pairs += [(name, draw(hostile_ids(site))) for name in draw(st.lists(st.sampled_from(names)))]
    if draw(st.booleans()):
        pairs.append(("new_players", "Zina"))  # a club night's form that is otherwise whole
    return "&".join(f"{name}={value}" for name, value in pairs)


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


READS: list[str] = []


class RecordingQueryDict(QueryDict):
    """A query string that notes every parameter name the view looks up (once it is built)."""

    recording = False

    def _note(self, key) -> None:
        if self.recording:
            READS.append(key)

    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        self._note(key)
        return super().__contains__(key)

    def get(self, key, default=None):
        self._note(key)
        return super().get(key, default)

    def getlist(self, key, default=None):
        self._note(key)
        return super().getlist(key, default)

    def copy(self):
        """A plain copy: what a template does with its own copy ({% querystring %}) is no read."""
        plain = QueryDict(mutable=True)
        for key, values in self.lists():
            plain.setlist(key, values)
        return plain


@pytest.fixture
def recorded_reads(monkeypatch):
    """Every request's ``GET`` notes the names looked up in it, in ``READS``."""

    def recording(request):
        query = RecordingQueryDict(
            request.environ.get("QUERY_STRING", ""), encoding=request.encoding
        )
        query.recording = True
        return query

    prop = cached_property(recording)
    prop.__set_name__(WSGIRequest, "GET")
    monkeypatch.setattr(WSGIRequest, "GET", prop)
    READS.clear()
    return READS


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
