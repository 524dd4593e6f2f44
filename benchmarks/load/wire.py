"""What goes over the wire: one request on its own socket, its answer parsed, and what a phone
reads from a page (the deal form, the rematch form, the board's version) as a browser does."""

from __future__ import annotations

import html
import re
import socket
import zlib
from collections.abc import Callable
from dataclasses import dataclass

DEAL_FORM = re.compile(r'<form\b[^>]*\bclass="deal-form\b[^>]*>')
#: The rematch a finished quick game offers: a plain form (no htmx), posted as a browser does.
REMATCH_FORM = re.compile(r'<form\b[^>]*\baction="[^"]*/rematch/"[^>]*>')
INPUT = re.compile(r"<input\b([^>]*)>")
ATTRIBUTE = re.compile(r'([\w:-]+)(?:="([^"]*)")?')
VERSION = re.compile(r'id="scoreboard"[^>]*\bdata-version="([0-9.]+)"')
POLL = re.compile(r'<div id="board"[^>]*\shx-get="([^"]+)"')  # the big screen's next poll


def version_key(version: str) -> tuple[int, ...]:
    """A board's version for comparing (``table.live``): "<evening>.<game>.<game's version>",
    element by element, as the phone's ``app.js`` does (a table's next game has a higher id)."""
    return tuple(int(part) for part in version.split("."))


def board_version(page: str) -> str | None:
    """The version of the board ``page`` shows (None: no board with a version in it)."""
    found = VERSION.search(page)
    return found.group(1) if found else None


def deal_form(page: str) -> tuple[str, dict[str, str], list[str]] | None:
    """The deal form as a browser submits it: where it posts, its named inputs (radios only
    when checked; an input outside it that names it by its id too) and the names of its points
    inputs; None when the board has none."""
    return _form(page, DEAL_FORM)


def rematch_form(page: str) -> tuple[str, dict[str, str]] | None:
    """The rematch form of a game over (where it posts, its CSRF token); None: no rematch
    offered."""
    found = _form(page, REMATCH_FORM)
    return None if found is None else found[:2]


def _form(page: str, start: re.Pattern) -> tuple[str, dict[str, str], list[str]] | None:
    found = start.search(page)
    if found is None:
        return None
    tag = dict(ATTRIBUTE.findall(found.group(0)))
    fields, points = {}, []
    inside = range(found.end(), page.find("</form>", found.end()))
    for element in INPUT.finditer(page):
        attributes = dict(ATTRIBUTE.findall(element.group(1)))
        name = attributes.get("name")
        # Its inputs, and those elsewhere that name it (form="its id"), as a browser sends them.
        owner = attributes.get("form")
        if not (owner == tag.get("id") if owner else element.start() in inside):
            continue
        if not name or (attributes.get("type") == "radio" and "checked" not in attributes):
            continue
        fields[name] = html.unescape(attributes.get("value", ""))
        if "data-points" in attributes:
            points.append(name)
    return html.unescape(tag.get("hx-post") or tag["action"]), fields, points


class Failed(Exception):
    pass


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    cookies: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        if self.headers.get("transfer-encoding"):  # Django's CommonMiddleware gives a length
            raise Failed("an answer in chunks")
        body = self.body
        if self.headers.get("content-encoding") == "gzip":
            body = zlib.decompress(body, 31)
        return body.decode()

    @property
    def location(self) -> str:
        """Where a redirect sends the browser, as a path on the same server."""
        found = self.headers.get("location", "")
        return "/" + found.split("://", 1)[1].split("/", 1)[1] if "://" in found else found


def parse(raw: bytes) -> Answer:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers, cookies = {}, {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        headers[name] = value
        if name == "set-cookie":
            pair = value.split(";", 1)[0]
            cookies[pair.partition("=")[0]] = pair.partition("=")[2]
    return Answer(int(lines[0].split()[1]), headers, cookies, body)


class Exchange:
    """One request on its own non-blocking socket, driven by the event loop's callbacks alone (no
    task, future or transport: the generator shares the two cores with the servers). ``done``
    gets what came until the server closed the connection, or a ``Failed``."""

    def __init__(self, loop, port: int, request: bytes, deadline: float, done: Callable):
        self.loop, self.request, self.done, self.chunks = loop, request, done, []
        self.sock = socket.socket()
        self.sock.setblocking(False)
        self.fd = self.sock.fileno()
        self.timer = loop.call_at(deadline, self._finish, Failed("timed out"))
        self.sock.connect_ex(("127.0.0.1", port))  # in progress; writable once connected
        loop.add_writer(self.fd, self._send)

    def _send(self) -> None:
        try:
            self.request = self.request[self.sock.send(self.request) :]
        except OSError as error:  # refused, reset
            return self._finish(Failed(repr(error)))
        if not self.request:
            self.loop.remove_writer(self.fd)
            self.loop.add_reader(self.fd, self._receive)

    def _receive(self) -> None:
        try:
            data = self.sock.recv(1 << 18)
        except OSError as error:
            return self._finish(Failed(repr(error)))
        if data:
            self.chunks.append(data)
        else:
            self._finish(b"".join(self.chunks))

    def _finish(self, outcome: bytes | Failed) -> None:
        self.timer.cancel()
        self.loop.remove_writer(self.fd)
        self.loop.remove_reader(self.fd)
        self.sock.close()
        self.done(outcome)
