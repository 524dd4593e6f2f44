"""Reading one object of a document the JSON import restores: each value checked as the site
would have stored it, a refusal naming where in the file it is. Refused: a text with a NUL or
half a surrogate pair (no database keeps them), a moment near year 1 or 9999 (a time zone takes
it past what a date can be), a token that could be guessed.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any, Literal, overload

from django.utils.translation import gettext as _

from scoring import rules
from scoring.lib.days import FIRST_YEAR, LAST_YEAR
from scoring.models import MAX_NAME, TV_CODE_ALPHABET, TV_CODE_LENGTH, is_token

MAX_INTEGER = 2_147_483_647  # the largest value every database stores in an integer column
MAX_SMALL = 32_767  # ... and in a small integer column
MAX_KEY = 1_000  # a name key is a name folded: longer than the name at most a few times over
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")  # NUL, and either half of a surrogate pair


class ImportRefused(Exception):
    """The document cannot be imported; the message says why, and nothing was changed."""

    def __init__(self, message: str) -> None:
        # A value quoted from the file may hold half a surrogate pair, which no output encodes.
        super().__init__(message.encode("utf-8", "backslashreplace").decode("utf-8"))


def storable(value: str) -> bool:
    """Whether a database keeps ``value`` as it is."""
    return _UNSTORABLE.search(value) is None


class Check:
    """Reads one object of the document, refusing it with a message naming where it is."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ImportRefused(_("%(where)s: expected an object.") % {"where": where})
        self.data = data
        self.where = where

    def refuse(self, message: str) -> ImportRefused:
        return ImportRefused(f"{self.where}: {message}")

    def has(self, key: str) -> bool:
        return key in self.data

    @overload
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: Literal[False] = False
    ) -> int: ...
    @overload
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: Literal[True]
    ) -> int | None: ...
    def integer(
        self, key: str, *, low: int = 0, high: int = MAX_INTEGER, null: bool = False
    ) -> int | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.refuse(
                _("%(key)s must be a whole number from %(low)s.") % {"key": key, "low": low}
            )
        if value > high:
            raise self.refuse(_("%(key)s must be at most %(high)s.") % {"key": key, "high": high})
        return value

    @overload
    def text(
        self, key: str, *, longest: int, null: Literal[False] = False, empty: bool = False
    ) -> str: ...
    @overload
    def text(
        self, key: str, *, longest: int, null: Literal[True], empty: bool = False
    ) -> str | None: ...
    def text(
        self, key: str, *, longest: int, null: bool = False, empty: bool = False
    ) -> str | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        if not isinstance(value, str) or len(value) > longest or (not empty and not value.strip()):
            raise self.refuse(
                _("%(key)s must be a text of at most %(n)s characters.")
                % {"key": key, "n": longest}
            )
        if not storable(value):
            raise self.refuse(
                _(
                    "%(key)s holds a NUL character or half of a surrogate pair, which no "
                    "database keeps and the site never writes."
                )
                % {"key": key}
            )
        return value

    def token(self, key: str) -> str | None:
        """A link's token, or nothing (a link turned off)."""
        value = self.data.get(key)
        if value is not None and not is_token(value):
            raise self.refuse(
                _(
                    "%(key)s is not a link's token: 22 to 64 letters, digits, - or _, so that "
                    "nobody can guess it."
                )
                % {"key": key}
            )
        return value

    def boolean(self, key: str) -> bool:
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self.refuse(_("%(key)s must be true or false.") % {"key": key})
        return value

    @overload
    def when(self, key: str, *, null: Literal[False] = False) -> datetime: ...
    @overload
    def when(self, key: str, *, null: Literal[True]) -> datetime | None: ...
    def when(self, key: str, *, null: bool = False) -> datetime | None:
        value = self.data.get(key)
        if value is None and null:
            return None
        try:
            moment = datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            raise self.refuse(
                _("%(key)s must be a date and time with its time zone.") % {"key": key}
            )
        if not FIRST_YEAR <= moment.year <= LAST_YEAR:
            raise self.refuse(
                _("%(key)s must be a moment in the years %(first)s to %(last)s.")
                % {"key": key, "first": FIRST_YEAR, "last": LAST_YEAR}
            )
        return moment

    def items(self, key: str) -> list:
        value = self.data.get(key)
        if not isinstance(value, list):
            raise self.refuse(_("%(key)s must be a list.") % {"key": key})
        return value

    def ruleset(self, key: str) -> rules.Ruleset:
        try:
            return rules.Ruleset.from_dict(self.data.get(key))  # type: ignore[arg-type]
        except (rules.InvalidRuleset, TypeError) as error:  # not a dict, or not valid rules
            raise self.refuse(
                _("the house rules are not valid (%(error)s).") % {"error": error}
            ) from None


def entry_key(value: Any, check: Check) -> uuid.UUID | None:
    """A deal's (or a removed deal's event's) one-time key: a UUID, or nothing."""
    try:
        return None if value is None else uuid.UUID(value)
    except (TypeError, ValueError, AttributeError):
        raise check.refuse(_("entry_key is not a UUID.")) from None


@overload
def snapshot(value: dict, check: Check, key: str) -> dict: ...
@overload
def snapshot(value: Any, check: Check, key: str) -> dict | None: ...
def snapshot(value: Any, check: Check, key: str) -> dict | None:
    """An audit event's deal values: points and tricks per original side, or nothing."""
    if value is None:
        return None
    ok = (
        isinstance(value, dict)
        and set(value) == {"points", "tricks"}
        and isinstance(value["points"], list)
        and isinstance(value["tricks"], list)
        and len(value["points"]) == len(value["tricks"]) == rules.MAX_SIDES
        and all(
            p is None or (type(p) is int and 0 <= p <= rules.DEAL_TOTAL) for p in value["points"]
        )
        and all(t is None or type(t) is bool for t in value["tricks"])
    )
    if not ok:
        raise check.refuse(_("%(key)s is not a deal's points and tricks.") % {"key": key})
    return value


def tv_code(check: Check) -> str | None:
    """A club night's big-screen code (``Event.tv_code``), or nothing."""
    value = check.data.get("tv_code")
    if value is not None and (
        not isinstance(value, str)
        or len(value) != TV_CODE_LENGTH
        or any(c not in TV_CODE_ALPHABET for c in value)
    ):
        raise check.refuse(
            _("tv_code is not a big screen's code: %(count)s letters and digits.")
            % {"count": TV_CODE_LENGTH}
        )
    return value


def seat_snapshot(value: Any, check: Check, key: str) -> dict:
    """A club night's substitute's event (``DealEvent.Action.SUBSTITUTE``): the seat's position,
    its player's id and name, as the change log keeps them."""
    if not isinstance(value, dict) or set(value) != {"position", "player", "name"}:
        raise check.refuse(_("%(key)s is not a seat's player.") % {"key": key})
    seat = Check(value, f"{check.where}, {key}")
    seat.integer("position", high=3)
    seat.integer("player", low=1)
    seat.text("name", longest=MAX_NAME)
    return value


def chunks(ids: set) -> Iterator[list]:
    """``ids`` in order, a few hundred at a time: what one query's ``IN`` list takes."""
    ordered = sorted(ids)
    for start in range(0, len(ordered), 500):
        yield ordered[start : start + 500]
