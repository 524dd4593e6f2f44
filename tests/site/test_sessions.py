"""scoring.sessions: Django's database sessions, read with one plain query."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.sessions import SessionStore

pytestmark = pytest.mark.django_db


def test_it_reads_what_djangos_backend_wrote_in_one_query():
    written = DjangoStore()
    written["series_links"] = {"1": "token"}
    written.create()
    with CaptureQueriesContext(connection) as queries:
        read = SessionStore(written.session_key)
        assert read["series_links"] == {"1": "token"}
    assert len(queries) == 1
    assert read.session_key == written.session_key


def test_an_expired_or_unknown_session_is_a_new_empty_one():
    written = SessionStore()
    written["x"] = 1
    written.create()
    Session.objects.filter(pk=written.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    expired = SessionStore(written.session_key)
    assert expired.get("x") is None and expired.session_key is None
    unknown = SessionStore("a" * 32)
    assert unknown.get("x") is None and unknown.session_key is None


def test_a_session_it_saves_django_reads():
    store = SessionStore()
    store["y"] = [1, 2]
    store.save()
    assert DjangoStore(store.session_key)["y"] == [1, 2]


def test_a_session_decoded_again_comes_from_the_kept_json_each_read_its_own():
    from scoring import sessions

    written = SessionStore()
    written["series_links"] = {"1": "token", "2": "other"}
    written.create()
    sessions._decoded.clear()
    first = SessionStore(written.session_key)
    assert first["series_links"] == {"1": "token", "2": "other"}
    first["series_links"]["1"] = "changed in place"  # a reader changing what it read
    first["series_links"].pop("2")
    second = SessionStore(written.session_key)
    assert second["series_links"] == {"1": "token", "2": "other"}
    assert len(sessions._decoded) == 1
    stored = Session.objects.get(pk=written.session_key).session_data
    assert json.loads(sessions._decoded[stored]) == {"series_links": {"1": "token", "2": "other"}}


def test_a_session_whose_signature_fails_is_empty_and_never_kept():
    from scoring import sessions

    written = SessionStore()
    written["x"] = 1
    written.create()
    sessions._decoded.clear()
    stored = Session.objects.get(pk=written.session_key).session_data
    tampered = stored[:-3] + ("aaa" if not stored.endswith("aaa") else "bbb")
    Session.objects.filter(pk=written.session_key).update(session_data=tampered)
    assert SessionStore(written.session_key).get("x") is None
    assert not sessions._decoded


def test_no_more_than_kept_sessions_stay_decoded(monkeypatch):
    from scoring import sessions

    monkeypatch.setattr(sessions, "KEPT", 3)
    sessions._decoded.clear()
    for number in range(5):
        written = SessionStore()
        written["n"] = number
        written.create()
        assert SessionStore(written.session_key)["n"] == number
    assert len(sessions._decoded) == 3
