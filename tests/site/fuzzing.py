"""What the site's fuzzing shares (tests/site/test_fuzz.py, test_fuzz_queries.py): the
hypothesis profiles, every endpoint and form field of the site, the worlds the requests knock on
(built by the fixtures of tests/site/conftest.py), the strategies that make paths, bodies, query
strings and hostile ids, and the database snapshots a refusal must leave as they were."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

from django import forms
from django.apps import apps
from django.http import QueryDict
from django.test import Client
from django.urls import converters, reverse
from django.urls.resolvers import RoutePattern
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from scoring.history.forms import HistoryFilterForm
from scoring.lib.ids import MAX_ID
from scoring.standings.forms import HeadToHeadForm, StandingsFilterForm
from tests.endpoints import Endpoint, endpoints
from tests.helpers import PARAMETER

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


def encode(values: dict) -> str:
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
    "deal_propose": (),
    "deal_edit": (),
    "deal_undo": (),
    "deal_redo": (),
    "series_players": (),
    "series_rematch": (),
    "link_renew": (),
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
    "event_links": (),
    "event_proposal": (),
    "event_public": ("present", "version"),
    "event_seat": ("pick", "version"),
    "event_tv_code": (),
    "tv": (),
    "table_link": (),
    "table_live": ("version",),
    "account": (),
    "account_data": (),
    "account_delete": (),
    "signup": ("next",),
    "login": ("next",),
    "login_link": (),
    "login_link_new": (),
    "logout": (),
    "password_change": (),
    "password_change_done": (),
    "password_reset": (),
    "password_reset_done": (),
    "password_reset_confirm": (),
    "password_reset_complete": (),
    "manifest": (),
    "service_worker": (),
    "offline": (),
    "season_list": (),
    "season_new": (),
    "season_detail": ("everyone",),
    "season_edit": (),
    "season_delete": (),
    "public_season": ("everyone",),
    "event_expected": (),
    "event_public_expected": (),
    "series_picture": ("lang",),  # and ?v=, the version: only a new address, never read
    "event_picture": ("lang",),
    "league_picture": ("lang",),
    "league_embed": ("lang",),
    "league_feed": (),
    "table_picture": ("lang",),
    "qr_code": (),
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


def argument_kind(route: str, parameter: str) -> str:
    """Which real objects a path argument names, from where it stands in the route."""
    if parameter == "pk":
        for prefix, kind in (
            ("series/", "series"),
            ("pictures/series/", "series"),
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
            ("embed/", "share"),
            ("accounts/login/link/", "login token"),
        ):
            if route.startswith(prefix):
                return kind
        return "reset token"
    if parameter == "event_pk" and "/changes/" in route:
        return "change"  # an entry of the league's audit trail, not a club night
    kinds = {
        "membership_pk": "membership",
        "player_pk": "player",
        "event_pk": "event",
        "proposal_pk": "proposal",
        "season_pk": "season",
    }
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
