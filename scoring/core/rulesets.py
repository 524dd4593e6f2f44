"""House rules as the site speaks of them: their words, their short stable keys (what the
standings store and a filter's query string carries), and a form's fields. The rules themselves
are the engine's (``scoring.rules``).
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any

from django import forms
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from scoring import rules

CUSTOM = "custom"
PRESET_LABELS = {
    "classic": _("Classic (to 12, eggs score nothing)"),
    "eggs-double": _("Eggs double the next deal"),
    "eggs-stacking": _("Eggs stack: ×2, ×3, …"),
    "tie-penalty": _("Tie penalty: eggs give both sides 2"),
    CUSTOM: _("Custom house rules"),
}
NAKED_LABELS = {
    "tricks": _("6 only for a side without a trick"),
    "points": _("6 for 0 card points, tricks or not"),
}
EGGS_LABELS = {
    "none": _("60:60 scores nothing"),
    "both-two": _("60:60: both sides score 2"),
    "double-next": _("60:60: the next deal counts double"),
    "stacking": _("60:60: multipliers stack (×2, ×3, …)"),
}
ENDING_LABELS = {
    "last-standing": _("Play on until one player is left"),
    "first-out": _("Stop when the first player is out"),
}
#: House-rule families: a preset's settings with any target ("Classic, out at 24").
RULE_FAMILIES = {
    "classic": _("Classic"),
    "eggs-double": _("Eggs double the next deal"),
    "eggs-stacking": _("Eggs stack"),
    "tie-penalty": _("Tie penalty"),
}
#: The longest key a query string may carry (a custom ruleset's is some 50 characters).
KEY_MAX_LENGTH = 80


# --- Words -------------------------------------------------------------------------------------


def rules_note(ruleset: rules.Ruleset, *, sides: int) -> str:
    """The house rules a scoreboard reminds of below it, in words: eggs, naked, the end."""
    parts = [EGGS_LABELS[ruleset.eggs], NAKED_LABELS[ruleset.naked]]
    if sides == 3:
        parts.append(ENDING_LABELS[ruleset.ending])
    return " · ".join(str(part) for part in parts)


def family_settings(name: str) -> dict[str, Any]:
    """The settings every ruleset of the family ``name`` shares: its preset's, but the target."""
    settings = rules.PRESETS[name].to_dict()
    settings.pop("target")
    return settings


def rules_family(ruleset: rules.Ruleset) -> str | None:
    """The preset whose settings these rules share (the target aside), or None for custom rules."""
    settings = ruleset.to_dict()
    settings.pop("target")
    return next((name for name in rules.PRESETS if family_settings(name) == settings), None)


def rules_label(ruleset: rules.Ruleset) -> str:
    """ "Classic, out at 12" or "Custom rules, out at 31", for lists and score sheets."""
    family = rules_family(ruleset)
    name = RULE_FAMILIES[family] if family else gettext("Custom rules")
    return gettext("%(rules)s, out at %(target)s") % {"rules": name, "target": ruleset.target}


def ruleset_label(key: str, ruleset: rules.Ruleset) -> str:
    """A preset's name, or a custom ruleset's main settings: a choice of the standings filter."""
    return _ruleset_label(key, ruleset, get_language())


@lru_cache(maxsize=512)
def _ruleset_label(key: str, ruleset: rules.Ruleset, language: str | None) -> str:
    """Worded once per ruleset and language: a league offers dozens in its filter."""
    if key in PRESET_LABELS:
        return str(PRESET_LABELS[key])
    return gettext("Custom: out at %(target)s; %(eggs)s; %(naked)s") % {
        "target": ruleset.target,
        "eggs": EGGS_LABELS[ruleset.eggs],
        "naked": NAKED_LABELS[ruleset.naked],
    }


# --- Keys --------------------------------------------------------------------------------------


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
        data: dict[str, Any] = dict(zip(names, values, strict=True))
        for whole in ("target", "save_line", "save_line_three"):
            data[whole] = int(data[whole])
        return rules.Ruleset(**data)
    except (ValueError, rules.InvalidRuleset):
        return None


# --- A form's house rules ----------------------------------------------------------------------


class HouseRulesForm(forms.Form):
    """A preset, or custom house rules (``cleaned_data["ruleset"]``); with a preset, a typo in
    the unused custom fields must not stop anything, so their errors go."""

    preset = forms.ChoiceField(
        label=_("House rules"),
        choices=list(PRESET_LABELS.items()),
        initial="classic",
        widget=forms.RadioSelect,
    )
    target = forms.IntegerField(
        label=_("Out at (defeat points)"),
        min_value=1,
        max_value=rules.ruleset.MAX_TARGET,
        initial=12,
        required=False,
    )
    save_line = forms.IntegerField(
        label=_("Save line, two sides"),
        min_value=1,
        max_value=rules.ruleset.MAX_SAVE_LINE,
        initial=31,
        required=False,
    )
    save_line_three = forms.IntegerField(
        label=_("Save line, three players"),
        min_value=1,
        max_value=rules.ruleset.MAX_SAVE_LINE,
        initial=21,
        required=False,
    )
    naked = forms.ChoiceField(
        label=_("Naked (6 points)"), choices=list(NAKED_LABELS.items()), required=False
    )
    eggs = forms.ChoiceField(
        label=_("Eggs (60:60)"), choices=list(EGGS_LABELS.items()), required=False
    )
    ending = forms.ChoiceField(
        label=_("Three players: the end"), choices=list(ENDING_LABELS.items()), required=False
    )

    RULE_FIELDS = ("target", "save_line", "save_line_three", "naked", "eggs", "ending")

    @staticmethod
    def rules_initial(ruleset: rules.Ruleset) -> dict[str, Any]:
        """The fields filled in with ``ruleset``: its preset, or "Custom" and its settings."""
        return {"preset": ruleset.preset_name or CUSTOM, **ruleset.to_dict()}

    def rule_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.RULE_FIELDS]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        preset = data.get("preset")
        if preset in rules.PRESETS:
            data["ruleset"] = rules.PRESETS[preset]
            for name in self.RULE_FIELDS:  # not used: a typo there must not stop anything
                self.errors.pop(name, None)
        elif preset == CUSTOM and not any(name in self.errors for name in self.RULE_FIELDS):
            defaults = rules.Ruleset()
            values = {
                name: getattr(defaults, name) if data.get(name) in (None, "") else data[name]
                for name in self.RULE_FIELDS
            }
            try:
                data["ruleset"] = rules.Ruleset(**values)
            except rules.InvalidRuleset:
                self.add_error("preset", gettext("Check the custom house rules."))
        return data
