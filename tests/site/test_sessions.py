"""scoring.sessions: Django's database sessions, read with one plain query."""

from __future__ import annotations

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
