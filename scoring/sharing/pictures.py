"""A preview picture for messengers, drawn with Pillow: 1200×630 PNG (what Telegram, VK and the
rest show for ``og:image``), the app's goat, a kicker, a title and up to five rows (a name on
the left, a figure on the right, the winner green and the goat red), a footer.

Every script the site speaks is drawn: each run of text by the font that has its characters
(``fonts.runs``), shaped by Raqm (Pillow's wheels carry it: Telugu's conjuncts, CJK). What a
picture says is a ``Card`` of plain strings, made in the page's language by ``sharing.cards``.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass, field

from django.conf import settings
from PIL import Image, ImageDraw, ImageFont

from scoring.sharing import fonts

WIDTH, HEIGHT = 1200, 630
MARGIN = 64
ROWS = 5
#: Colours: the app's dark theme (static/css/app.css), the winner's green and the goat's red.
BACKGROUND = (16, 36, 25)
PANEL = (29, 59, 42)
TEXT = (246, 244, 239)
MUTED = (190, 200, 192)
WON = (120, 214, 150)
GOAT = (255, 138, 128)


@dataclass(frozen=True)
class Row:
    name: str
    figure: str
    mark: str = ""  # "winner", "goat" or ""


@dataclass(frozen=True)
class Card:
    kicker: str
    title: str
    rows: list[Row] = field(default_factory=list)
    footer: str = ""
    language: str = "en"

    def texts(self) -> list[str]:
        """Every text the picture draws."""
        return [
            self.kicker,
            self.title,
            self.footer,
            *(text for row in self.rows for text in (row.name, row.figure)),
        ]


@functools.cache
def _goat() -> Image.Image:
    icon = Image.open(settings.BASE_DIR / "static" / "img" / "app" / "icon-192.png")
    return icon.convert("RGBA").resize((112, 112), Image.Resampling.LANCZOS)


def _shaping(font, language: str) -> dict:
    """The language for Raqm's shaping (Pillow's own font, without Raqm, takes none)."""
    raqm = getattr(font, "layout_engine", None) == ImageFont.Layout.RAQM
    return {"language": language} if raqm else {}


def _width(text: str, language: str, size: int, bold: bool) -> float:
    total = 0.0
    for face, run in fonts.runs(text, language, bold=bold):
        font = fonts.pillow_font(face, size)
        total += font.getlength(run, **_shaping(font, language))
    return total


def _fitted(text: str, language: str, size: int, bold: bool, room: float) -> tuple[str, int]:
    """``text`` at the largest size down to two thirds of ``size`` that fits ``room`` pixels,
    else cut with an ellipsis at that size."""
    smallest = size * 2 // 3
    while size > smallest and _width(text, language, size, bold) > room:
        size -= 2
    if _width(text, language, size, bold) <= room:
        return text, size
    while text and _width(text + "…", language, size, bold) > room:
        text = text[:-1]
    return text.rstrip() + "…", size


def _draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    *,
    language: str,
    size: int,
    bold: bool,
    colour: tuple[int, int, int],
    room: float,
    anchor_right: bool = False,
) -> None:
    """``text`` on one line at ``xy`` (its baseline; its right end with ``anchor_right``),
    shrunk or cut to ``room`` pixels."""
    text, size = _fitted(text, language, size, bold, room)
    x, y = xy
    if anchor_right:
        x -= _width(text, language, size, bold)
    for face, run in fonts.runs(text, language, bold=bold):
        font = fonts.pillow_font(face, size)
        draw.text((x, y), run, font=font, fill=colour, anchor="ls", **_shaping(font, language))
        x += font.getlength(run, **_shaping(font, language))


def draw(card: Card) -> bytes:
    """The card as a 1200×630 PNG."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.rounded_rectangle(
        (MARGIN // 2, MARGIN // 2, WIDTH - MARGIN // 2, HEIGHT - MARGIN // 2), 28, fill=PANEL
    )
    goat = _goat()
    image.paste(goat, (MARGIN, MARGIN), goat)
    language = card.language
    left = MARGIN + goat.width + 28
    room = WIDTH - MARGIN - left
    text = functools.partial(_draw_text, pen, language=language)
    text((left, MARGIN + 36), card.kicker, size=30, bold=False, colour=MUTED, room=room)
    text((left, MARGIN + 100), card.title, size=52, bold=True, colour=TEXT, room=room)
    # Up to three rows large, four or five smaller: the last one ends above the footer.
    top = MARGIN + 170
    step = 58 if len(card.rows) > 3 else 84
    size = 38 if len(card.rows) > 3 else 52
    for number, row in enumerate(card.rows[:ROWS]):
        baseline = top + number * step + size
        colour = WON if row.mark == "winner" else GOAT if row.mark == "goat" else TEXT
        figure_room = 300
        text(
            (WIDTH - MARGIN, baseline),
            row.figure,
            size=size,
            bold=True,
            colour=colour,
            room=figure_room,
            anchor_right=True,
        )
        text(
            (MARGIN, baseline),
            row.name,
            size=size,
            bold=row.mark == "winner",
            colour=colour,
            room=WIDTH - 2 * MARGIN - figure_room - 24,
        )
    if card.footer:
        text(
            (MARGIN, HEIGHT - MARGIN),
            card.footer,
            size=30,
            bold=False,
            colour=MUTED,
            room=WIDTH - 2 * MARGIN,
        )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
