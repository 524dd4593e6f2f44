"""Names in the order the reader's language sorts them, not by code point.

ICU's collation for the active language (PyICU's ``icu`` module, installed from the
pyicu-wheels package: prebuilt wheels with ICU inside, so no compiler and no system ICU):
German puts "Ärger" beside "Arger", Ukrainian sorts "Ґ" after "Г" and its own alphabet before
Latin, Vietnamese puts "Đ" after "D". Without ``icu`` (a platform the wheels do not cover) the
fallback is language-independent: the name decomposed (NFKD), accents dropped, case-folded, so
"Ärger" still sits with the A's; the name itself breaks ties so the order is total.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TypeVar

from django.conf import settings
from django.utils import translation

try:
    import icu
except ImportError:  # pragma: no cover - the fallback is tested by calling it directly
    icu = None

T = TypeVar("T")


@lru_cache(maxsize=32)
def _collator(language: str):
    # ICU collators are safe to share between threads for comparing and sort keys.
    return icu.Collator.createInstance(icu.Locale(language))


def plain_key(text: str) -> tuple[str, str]:
    """The fallback: accents off, case folded (language-independent), then the text."""
    decomposed = unicodedata.normalize("NFKD", text)
    base = "".join(char for char in decomposed if not unicodedata.combining(char))
    return (base.casefold(), text)


def name_sort_key(text: str) -> bytes | tuple[str, str]:
    """A sort key of ``text`` in the active language's collation."""
    if icu is None:
        return plain_key(text)
    language = translation.get_language() or settings.LANGUAGE_CODE
    return _collator(language).getSortKey(text) + b"\0" + text.encode()


def sorted_by_name(items: Iterable[T], name: Callable[[T], str]) -> list[T]:
    return sorted(items, key=lambda item: name_sort_key(name(item)))
