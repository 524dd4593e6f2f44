"""Secret link tokens never reach a log: the one function, and gunicorn's access log using it."""

from __future__ import annotations

import io
import logging
import runpy
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.glogging import SafeAtoms

from kozel_site.gunicorn_logging import RedactingLogger
from scoring.redact import redact

TOKEN = "Xq3-9_sEcReT0kenValue12345678"
GUNICORN_CONF = Path(__file__).resolve().parents[2] / "kozel_site" / "gunicorn.conf.py"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (f"GET /join/{TOKEN}/ HTTP/1.1", "GET /join/[secret]/ HTTP/1.1"),
        (f"/invite/{TOKEN}/", "/invite/[secret]/"),
        (f"/public/{TOKEN}/", "/public/[secret]/"),
        (f"/public/{TOKEN}/history/?page=2", "/public/[secret]/history/?page=2"),
        (f"/accounts/password/reset/MQ/{TOKEN}/", "/accounts/password/reset/MQ/[secret]/"),
        (f"/accounts/login/?next=/invite/{TOKEN}/", "/accounts/login/?next=/invite/[secret]/"),
        (
            f"/accounts/login/?next=%2Finvite%2F{TOKEN}%2F&x=1",
            "/accounts/login/?next=%2Finvite%2F[secret]%2F&x=1",
        ),
        (f"https://kozel.example.org/join/{TOKEN}", "https://kozel.example.org/join/[secret]"),
        ("/join/abc%00def/", "/join/[secret]/"),
        # Nothing secret: left alone.
        ("/accounts/password/reset/sent/", "/accounts/password/reset/sent/"),
        ("/accounts/password/reset/complete/", "/accounts/password/reset/complete/"),
        ("/series/12/deals/3/edit/", "/series/12/deals/3/edit/"),
        ("/join/", "/join/"),
        ("/leagues/4/invite/", "/leagues/4/invite/"),
    ],
)
def test_redact_takes_out_the_token_of_every_secret_link(line, expected):
    assert redact(line) == expected


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
