"""Request context in logs: an error names the request's method, path, user and request id; NUL
in a path token is a 404 (``<token:token>``, scoring.lib.ids)."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings as django_settings
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import Resolver404, include, path, resolve

from scoring.web.middleware import (
    REQUEST_ID_HEADER,
    RedactingFormatter,
    RequestContextFilter,
)
from tests.helpers import make_user


def boom(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        raise RuntimeError("the view broke")
    raise RuntimeError("the view broke for a visitor")


urlpatterns = [
    path("boom/", boom),
    path("public/<str:token>/boom/", lambda request, token: boom(request)),
    path("", include("kozel_site.urls")),
]


@pytest.fixture
def broken_site(settings):
    settings.ROOT_URLCONF = __name__


def test_every_response_carries_a_request_id(client, db):
    response = client.get("/healthz")
    assert len(response[REQUEST_ID_HEADER]) == 32


def test_the_proxys_request_id_is_kept_when_it_is_sane(client, db):
    response = client.get("/healthz", headers={REQUEST_ID_HEADER: "lb-1234abcd"})
    assert response[REQUEST_ID_HEADER] == "lb-1234abcd"


def test_a_strange_request_id_is_replaced(client, db):
    response = client.get("/healthz", headers={REQUEST_ID_HEADER: "<script>\n"})
    assert response[REQUEST_ID_HEADER] != "<script>\n"
    assert len(response[REQUEST_ID_HEADER]) == 32


def test_an_error_in_a_view_is_logged_with_the_request(broken_site, db, caplog):
    user = make_user("erin")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.post("/boom/?x=1", {"a": "b"})
    assert response.status_code == 500
    record = next(r for r in caplog.records if r.name == "django.request")
    assert record.exc_info is not None
    assert (record.method, record.path, record.user_id) == ("POST", "/boom/", str(user.pk))
    assert record.request_id == response[REQUEST_ID_HEADER]
    line = logging.Formatter(django_settings.LOGGING["formatters"]["context"]["format"]).format(
        record
    )
    assert f"[{record.request_id} POST /boom/ user={user.pk}]" in line
    assert "the view broke" in line


def test_an_error_for_a_visitor_is_logged_as_anonymous(broken_site, db, caplog):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        client.get("/boom/")
    record = next(r for r in caplog.records if r.name == "django.request")
    assert (record.path, record.user_id) == ("/boom/", "anonymous")


def test_an_error_at_a_secret_link_is_logged_without_its_token(broken_site, db, caplog):
    token = "Xq3-9_sEcReT0kenValue12345678"
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        assert client.get(f"/public/{token}/boom/?next=/join/{token}/").status_code == 500
    record = next(r for r in caplog.records if r.name == "django.request")
    assert record.path == "/public/[secret]/boom/"
    # The line as the console handler writes it: message and traceback name the path too.
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h.formatter, RedactingFormatter)
    )
    line = handler.formatter.format(record)
    assert token in record.getMessage()  # what the formatter had to take out
    assert token not in line
    assert "[secret]" in line and "the view broke" in line


def test_records_outside_a_request_get_placeholders():
    record = logging.LogRecord("scoring", logging.INFO, __file__, 1, "hello", None, None)
    assert RequestContextFilter().filter(record)
    assert (record.request_id, record.method, record.path, record.user_id) == ("-",) * 4


@pytest.mark.parametrize(
    "address",
    [
        "/join/{}/",
        "/tables/{}/",
        "/tables/{}/live/",
        "/invite/{}/",
        "/public/{}/",
        "/public/{}/history/",
        "/public/events/{}/",
        "/public/events/{}/seat/",
    ],
)
def test_a_nul_character_in_a_path_token_is_not_found(client, db, address):
    token = "abc-DEF_0123456789ghijklm"
    assert resolve(address.format(token)).kwargs == {"token": token}
    with pytest.raises(Resolver404):
        resolve(address.format("abc\x00def"))
    assert client.get(address.format("abc%00def")).status_code == 404
