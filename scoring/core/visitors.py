"""Who is asking, as plain values: what every selector and decision about access takes.

The web layer works it out once per request (``web.sessions.visitor_of``: the account, and the
table links this browser opened, kept in its session); the rest of the code never sees a request,
so it can be called from a command, a task or a test just as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.contrib.auth.models import User


@dataclass(frozen=True)
class Visitor:
    """A person asking: ``user``, their account (None without one); ``links``, the table links
    this browser opened (token → the table's id, checked on use: a renewed link no longer
    matches its table); ``started``, the kitchen tables this browser started (it manages their
    games, as the account that started them does)."""

    user: User | None = None
    links: Mapping[str, int] = field(default_factory=dict)
    started: frozenset[int] = frozenset()

    @property
    def user_id(self) -> int | None:
        return None if self.user is None else self.user.pk


#: Nobody in particular: no account, no link (a command, a crawler).
ANYONE = Visitor()
