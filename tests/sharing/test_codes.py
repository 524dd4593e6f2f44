"""A link's QR code: segno's SVG of the link as segno drew it, inline inside our element that
names it for screen readers (nothing cut out of segno's markup, nothing put in), or a picture of
its own that a share link's folded "QR code" fetches when unfolded."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import segno
from django.test import Client

from scoring.sharing.codes import qr_svg
from tests.helpers import creator_client, start_series

URL = "https://kozel.example/tables/aBc-123_xyz/"


class Parts(HTMLParser):
    """The outer element's attributes and the dark path of the SVG inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.outer: dict[str, str | None] | None = None
        self.tags: list[str] = []
        self.dark = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if self.outer is None:
            self.outer = dict(attrs)
        found = dict(attrs)
        if tag == "path" and found.get("stroke") == "#000":
            self.dark = found["d"] or ""


def drawn(path: str, border: int) -> set[tuple[int, int]]:
    """The dark modules (row, column) an SVG path of horizontal lines draws: ``M``/``m`` moves
    to a row's middle, ``h`` draws a run of modules along it."""
    x = y = 0.0
    modules = set()
    for command, first, second in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", path):
        if command == "h":
            for column in range(round(x), round(x + float(first))):
                modules.add((int(y) - border, column - border))
            x += float(first)
        elif command == "M":
            x, y = float(first), float(second)
        else:
            x, y = x + float(first), y + float(second)
    return modules


def expected_modules(url: str) -> set[tuple[int, int]]:
    code = segno.make(url, error="m")
    return {
        (row, column)
        for row, line in enumerate(code.matrix)
        for column, dark in enumerate(line)
        if dark
    }


def test_the_qr_code_draws_the_links_code_inside_an_element_that_names_it():
    parts = Parts()
    parts.feed(qr_svg(URL, 'QR code of the "scoring" link'))
    assert parts.outer == {
        "class": "qr-code",
        "role": "img",
        "aria-label": 'QR code of the "scoring" link',  # escaped in the markup, read back here
    }
    assert parts.tags == ["span", "svg", "path", "path"]  # the light square, then the dark lines
    assert drawn(parts.dark, border=4) == expected_modules(URL)


def test_a_name_with_markup_stays_text():
    assert "<b>" not in qr_svg(URL, "<b>bold</b>")


def test_a_share_links_code_is_a_lazy_picture_named_for_screen_readers(db):
    series = start_series()
    page = creator_client(series).get(series.table.get_absolute_url()).content.decode()
    token = series.table.score_token
    img = re.search(rf'<img class="qr-code" src="/qr/tables/{token}/"[^>]*>', page)
    assert img and 'alt="QR code of the scoring link"' in img[0] and 'loading="lazy"' in img[0]
    assert "<svg viewBox" not in page  # no code drawn into the page itself


def test_the_picture_draws_the_code_of_the_link_its_address_names(db):
    series = start_series()
    path = series.table.get_absolute_url()
    response = Client().get(f"/qr{path}")  # no account, no session: it shows only its address
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert "private" in response["Cache-Control"]
    parts = Parts()
    parts.feed(response.content.decode())
    assert parts.tags[0] == "svg" and "script" not in parts.tags
    assert drawn(parts.dark, border=4) == expected_modules(f"http://testserver{path}")


def test_no_picture_for_an_address_that_is_no_page_of_the_site(db):
    client = Client()
    assert client.get("/qr/no/such/page/").status_code == 404
    assert client.get("/qr/" + "history/" * 300).status_code == 404  # too long for a code
    assert client.get("/qr/history/").status_code == 200
