"""When two typed names are the same player: the one rule, used wherever names are matched.

A name is stored as typed (spaces tidied) with its key beside it (``Player.name_key``), unique
per league, so the database holds the rule on SQLite and PostgreSQL alike (SQLite's ``LOWER``
folds ASCII only). The key is Unicode's "caseless identifier": NFKC, case-folded, NFKC again.
NFKC because phone keyboards type compatibility variants (a Japanese IME's half-width ``ﾊﾅ`` is
``ハナ``, ``ＡＮＮＡ`` is ``ANNA``; ``Anna²`` being ``Anna2`` is no real pair of players); case
folding makes ``Straße`` and ``STRASSE`` one name. Every Turkish i is the plain ``i`` (folding
keeps ``ı`` and splits ``İ``): a name typed in capitals on any keyboard finds the player, and two
names differing only in an i's dot are one player, the better mistake at one table.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

#: Joins a key to a player's id when that key was already taken in the league before keys
#: existed (migration 0006, or an import of such a league): a tab never survives ``name_key``,
#: so no typed name matches a key kept apart this way.
KEPT_APART = "\t#"
_DOTLESS = str.maketrans({"ı": "i"})


def name_clean(name: str) -> str:
    """A name as it is stored: words separated by one space, none around them."""
    return " ".join(name.split())


def name_key(name: str) -> str:
    """What two names must share to be one player: see the module's docstring."""
    folded = unicodedata.normalize("NFKC", name_clean(name)).casefold()
    folded = folded.replace("i\u0307", "i").translate(_DOTLESS)
    return name_clean(unicodedata.normalize("NFKC", folded))


def kept_apart(key: str, pk: int) -> str:
    return f"{key}{KEPT_APART}{pk}"


def stored_key(name: str, stored: str | None) -> str:
    """The key to store for ``name``: a key kept apart for this name stays as it is."""
    key = name_key(name)
    if stored and stored.partition(KEPT_APART)[0] == key:
        return stored
    return key


def league_keys(players: Iterable[tuple[int, int | None, str]]) -> dict[int, str]:
    """Keys for players (id, league id, name) stored before keys were: in each league, the first
    player (by id) of a key gets it, a later one whose name has the same key gets it kept apart
    (they stay two players; merging them is for a person to decide). Quick-game players (no
    league) all get their plain key: they may share one."""
    taken: set[tuple[int, str]] = set()
    keys: dict[int, str] = {}
    for pk, league_id, name in sorted(players, key=lambda player: player[0]):
        key = name_key(name)
        if league_id is not None:
            if (league_id, key) in taken:
                key = kept_apart(key, pk)
            taken.add((league_id, key))
        keys[pk] = key
    return keys
