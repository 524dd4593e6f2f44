"""The fonts a preview picture is drawn with, and which of them draws each character.

The site speaks Latin, Cyrillic and Vietnamese (Noto Sans), Japanese, Korean and Chinese names
(Noto Sans CJK, the face of the page's language) and Telugu (Noto Sans Telugu); DejaVu Sans
draws the odd symbol the others lack. They are Debian's packages fonts-noto-core, fonts-noto-cjk
and fonts-dejavu-core, installed by ``make fonts`` (which ``make run`` and ``make browser``
run), looked for in ``settings.PREVIEW_FONT_DIRS``. A character is drawn by the first font whose
character map has it (fontTools reads the maps, once per process); ``missing`` names the
characters no font has, which the tests hold empty for every language's picture.
"""

from __future__ import annotations

import functools
import logging
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from fontTools.ttLib import TTFont
from PIL import ImageFont

logger = logging.getLogger(__name__)

#: The faces of Noto Sans CJK's collection, by the language whose glyph forms they draw.
CJK_FACES = {"ja": 0, "ko": 1, "zh-hans": 2, "zh-hant": 3}


@dataclass(frozen=True)
class Face:
    file: str  # its name, looked for in PREVIEW_FONT_DIRS
    index: int = 0  # its face in a collection (.ttc)


def faces(language: str, *, bold: bool) -> list[Face]:
    """The faces to try, in order, for a picture in ``language``."""
    weight = "Bold" if bold else "Regular"
    cjk = CJK_FACES.get(language, CJK_FACES["zh-hans"])
    return [
        Face(f"NotoSans-{weight}.ttf"),
        Face(f"NotoSansTelugu-{weight}.ttf"),
        Face(f"NotoSansCJK-{weight}.ttc", cjk),
        Face("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"),
    ]


@functools.cache
def path_of(file: str) -> Path | None:
    """Where the font file is (None: not installed)."""
    for folder in settings.PREVIEW_FONT_DIRS:
        for found in sorted(Path(folder).rglob(file)):
            return found
    return None


@functools.cache
def _cmap(file: str, index: int) -> frozenset[int]:
    path = path_of(file)
    if path is None:
        logger.warning("Font %s is missing: install fonts-noto-core and fonts-noto-cjk", file)
        return frozenset()
    font = TTFont(str(path), fontNumber=index, lazy=True)
    try:
        return frozenset(font.getBestCmap() or {})
    finally:
        font.close()


def forget() -> None:
    """Forget the fonts found and their maps (after ``PREVIEW_FONT_DIRS`` changed)."""
    for cached in (path_of, _cmap, pillow_font):
        cached.cache_clear()


def covers(face: Face, character: str) -> bool:
    return ord(character) in _cmap(face.file, face.index)


@functools.lru_cache(maxsize=64)
def pillow_font(face: Face, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The face at ``size`` (Pillow's own font, Latin only, where the face is not installed)."""
    path = path_of(face.file)
    if path is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(
        str(path), size=size, index=face.index, layout_engine=ImageFont.Layout.RAQM
    )


def _joins(character: str) -> bool:
    """A character drawn with the one before it: a combining mark (Telugu's vowel signs), a
    joiner or a variation selector, or a space (no glyph of its own to look for)."""
    return (
        unicodedata.category(character) in ("Mn", "Mc", "Me", "Cf", "Zs")
        or character in "\u200c\u200d"
    )


def runs(text: str, language: str, *, bold: bool) -> list[tuple[Face, str]]:
    """``text`` cut into runs, each drawn by one face: the first that has its characters."""
    tried = faces(language, bold=bold)
    found: list[tuple[Face, str]] = []
    for character in text:
        if found and _joins(character):
            face, run = found[-1]
            found[-1] = (face, run + character)
            continue
        face = next((f for f in tried if covers(f, character)), tried[0])
        if found and found[-1][0] == face:
            found[-1] = (face, found[-1][1] + character)
        else:
            found.append((face, character))
    return found


def missing(text: str, language: str) -> set[str]:
    """The characters of ``text`` that no face draws (spaces and joiners aside)."""
    tried = faces(language, bold=False) + faces(language, bold=True)
    return {
        character
        for character in text
        if not _joins(character) and not any(covers(face, character) for face in tried)
    }
