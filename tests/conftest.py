"""Shared fixtures: people with every role in a league, quick games, and a way to play deals."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import translation

from scoring import rules
from scoring.access import SESSION_CREATED, remember_link
from scoring.models import League, Membership, Role, Series
from scoring.table import services

PASSWORD = "correct-horse-battery-staple-42"


@pytest.fixture(autouse=True)
def site_language_after_each_test():
    """A request leaves its language active in the thread (a 500 in Russian, say): the next
    test must not start in it."""
    yield
    translation.activate(django_settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Hash test passwords cheaply: the real hasher costs half a second per user."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(username: str):
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


@pytest.fixture
def owner(db):
    return make_user("olga")


@pytest.fixture
def scorer(db):
    return make_user("sergei")


@pytest.fixture
def viewer(db):
    return make_user("vika")


@pytest.fixture
def outsider(db):
    return make_user("oskar")


@pytest.fixture
def league(owner, scorer, viewer):
    """A league with an owner, a scorer and a viewer (and an outsider who is not in it)."""
    league = League.objects.create(name="Kitchen table")
    Membership.objects.create(league=league, user=owner, role=Role.OWNER)
    Membership.objects.create(league=league, user=scorer, role=Role.SCORER)
    Membership.objects.create(league=league, user=viewer, role=Role.VIEWER)
    return league


def start_series(
    *,
    mode: str = "teams",
    names=("Anna", "Boris", "Vera", "Gleb"),
    ruleset: rules.Ruleset = rules.PRESETS["classic"],
    league: League | None = None,
    first_dealer: int = 0,
) -> Series:
    players = services.players_resolve(names=list(names), league=league, known=None)
    return services.series_start(
        mode=mode, players=players, first_dealer=first_dealer, ruleset=ruleset, league=league
    )


def record(series: Series, points, tricks=None) -> Series:
    """Record the next deal through the service, as the scoreboard would."""
    series.refresh_from_db()
    services.deal_record(
        series_id=series.pk, number=series.deal_count + 1, points=points, tricks=tricks
    )
    series.refresh_from_db()
    return series


@pytest.fixture
def quick_series(db) -> Series:
    """A quick game (no league) of two teams with classic rules."""
    return start_series()


@pytest.fixture
def league_series(league) -> Series:
    return start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))


def client_with_link(series: Series, token: str | None = None) -> Client:
    """A browser that opened the series' score link (or another of its tokens) and confirmed."""
    client = Client()
    response = client.post(f"/join/{token or series.score_token}/")
    assert response.status_code == 302, response.status_code
    return client


def creator_client(series: Series) -> Client:
    """The browser that started a quick game: it holds the score link and manages the game."""
    client = client_with_link(series)
    session = client.session
    session[SESSION_CREATED] = [series.pk]
    session.save()
    return client


@pytest.fixture
def scoring_client(quick_series) -> Client:
    return client_with_link(quick_series)


class _ScoreLines(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.depth = 0  # open spans inside a score line (0: outside)
        self.hidden = 0  # the depth at which a visually hidden span opened

    def handle_starttag(self, tag, attrs) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "span" and (self.depth or "score-line" in classes):
            if not self.depth:
                self.lines.append("")
            self.depth += 1
            if "visually-hidden" in classes and not self.hidden:
                self.hidden = self.depth
        elif tag == "img" and self.depth and "goat-icon" in classes:
            self.lines[-1] += f"[{dict(attrs)['alt']}]"

    def handle_endtag(self, tag) -> None:
        if tag == "span" and self.depth:
            if self.hidden == self.depth:
                self.hidden = 0
            self.depth -= 1

    def handle_data(self, data) -> None:
        if self.depth and not self.hidden:
            self.lines[-1] += data


def score_lines(page: str) -> list[str]:
    """The series scores a page lists, as text: "[goat] Anna & Vera 12 : 0 Boris & Gleb"."""
    parser = _ScoreLines()
    parser.feed(page)
    return [" ".join(line.split()) for line in parser.lines]  # split() takes no-break spaces too


def entry_key(response) -> str:
    """The one-time key of the deal form in a rendered scoreboard."""
    match = re.search(r'name="entry_key" value="([^"]+)"', response.content.decode())
    assert match, "the page has no deal form"
    return match.group(1)


__all__ = [
    "PASSWORD",
    "client_with_link",
    "creator_client",
    "entry_key",
    "record",
    "remember_link",
    "score_lines",
    "start_series",
]
