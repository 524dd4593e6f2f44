"""Secret link tokens never reach a log: the one function, and gunicorn's access log using it."""

from __future__ import annotations

import io
import logging
import runpy
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from django.urls import resolve, reverse
from django.urls.converters import IntConverter, UUIDConverter
from gunicorn.config import Config
from gunicorn.glogging import SafeAtoms

from kozel_site.gunicorn_logging import RedactingLogger
from scoring.lib.redact import SECRET, redact
from scoring.web.middleware import SECRET_ARGUMENTS, RedactingFormatter, RequestContextFilter
from tests.endpoints import endpoints

TOKEN = "Xq3-9_sEcReT0kenValue12345678"
#: Names in a traceback, as long as a token: left as they are.
CODE_NAMES = [
    'File "views.py", in test_the_first_load_with_the_workers_install',
    "CompressedManifestStaticFilesStorage",
    "HTTP_X_FORWARDED_FOR_HEADER",
]
GUNICORN_CONF = Path(__file__).resolve().parents[2] / "kozel_site" / "gunicorn.conf.py"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f"GET /join/{TOKEN}/ HTTP/1.1", "GET /join/[secret]/ HTTP/1.1"),
        (f"/invite/{TOKEN}/", "/invite/[secret]/"),
        (f"/public/{TOKEN}/", "/public/[secret]/"),
        (f"/public/{TOKEN}/history/?page=2", "/public/[secret]/history/?page=2"),
        (f"/public/events/{TOKEN}/", "/public/events/[secret]/"),  # once hid "events" instead
        (f"/accounts/password/reset/MQ/{TOKEN}/", "/accounts/password/reset/[secret]/[secret]/"),
        (f"/accounts/login/?next=/invite/{TOKEN}/", "/accounts/login/?next=/invite/[secret]/"),
        (
            f"/accounts/login/?next=%2Finvite%2F{TOKEN}%2F&x=1",
            "/accounts/login/?next=%2Finvite%2F[secret]%2F&x=1",
        ),
        (f"https://kozel.example.org/join/{TOKEN}", "https://kozel.example.org/join/[secret]"),
        ("/join/abc%00def/", "/join/[secret]/"),
        # However it is spelled: the server reads these as the links they spell (or answers
        # 404, and logs them all the same).
        (f"/%74ables/{TOKEN}/", "/%74ables/[secret]/"),
        (f"/%6Aoin/{TOKEN}/", "/%6Aoin/[secret]/"),
        (f"/t%61bles/{TOKEN}/live/", "/t%61bles/[secret]/live/"),
        (f"/JOIN/{TOKEN}/", "/JOIN/[secret]/"),
        (f"//join//{TOKEN}/", "//join//[secret]/"),
        (f"/%2574ables/{TOKEN}/", "/%2574ables/[secret]/"),
        ("/tables/" + "".join(f"%{ord(c):02X}" for c in TOKEN) + "/", "/tables/[secret]/"),
        (f"/qr/tables/{TOKEN}/", "/qr/[secret]/[secret]/"),
        # Wherever it stands, by its shape alone.
        (
            f"Invalid request line: 'GET /nowhere/{TOKEN}'",
            "Invalid request line: 'GET /nowhere/[secret]'",
        ),
        (f"token={TOKEN[:3]}%2D{TOKEN[4:]}", "token=[secret]"),
        (
            "/accounts/password/reset/MQ/cz1b2c-0123456789abcdef0123456789abcdef/",
            "/accounts/password/reset/[secret]/[secret]/",
        ),
        (f"/accounts/login/link/MQ/{TOKEN}/", "/accounts/login/link/[secret]/[secret]/"),
        ("/accounts/LOGIN//link/MQ/abc-12/", "/accounts/LOGIN//link/[secret]/[secret]/"),  # short
        # Nothing secret: left alone.
        ("/accounts/login/link/", "/accounts/login/link/"),
        ("/accounts/password/reset/sent/", "/accounts/password/reset/sent/"),
        ("/accounts/password/reset/complete/", "/accounts/password/reset/complete/"),
        ("/series/12/deals/3/edit/", "/series/12/deals/3/edit/"),
        ("/join/", "/join/"),
        ("/leagues/4/invite/", "/leagues/4/invite/"),
        # Not tokens: a download's id, names in a traceback, a static file's hashed name.
        (
            "/exports/3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b/",
            "/exports/3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b/",
        ),
        *[(name, name) for name in CODE_NAMES],
        ("/static/js/offline.3f2a1b4c5d6e.js", "/static/js/offline.3f2a1b4c5d6e.js"),
    ],
)
def test_redact_takes_out_the_token_of_every_secret_link(line, expected):
    assert redact(line) == expected


def test_gunicorns_error_log_takes_the_token_out_of_a_refused_request_line():
    """gunicorn logs a request line it refuses whole, in its error log, traceback and all."""
    logger = RedactingLogger(Config())
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.error_log.addHandler(handler)
    try:
        logger.warning("Invalid request from ip=%s: %s", "10.0.0.2", f"GET //join//{TOKEN} HTTP/9")
        try:
            raise ValueError(f"Invalid HTTP request line: 'GET /%74ables/{TOKEN}/'")
        except ValueError:
            logger.exception("Error handling request /x/%s", TOKEN)
    finally:
        logger.error_log.removeHandler(handler)
    written = stream.getvalue()
    assert TOKEN not in written and written.count(SECRET) >= 3, written
    assert "Invalid request from ip=10.0.0.2" in written and "ValueError" in written


def fake_request(path: str):
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": path,
        "PATH_INFO": path.split("?")[0],
        "QUERY_STRING": path.partition("?")[2],
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.2",
        "HTTP_REFERER": f"https://kozel.example.org/join/{TOKEN}/",
    }
    request = SimpleNamespace(headers=[("REFERER", environ["HTTP_REFERER"])])
    response = SimpleNamespace(
        status="302 Found", sent=0, headers=[("X-Request-ID", "abcd1234"), ("Location", "/")]
    )
    return response, request, environ


def test_the_gunicorn_config_uses_the_redacting_logger():
    conf = runpy.run_path(str(GUNICORN_CONF))
    assert conf["logger_class"] == "kozel_site.gunicorn_logging.RedactingLogger"


def test_gunicorn_writes_access_lines_without_the_token():
    conf = runpy.run_path(str(GUNICORN_CONF))
    config = Config()
    config.set("accesslog", "-")
    config.set("access_log_format", conf["access_log_format"])
    config.set("logger_class", conf["logger_class"])
    logger = config.logger_class(config)
    assert isinstance(logger, RedactingLogger)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.access_log.addHandler(handler)
    try:
        for path in (f"/join/{TOKEN}/", f"/accounts/login/?next=%2Finvite%2F{TOKEN}%2F"):
            logger.access(*fake_request(path), timedelta(milliseconds=12))
    finally:
        logger.access_log.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert lines == [
        '10.0.0.2 "GET /join/[secret]/ HTTP/1.1" 302 0 12ms request_id=abcd1234',
        '10.0.0.2 "GET /accounts/login/?next=%2Finvite%2F[secret]%2F HTTP/1.1" 302 0 12ms '
        "request_id=abcd1234",
    ]


def test_no_access_log_atom_carries_the_token():
    """Whatever a deployment puts in its format (referer, path, query, environ) is clean."""
    config = Config()
    atoms = RedactingLogger(config).atoms(
        *fake_request(f"/public/{TOKEN}/history/?a=1"), timedelta(0)
    )
    assert not [key for key, value in atoms.items() if TOKEN in str(value)]
    safe = SafeAtoms(atoms)
    assert safe["r"] == "GET /public/[secret]/history/?a=1 HTTP/1.1"
    assert safe["{referer}i"] == "https://kozel.example.org/join/[secret]/"


# --- Every secret link of the site, found by walking its URLs -----------------------------------


def secret_links() -> list:
    """(URL name, a path to it, the secrets in that path) for every URL with a secret argument;
    each secret a value found nowhere else in the line."""
    links = []
    for endpoint in endpoints():
        arguments = endpoint.converters
        secrets = sorted(set(arguments) & SECRET_ARGUMENTS)
        if not secrets:
            continue
        kwargs = {name: 12 for name in arguments} | {
            name: f"{name[:2]}S3cr3t{at}Zq9" for at, name in enumerate(secrets)
        }
        path = reverse(endpoint.name, kwargs=kwargs)
        assert resolve(path).url_name == endpoint.name
        secret_values = [kwargs[name] for name in secrets]
        links.append(pytest.param(endpoint.name, path, secret_values, id=endpoint.name))
    return links


SECRET_LINKS = secret_links()


def test_every_path_argument_but_an_id_is_a_secret():
    """A new URL taking a string (``<str:code>``) is named a secret in ``SECRET_ARGUMENTS``,
    so the tests below take its value out of every log, or it is an id."""
    for endpoint in endpoints():
        for name, converter in endpoint.converters.items():
            # An id: a row's number, or a download's UUID (only whoever asked for it opens it).
            an_id = isinstance(converter, (IntConverter, UUIDConverter))
            assert name in SECRET_ARGUMENTS or an_id, endpoint


def test_the_secret_links_are_found():
    names = {link.values[0] for link in SECRET_LINKS}
    assert {"link_join", "league_join", "public_standings", "public_history"} <= names
    assert {"event_public", "password_reset_confirm", "login_link"} <= names


def lines_about(path: str) -> list[str]:
    """The path as a request line, inside a login's ``next`` (plain and encoded), and in a URL."""
    return [
        f"GET {path} HTTP/1.1",
        f"/accounts/login/?next={path}",
        f"/accounts/login/?next={quote(path, safe='')}&x=1",
        f"https://kozel.example.org{path}",
    ]


@pytest.mark.parametrize(("name", "path", "secrets"), SECRET_LINKS)
def test_redact_takes_every_secret_out_of_every_secret_link(name, path, secrets):
    for line in lines_about(path):
        clean = redact(line)
        assert not [secret for secret in secrets if secret in clean], clean
        assert clean.count(SECRET) == len(secrets), clean


@pytest.mark.parametrize(("name", "path", "secrets"), SECRET_LINKS)
def test_the_apps_log_lines_carry_no_secret_of_any_secret_link(name, path, secrets, rf):
    """A record written while the request is served, as the console handler writes it: the
    request's path in the context and the whole URL (plain and encoded) in the message."""
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h.formatter, RedactingFormatter)
    )
    request = rf.get(path, {"next": path})
    request.id = "abcd1234"
    message = "Not Found: %s (from %s)"
    record = logging.LogRecord("django.request", logging.WARNING, __file__, 1, message, None, None)
    record.args = (request.get_full_path(), " ".join(lines_about(path)))
    record.request = request
    assert RequestContextFilter().filter(record)
    line = handler.format(record)
    assert all(secret in record.getMessage() for secret in secrets)  # what had to come out
    assert not [secret for secret in secrets if secret in line], line


@pytest.mark.parametrize(("name", "path", "secrets"), SECRET_LINKS)
def test_gunicorns_access_log_carries_no_secret_of_any_secret_link(name, path, secrets):
    conf = runpy.run_path(str(GUNICORN_CONF))
    config = Config()
    config.set("accesslog", "-")
    config.set("access_log_format", conf["access_log_format"] + ' "%(f)s" %(U)s %(q)s')
    logger = RedactingLogger(config)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.access_log.addHandler(handler)
    try:
        for line in lines_about(path)[:3]:
            target = line.split(" ")[1] if line.startswith("GET ") else line
            response, request, environ = fake_request(target)
            environ["HTTP_REFERER"] = f"https://kozel.example.org{path}"
            request.headers = [("REFERER", environ["HTTP_REFERER"])]
            logger.access(response, request, environ, timedelta(milliseconds=3))
    finally:
        logger.access_log.removeHandler(handler)
    written = stream.getvalue()
    assert written.count("\n") == 3
    assert not [secret for secret in secrets if secret in written], written
