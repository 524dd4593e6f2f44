"""Secret tokens taken out of what goes into logs: one function for every log line.

A score, watch, invite, public, club-night table, password-reset or login link is a key: whoever
reads it in a log can score the game, see the league, set the password or log in. A token is
found by what it is, wherever it stands in a line and however it is spelled:

- by its shape: a run of 22 or more of a token's characters (``[A-Za-z0-9_-]``; a link's token
  is 32 of them, ``models.new_token``; a password reset's a timestamp and a 32-digit digest),
  read as the server reads a path (``%74`` is ``t``, ``%2574`` too), with a capital or a digit
  in it (a snake_case name in a traceback has neither; a random token lacks both once in
  10^11), neither a UUID (a download's id, no secret) nor a CamelCase or SCREAMING_SNAKE name;
- by where it stands: the segment after ``/join/``, ``/invite/``, ``/tables/``, ``/embed/``,
  ``/public/`` (``/public/events/``), ``/qr/``, a password reset's ``/password/reset/`` and a
  login link's ``/login/link/`` (their account id too), whatever the case, the escapes and the
  doubled slashes, so a token too short for its shape (a guess) goes as well.

Each is replaced by ``[secret]``; the rest of the line stays as it was. Plain Python: gunicorn's
logger uses it too.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

SECRET = "[secret]"

_TOKEN_CHARACTER = re.compile(r"[A-Za-z0-9_-]")
# A character as it may be spelled in a logged URL: itself, or percent-encoded (once or more).
_SPELLED = re.compile(r"[A-Za-z0-9_-]|%(?:25)*[0-9A-Fa-f]{2}")
_RUN = re.compile(rf"(?:{_SPELLED.pattern})+")
_SHORTEST = 22
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Names in code, in a traceback: CamelCase of words, SCREAMING_SNAKE (a random token is one of
# them about once in a million).
_NAME = re.compile(r"(?:[A-Z][a-z]{2,})+|[A-Z]+(?:_[A-Z]+)*")


def _spelled(word: str) -> str:
    """A pattern for ``word`` however a URL may spell it: any case, any character escaped."""
    parts = []
    for character in word:
        if character == "/":
            parts.append(_SLASH)
            continue
        codes = "|".join(f"{ord(c):02X}" for c in sorted({character.lower(), character.upper()}))
        parts.append(f"(?:{re.escape(character)}|%(?:25)*(?:{codes}))")
    return "".join(parts)


_SLASH = r"(?:/|%(?:25)*2[Ff])+"
# One path segment, escapes included, up to the next slash (spelled any way), query or fragment.
_SEGMENT = r"(?:(?!%(?:25)*2[Ff])[^/?#&\s\"'])+"
_PREFIXES = ("join", "invite", "tables", "embed", "public/events", "public", "qr")
_TOKEN_PATH = re.compile(
    rf"(?P<before>{_SLASH}(?:{'|'.join(_spelled(prefix) for prefix in _PREFIXES)}){_SLASH})"
    rf"(?P<secret>{_SEGMENT})",
    re.IGNORECASE,
)
# A password reset's link and a login link: an account's id, then its token.
_ACCOUNT_LINKS = ("password/reset", "login/link")
_RESET_PATH = re.compile(
    rf"(?P<before>{_SLASH}(?:{'|'.join(_spelled(prefix) for prefix in _ACCOUNT_LINKS)}){_SLASH})"
    rf"{_SEGMENT}"
    rf"(?P<slash>{_SLASH}){_SEGMENT}",
    re.IGNORECASE,
)


def _decoded(piece: str) -> str:
    """One character of a run as the server reads it (an escape decoded, doubled ones too)."""
    while piece.startswith("%"):
        piece = unquote(piece)
    return piece


def _by_shape(match: re.Match[str]) -> str:
    """A run of spelled characters with every token-shaped stretch in it made ``[secret]``."""
    out: list[str] = []
    stretch: list[str] = []

    def close() -> None:
        raw = "".join(stretch)
        plain = "".join(_decoded(piece) for piece in stretch)
        secret = (
            len(plain) >= _SHORTEST
            and re.search(r"[A-Z0-9]", plain) is not None
            and not _UUID.fullmatch(plain)
            and not _NAME.fullmatch(plain)
        )
        out.append(SECRET if secret else raw)
        stretch.clear()

    for piece in _SPELLED.findall(match.group()):
        if _TOKEN_CHARACTER.fullmatch(_decoded(piece)):
            stretch.append(piece)
        else:
            close()
            out.append(piece)
    close()
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with every secret token in it replaced by ``[secret]``."""
    text = _RESET_PATH.sub(rf"\g<before>{SECRET}\g<slash>{SECRET}", text)
    text = _TOKEN_PATH.sub(rf"\g<before>{SECRET}", text)
    return _RUN.sub(_by_shape, text)
