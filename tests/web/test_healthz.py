"""/healthz: 200 while the database answers, 503 when it does not; reachable over plain HTTP."""

from __future__ import annotations

import logging
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from scoring.web import middleware


@pytest.fixture
def client(db) -> Client:
    return Client()


def test_it_answers_ok_while_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert response["Content-Type"].startswith("text/plain")


def test_it_is_never_cached(client):
    assert "no-store" in client.get("/healthz")["Cache-Control"]


def test_it_answers_503_when_the_database_does_not(client, caplog):
    broken = mock.patch.object(
        middleware.connection, "cursor", side_effect=OperationalError("connection refused")
    )
    with broken, caplog.at_level(logging.ERROR):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert b"database unavailable" in response.content
    record = next(r for r in caplog.records if r.name == "scoring.health")
    assert record.path == "/healthz"
    assert "connection refused" in caplog.text


def test_it_answers_503_when_the_query_fails(client):
    cursor = mock.MagicMock()
    cursor.__enter__.return_value.execute.side_effect = OperationalError("server closed")
    with mock.patch.object(middleware.connection, "cursor", return_value=cursor):
        assert client.get("/healthz").status_code == 503


def test_a_load_balancer_may_ask_over_plain_http_when_https_is_enforced(db, settings):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/healthz").status_code == 200
    assert client.head("/healthz").status_code == 200
    assert client.get("/").status_code == 301  # everything else moves to HTTPS


def test_it_only_reads(client):
    assert client.post("/healthz").status_code == 405


def test_it_needs_no_login_and_sets_no_cookie(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert not response.cookies


def test_a_load_balancer_asks_each_server_by_its_address(client, settings):
    """DEPLOY.md's ``curl -f http://127.0.0.1:8001/healthz``: the Host is the server's address,
    which ALLOWED_HOSTS does not name (was a 400); any other page still refuses that host."""
    settings.ALLOWED_HOSTS = ["kozel.example.org"]
    settings.DEBUG = False
    response = client.get("/healthz", HTTP_HOST="127.0.0.1:8001")
    assert (response.status_code, response.content) == (200, b"ok\n")
    assert "no-store" in response["Cache-Control"]
    assert response["X-Content-Type-Options"] == "nosniff"  # the security headers kept
    assert "Content-Security-Policy" in response
    assert client.head("/healthz", HTTP_HOST="10.0.0.5").status_code == 200
    assert client.post("/healthz", HTTP_HOST="10.0.0.5").status_code == 405
    assert client.get("/", HTTP_HOST="127.0.0.1:8001").status_code == 400
    assert client.get("/healthz/", HTTP_HOST="127.0.0.1:8001").status_code == 400
