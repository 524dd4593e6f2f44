"""Several app servers, several workers each, one database: logins, links and the cache hold.

Two gunicorn servers (two workers each) run with production settings (DEBUG off, secure cookies,
HTTPS behind a proxy: requests say ``X-Forwarded-Proto: https``) against one database: a SQLite
file, or a fresh PostgreSQL database when ``DATABASE_URL`` points at PostgreSQL. A browser logs in
or opens a game link through one server and carries on through the other.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.helpers import Browser, csrf_token, form_value, manage
from tests.served import gunicorn_serving

PASSWORD = "multi-process-password-7Qz"
REQUEST_TIMEOUT = 20

pytestmark = pytest.mark.slow  # starts two gunicorn servers: make test runs it, not test-fast
SETUP = """
from django.contrib.auth import get_user_model
from scoring import rules
from scoring.table import services
get_user_model().objects.create_user("maria", password={password!r})
players = services.players_resolve(names=["Anna", "Boris", "Vera", "Gleb"], league=None)
series = services.series_start(
    mode="teams", players=players, first_dealer=0, ruleset=rules.PRESETS["classic"]
)
print("GAME", series.pk, series.table.score_token)
"""


@pytest.fixture(scope="module")
def database_url(tmp_path_factory) -> Iterator[str]:
    """A database of its own: a SQLite file, or a new PostgreSQL database dropped afterwards."""
    configured = os.environ.get("DATABASE_URL", "")
    if not configured.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path_factory.mktemp('multiprocess') / 'shared.sqlite3'}"
        return
    import psycopg

    parts = urlsplit(configured)
    name = f"kozel_multiprocess_{os.getpid()}_{secrets.token_hex(3)}"
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def environment(database_url, tmp_path_factory) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "DJANGO_", "GUNICORN_")) and key != "DEBUG"
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database_url,
        STATIC_ROOT=str(tmp_path_factory.mktemp("static")),
        WEB_CONCURRENCY="2",
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
    )
    return env


def manage_ok(env: dict[str, str], *args: str) -> str:
    result = manage(*args, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def quick_game(environment) -> tuple[int, str]:
    """The database migrated, static files collected, a user and a quick game made."""
    manage_ok(environment, "migrate", "--noinput", "-v0")
    manage_ok(environment, "collectstatic", "--noinput", "-v0")
    out = manage_ok(environment, "shell", "-v0", "-c", SETUP.format(password=PASSWORD))
    pk, token = re.search(r"GAME (\d+) (\S+)", out).groups()
    return int(pk), token


@pytest.fixture(scope="module")
def servers(environment, quick_game, tmp_path_factory) -> Iterator[tuple[int, int]]:
    """Two gunicorn servers with two workers each, stopped (and waited for) afterwards."""
    logs = tmp_path_factory.mktemp("gunicorn")
    with contextlib.ExitStack() as stack:
        yield tuple(
            stack.enter_context(gunicorn_serving(environment, logs / f"{name}.log"))
            for name in ("first", "second")
        )


def test_a_login_through_one_server_holds_on_the_other(servers):
    first, second = servers
    phone = Browser()
    assert phone.get(second, "/accounts/")[0] == 302  # not logged in yet: off to the login page
    status, _headers, page = phone.get(first, "/accounts/login/")
    assert status == 200
    login = {"username": "maria", "password": PASSWORD, "csrfmiddlewaretoken": csrf_token(page)}
    status, _headers, _page = phone.post(first, "/accounts/login/", login)
    assert status == 302, "the login is accepted"
    # Several requests, so that both of the other server's workers answer some of them.
    for _ in range(6):
        status, _headers, page = phone.get(second, "/accounts/")
        assert status == 200
        assert "maria" in page


def test_a_game_link_opened_through_one_server_works_through_the_other(
    servers, quick_game, environment
):
    first, second = servers
    pk, token = quick_game
    phone = Browser()
    status, _headers, page = phone.get(first, f"/tables/{token}/")
    assert status == 200  # asks first: opening a link changes nothing
    confirm = {"csrfmiddlewaretoken": csrf_token(page)}
    assert phone.post(first, f"/tables/{token}/", confirm)[0] == 302
    assert Browser().get(second, f"/series/{pk}/")[0] == 404  # a stranger sees nothing
    status, _headers, page = phone.get(second, f"/series/{pk}/")
    assert status == 200
    deal = {
        "csrfmiddlewaretoken": csrf_token(page),
        "number": form_value(page, "number"),
        "entry_key": form_value(page, "entry_key"),
        "points_0": "70",
        "points_1": "",
    }
    assert phone.post(second, f"/series/{pk}/deals/", deal)[0] == 302
    # The same form again through the first server: a retry, recorded once.
    assert phone.post(first, f"/series/{pk}/deals/", deal)[0] == 302
    assert phone.get(first, f"/series/{pk}/")[0] == 200
    count = f"from scoring.models import Deal; print(Deal.objects.filter(series_id={pk}).count())"
    assert manage_ok(environment, "shell", "-v0", "-c", count).strip() == "1"


def test_the_cache_is_shared_between_processes(environment, servers):
    # The migrations made the cache table (scoring 0004), before either server started.
    key = f"multiprocess-{uuid.uuid4()}"
    manage_ok(
        environment,
        "shell",
        "-v0",
        "-c",
        f"from django.core.cache import cache; cache.set({key!r}, 'shared', 60)",
    )
    read = f"from django.core.cache import cache; print(cache.get({key!r}))"
    assert manage_ok(environment, "shell", "-v0", "-c", read).strip() == "shared"


def test_static_files_are_served_compressed_with_hashed_names_and_cached_for_good(servers):
    first, _second = servers
    status, _headers, page = Browser().get(first, "/")
    assert status == 200
    stylesheet = re.search(r'href="(/static/css/app\.[0-9a-f]{12}\.css)"', page)
    assert stylesheet, "pages link the stylesheet by its hashed name"
    connection = http.client.HTTPConnection("127.0.0.1", first, timeout=REQUEST_TIMEOUT)
    try:
        headers = {"Accept-Encoding": "gzip", "X-Forwarded-Proto": "https"}
        connection.request("GET", stylesheet.group(1), headers=headers)
        response = connection.getresponse()
        response.read()
    finally:
        connection.close()
    assert response.status == 200
    assert response.headers["Content-Encoding"] == "gzip"
    assert "immutable" in response.headers["Cache-Control"]


def test_an_old_undo_sent_through_another_server_never_removes_a_newer_deal(
    servers, quick_game, environment
):
    first, second = servers
    pk, token = quick_game
    phone_a, phone_b = Browser(), Browser()
    for phone in (phone_a, phone_b):
        _status, _headers, page = phone.get(first, f"/tables/{token}/")
        confirm = {"csrfmiddlewaretoken": csrf_token(page)}
        assert phone.post(first, f"/tables/{token}/", confirm)[0] == 302

    def record_deal(phone: Browser, port: int) -> None:
        page = phone.get(port, f"/series/{pk}/")[2]
        deal = {
            "csrfmiddlewaretoken": csrf_token(page),
            "number": form_value(page, "number"),
            "entry_key": form_value(page, "entry_key"),
            "points_0": "80",
            "points_1": "",
        }
        assert phone.post(port, f"/series/{pk}/deals/", deal)[0] == 302

    record_deal(phone_a, first)
    page = phone_a.get(second, f"/series/{pk}/")[2]
    undo = {
        "csrfmiddlewaretoken": csrf_token(page),
        "number": re.search(r'undo/".*?name="number" value="(\d+)"', page, re.DOTALL).group(1),
        "version": form_value(page, "version"),
    }
    assert phone_a.post(second, f"/series/{pk}/undo/", undo)[0] == 302
    record_deal(phone_b, second)  # the new deal of that number, from another phone
    status, _headers, answer = phone_a.post(first, f"/series/{pk}/undo/", undo)
    assert status == 409
    assert "nothing was undone" in answer
    count = f"from scoring.models import Deal; print(Deal.objects.filter(series_id={pk}).count())"
    assert manage_ok(environment, "shell", "-v0", "-c", count).strip() == undo["number"]


def deal_form(page: str) -> dict[str, str]:
    """The deal form's own token, number and key (not another form's on the page), as a browser
    sends them."""
    form = re.search(r'<form method="post" id="deal-form".*?</form>', page, re.DOTALL)
    assert form, "the page has a deal form"
    return {
        "csrfmiddlewaretoken": csrf_token(form.group(0)),
        "number": form_value(form.group(0), "number"),
        "entry_key": form_value(form.group(0), "entry_key"),
    }


def test_deals_recorded_through_one_server_on_pages_of_the_other_are_recorded_once(
    servers, quick_game, environment
):
    """Deals recorded by htmx through one server, the page read through the other: each page
    carries a key of its own and a working token, and every deal is recorded once."""
    first, second = servers
    pk, token = quick_game
    phone = Browser()
    page = phone.get(first, f"/tables/{token}/")[2]
    assert (
        phone.post(first, f"/tables/{token}/", {"csrfmiddlewaretoken": csrf_token(page)})[0] == 302
    )
    before = int(
        manage_ok(
            environment,
            "shell",
            "-v0",
            "-c",
            f"from scoring.models import Deal; print(Deal.objects.filter(series_id={pk}).count())",
        )
    )
    # Both servers behind one name, as behind the proxy.
    same_site = {"Host": "localhost", "Referer": f"https://localhost/series/{pk}/"}
    keys = set()
    for number in range(4):
        # Each page read through the server that did not record the deal before it (the board
        # comes from the other server's process), each deal recorded through the other one.
        reading, writing = second, first
        page = phone.request(reading, "GET", f"/series/{pk}/", headers=same_site)[2]
        form = deal_form(page)
        keys.add(form["entry_key"])
        status, _headers, answer = phone.request(
            writing,
            "POST",
            f"/series/{pk}/deals/",
            {**form, "points_0": "60", "points_1": ""},
            headers={**same_site, "HX-Request": "true"},
        )
        assert status == 200, answer[:300]
        assert f"Deal {before + number + 2}: card points" in answer
    assert len(keys) == 4  # a key of its own in every page
    count = f"from scoring.models import Deal; print(Deal.objects.filter(series_id={pk}).count())"
    assert manage_ok(environment, "shell", "-v0", "-c", count).strip() == str(before + 4)
