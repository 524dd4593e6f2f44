"""Rulesets by a short, stable name: "classic", or a custom one's settings in a row.

The standings store these names (the rulesets a league played, the one a filter asks for) and
a filter's query string carries them; ``ruleset_from_key`` reads one back.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from scoring import rules


def ruleset_key(ruleset: rules.Ruleset) -> str:
    """A short, stable name for a ruleset: the preset's name, or its settings in a row."""
    name = ruleset.preset_name
    if name:
        return name
    return "custom-" + "-".join(str(value) for value in ruleset.to_dict().values())


@lru_cache(maxsize=256)
def ruleset_from_key(key: str) -> rules.Ruleset | None:
    if key in rules.PRESETS:
        return rules.PRESETS[key]
    if not key.startswith("custom-"):
        return None
    names = [field.name for field in dataclasses.fields(rules.Ruleset)]
    # Values such as "last-standing" hold dashes too, so split from the left only as needed.
    parts = key.removeprefix("custom-").split("-", 3)
    if len(parts) != 4:
        return None
    target, save_line, save_line_three, rest = parts
    naked, _sep, rest = rest.partition("-")
    for eggs in rules.EGGS_CHOICES:
        if rest.startswith(eggs + "-"):
            ending = rest.removeprefix(eggs + "-")
            break
    else:
        return None
    values = [target, save_line, save_line_three, naked, eggs, ending]
    try:
        data = dict(zip(names, values, strict=True))
        for whole in ("target", "save_line", "save_line_three"):
            data[whole] = int(data[whole])
        return rules.Ruleset(**data)
    except (ValueError, rules.InvalidRuleset):
        return None
