"""Secret tokens taken out of what goes into logs: one function for every log line.

A score, watch, invite, public, club-night table or password-reset link is a key: whoever reads
it in a log can score the game, see the league or set the password. So every URL argument that
``compression.SECRET_ARGUMENTS`` names (a test walks the site's URLs) is replaced by
``[secret]`` in a path, also inside a query string (``?next=/invite/...``). Plain Python:
gunicorn's logger uses it too.
"""

from __future__ import annotations

import re

SECRET = "[secret]"
_SLASH = r"(?:/|%2[Ff])"
# One path segment: anything up to the next slash (encoded or not), query or fragment.
_SEGMENT = r"(?:[^/?#&\s\"'%]|%(?!2[Ff])[0-9A-Fa-f]{0,2})+"
# A link's token: /join/…, /invite/…, /public/… (standings and history), /public/events/…,
# /tables/… (a club night's table).
_TOKEN_PATH = re.compile(
    rf"(?P<before>{_SLASH}(?:join|invite|tables|public(?:{_SLASH}events)?){_SLASH})"
    rf"(?P<secret>{_SEGMENT})"
)
# A password reset's account (its id in base64) and token: /password/reset/<uidb64>/<token>/.
_RESET_PATH = re.compile(
    rf"(?P<before>{_SLASH}password{_SLASH}reset{_SLASH}){_SEGMENT}(?P<slash>{_SLASH}){_SEGMENT}"
)


def redact(text: str) -> str:
    """``text`` with the token of every secret link in it replaced by ``[secret]``."""
    text = _RESET_PATH.sub(rf"\g<before>{SECRET}\g<slash>{SECRET}", text)
    return _TOKEN_PATH.sub(rf"\g<before>{SECRET}", text)
