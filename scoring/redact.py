"""Secret tokens taken out of what goes into logs: one function for every log line.

A score, watch, invite, public-standings or password-reset link is a key: whoever reads it in a
log can score the game, join the league or set the account's password. Log lines name the path
of the request (gunicorn's access log, the request context of the app's own records), so the
token part of such a path is replaced by ``[secret]``, also inside a query string (a login's
``?next=/invite/...``, encoded or not). Plain Python, no Django: gunicorn's logger uses it too.
"""

from __future__ import annotations

import re

SECRET = "[secret]"
_SLASH = r"(?:/|%2[Ff])"
# One path segment: anything up to the next slash (encoded or not), query or fragment.
_SEGMENT = r"(?:[^/?#&\s\"'%]|%(?!2[Ff])[0-9A-Fa-f]{0,2})+"
_SECRET_PATH = re.compile(
    rf"(?P<before>{_SLASH}(?:join|invite|public){_SLASH}"
    rf"|{_SLASH}password{_SLASH}reset{_SLASH}{_SEGMENT}{_SLASH})"
    rf"(?P<secret>{_SEGMENT})"
)


def redact(text: str) -> str:
    """``text`` with the token of every secret link in it replaced by ``[secret]``."""
    return _SECRET_PATH.sub(rf"\g<before>{SECRET}", text)
