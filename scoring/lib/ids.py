"""Ids read from a request: in its path (``<id:pk>``), in a query or form parameter
(``id_param``), and the rows a form's field picks by id (``RowsField``); and a secret link's
token in a path (``<token:token>``).

An id is what ASCII digits spell from 1 to ``MAX_ID``: ``str.isdigit()`` is true for "²",
which ``int()`` refuses; ``int()`` takes "٣" and "０"; and a number beyond 64 bits makes a query
raise instead of finding nothing. What is no id is "not found" (a path) or a clear refusal.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.urls.converters import IntConverter, StringConverter
from django.utils.translation import gettext_lazy as _

#: The largest primary key (a 64-bit integer) any database here stores: an id beyond it names
#: nothing, and a query with it raises (SQLite's OverflowError) instead of finding nothing.
MAX_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")  # ASCII digits: MAX_ID has 19


def id_param(value: object, *, high: int = MAX_ID) -> int | None:
    """The whole number from 1 to ``high`` that a request parameter spells, else None."""
    if not isinstance(value, str) or not _DIGITS.fullmatch(value):
        return None
    number = int(value)
    return number if 1 <= number <= high else None


class IdConverter(IntConverter):
    """``<id:pk>``: a path that names no possible row does not match, so it is a 404 before any
    view queries with it (``<int:pk>`` takes any number of digits)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = id_param(value)
        if number is None:
            raise ValueError(value)  # the resolver's "no match"
        return number


class TokenConverter(StringConverter):
    """``<token:token>``: the characters of a link's token (``models.new_token``), so a path
    with any other (a NUL, which PostgreSQL refuses in a string) is a 404 before any query."""

    regex = "[A-Za-z0-9_-]+"


class RowsField(forms.ModelMultipleChoiceField):
    """Rows ticked by id (checkboxes): a value that is no id is the form's error for the field,
    never a query (Django's own field would query with ``9223372036854775808``)."""

    # Not the value itself: it may be 5,000 characters of junk. (Django's own message has no
    # Telugu.)
    default_error_messages = {"invalid_pk_value": _("Pick only from the list.")}

    def clean(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            for item in value:
                if id_param(str(item)) is None:
                    raise forms.ValidationError(
                        self.error_messages["invalid_pk_value"],
                        code="invalid_pk_value",
                        params={"pk": item},
                    )
        return super().clean(value)
