"""A finished export downloaded slowly under gunicorn with the project's config (``make serve``):
whole, however long it takes, and the site answers others meanwhile.

gunicorn's sync worker is killed by its timeout while one request lasts longer (a 65 MB
backup at 1 MB/s was cut off at 30 s), and each slow download held a whole worker. Here the
timeout is 3 s and three downloads last longer than it, read slowly through small socket
buffers, while a visitor asks for the home page.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import secrets
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.helpers import ROOT, Browser, csrf_token, manage
from tests.served import gunicorn_serving

pytestmark = pytest.mark.slow  # gunicorn and downloads of several seconds: make test runs it
PASSWORD = "slow-download-password-8Jw"
TIMEOUT = 3  # GUNICORN_TIMEOUT: each download lasts longer
SIZE = 12 * 1024 * 1024  # the export unpacked; incompressible, so about as large gzipped
RATE = 2 * 1024 * 1024  # bytes a second each slow reader takes: about 6 s per download
#: The threads a worker has under ``make serve`` (the Makefile's serve target sets them).
SERVE_THREADS = "4"
SETUP = """
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone
from scoring.models import Export, exports_storage
user = get_user_model().objects.create_user("sasha", password={password!r})
name = exports_storage().save("slow.json.gz", ContentFile(open({packed!r}, "rb").read()))
export = Export.objects.create(
    kind=Export.Kind.HISTORY_JSON, user=user, file=name, size={size}, finished_at=timezone.now()
)
print("EXPORT", export.pk)
"""


@pytest.fixture(scope="module")
def export_file(tmp_path_factory) -> tuple[Path, bytes]:
    """The export's document and its gzipped file (as the task worker keeps it)."""
    document = os.urandom(SIZE)
    packed = tmp_path_factory.mktemp("export") / "slow.json.gz"
    packed.write_bytes(gzip.compress(document, compresslevel=1))
    return packed, document


@pytest.fixture(scope="module")
def server(tmp_path_factory, export_file) -> Iterator[tuple[int, str]]:
    """gunicorn as ``make serve`` starts it (two workers, the default worker class), with a
    logged-in person's finished export in its exports storage: (port, the export's id)."""
    work = tmp_path_factory.mktemp("slow-downloads")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "DJANGO_", "GUNICORN_", "DATABASE_")) and key != "DEBUG"
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=f"sqlite:///{work / 'site.sqlite3'}",
        STATIC_ROOT=str(work / "static"),
        EXPORTS_ROOT=str(work / "exports"),
        WEB_CONCURRENCY="2",
        GUNICORN_THREADS=SERVE_THREADS,  # as make serve runs it: no proxy buffers the answers
        GUNICORN_TIMEOUT=str(TIMEOUT),
        LOG_LEVEL="WARNING",
        GUNICORN_LOG_LEVEL="warning",
    )
    packed, document = export_file
    setup = SETUP.format(password=PASSWORD, packed=str(packed), size=len(document))
    for args in (
        ("migrate", "--noinput", "-v0"),
        ("collectstatic", "--noinput", "-v0"),
        ("shell", "-v0", "-c", setup),
    ):
        done = manage(*args, env=env)
        assert done.returncode == 0, done.stderr
    export = done.stdout.split("EXPORT", 1)[1].strip()
    with gunicorn_serving(env, work / "gunicorn.log") as port:
        yield port, export
    assert "WORKER TIMEOUT" not in (work / "gunicorn.log").read_text()


def slow_download(port: int, path: str, cookies: dict[str, str], *, gzipped: bool):
    """GET ``path`` read at ``RATE`` through a small receive buffer (so the server's writes
    wait for the reader, as for a phone on a slow network): (status, headers, body, seconds)."""
    started = time.monotonic()
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        sock.connect(("127.0.0.1", port))
        cookie = "; ".join(f"{name}={value}" for name, value in cookies.items())
        request = (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Forwarded-Proto: https\r\n"
            f"Cookie: {cookie}\r\nConnection: close\r\n"
            f"Accept-Encoding: {'gzip' if gzipped else 'identity'}\r\n\r\n"
        )
        sock.sendall(request.encode())
        received = bytearray()
        chunk = 64 * 1024
        while data := sock.recv(chunk):
            received += data
            time.sleep(len(data) / RATE)
    head, _, body = bytes(received).partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status.split()[1]), headers, body, time.monotonic() - started


def test_slow_downloads_arrive_whole_while_the_site_answers_others(server, export_file):
    port, export = server
    _packed, document = export_file
    sasha = Browser()
    page = sasha.get(port, "/accounts/login/")[2]
    login = {"csrfmiddlewaretoken": csrf_token(page), "username": "sasha", "password": PASSWORD}
    assert sasha.post(port, "/accounts/login/", login)[0] == 302
    path = f"/exports/{export}/download"
    with ThreadPoolExecutor(max_workers=3) as pool:
        downloads = {
            pool.submit(slow_download, port, path, sasha.cookies, gzipped=gzipped): gzipped
            for gzipped in (True, True, False)
        }
        home = []
        for _ in range(4):  # before and after the timeout would have struck
            time.sleep(1.5)
            started = time.monotonic()
            assert Browser().get(port, "/")[0] == 200
            home.append(time.monotonic() - started)
        results = [
            (download.result(timeout=60), gzipped) for download, gzipped in downloads.items()
        ]
    assert max(home) < 1.0, f"the home page took {max(home):.1f} s while downloads ran"
    for (status, headers, body, seconds), gzipped in results:
        assert status == 200
        assert seconds > TIMEOUT + 1  # longer than a worker may take over a request
        if gzipped:
            assert headers["Content-Encoding"] == "gzip"
            body = gzip.decompress(body)
        assert hashlib.sha256(body).digest() == hashlib.sha256(document).digest()


def test_make_serve_runs_the_threaded_workers_this_test_measures():
    recipe = (ROOT / "Makefile").read_text().split("\nserve:", 1)[1].split("\n\n", 1)[0]
    assert f"GUNICORN_THREADS=$${{GUNICORN_THREADS:-{SERVE_THREADS}}}" in recipe
