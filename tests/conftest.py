"""Shared fixtures: people with every role in a league, quick games, and a browser that scores.

Plain helpers (``start_series``, ``record``, ``logged_in``, ...) are in ``tests/helpers.py``.
"""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import translation

from scoring.leagues import services as league_services
from scoring.models import League, Membership, Player, Role, Series
from tests.helpers import client_with_link, finished, make_user, record, start_series


def pytest_addoption(parser):
    parser.addoption(
        "--phone-only",
        action="store_true",
        help="Run the browser tests at the phone's width only (CI's PostgreSQL pass: the "
        "desktop layout is the same whatever the database).",
    )


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


@pytest.fixture
def exports_storage(settings, tmp_path):
    """Finished exports go to a folder of the test's own (settings ``STORAGES["exports"]``)."""
    folder = tmp_path / "exports"
    settings.STORAGES = {
        **settings.STORAGES,
        "exports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {**settings.STORAGES["exports"]["OPTIONS"], "location": folder},
        },
    }
    return folder


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


@pytest.fixture
def quick_series(db) -> Series:
    """A quick game (no league) of two teams with classic rules."""
    return start_series()


@pytest.fixture
def league_series(league) -> Series:
    return start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))


@pytest.fixture
def scoring_client(quick_series) -> Client:
    return client_with_link(quick_series)


@pytest.fixture
def ctx(league, league_series, owner, scorer, viewer, outsider):
    """A league with a game under way, a finished one, an extra player, its links: what every
    change of the authorization matrix acts on (``tests.helpers.Action``)."""
    record(league_series, [70, 50])
    league_services.invite_renew(league=league)
    league_services.share_renew(league=league)
    player = Player.objects.create(name="Zoya", league=league)
    done = finished(league, names=("Lena", "Misha"), mode="duel")
    league.refresh_from_db()
    league_series.refresh_from_db()
    return {
        "league": league,
        "series": league_series,
        "player": player,
        "done": done,
        "owner": owner,
        "scorer": scorer,
        "viewer": viewer,
        "outsider": outsider,
        "anonymous": None,
    }


@pytest.fixture(autouse=True)
def empty_local_cache():
    """What a process keeps in its own memory (``caches["local"]``) is for one database: the
    next test's ids come again with other data."""
    from django.core.cache import caches

    caches["local"].clear()
    yield
