"""House rules in words and by key: labels, families, and the keys the standings store."""

from __future__ import annotations

import pytest
from django.utils import translation

from scoring import rules
from scoring.core.rulesets import (
    rules_family,
    rules_label,
    ruleset_from_key,
    ruleset_key,
    ruleset_label,
)
from scoring.leagues.forms import LeagueForm
from scoring.table.forms import SeriesForm
from tests.helpers import NEW_GAME


def test_rules_family_ignores_the_target_and_knows_every_preset():
    assert rules_family(rules.Ruleset(target=48)) == "classic"
    assert rules_family(rules.PRESETS["eggs-stacking"]) == "eggs-stacking"
    assert rules_family(rules.Ruleset(save_line=21)) is None
    assert rules_label(rules.Ruleset(target=24)) == "Classic, out at 24"
    assert rules_label(rules.Ruleset(save_line=21)) == "Custom rules, out at 12"


@pytest.mark.parametrize("name", sorted(rules.PRESETS))
def test_a_preset_is_named_by_its_key(name):
    assert ruleset_key(rules.PRESETS[name]) == name
    assert ruleset_from_key(name) == rules.PRESETS[name]


def test_custom_rules_survive_the_round_trip_through_their_key():
    custom = rules.Ruleset(
        target=21, save_line=21, naked="points", eggs="stacking", ending="first-out"
    )
    assert ruleset_from_key(ruleset_key(custom)) == custom


@pytest.mark.parametrize("key", ["custom-", "custom-a-b-c-d", "custom-12-31-21-tricks-odd-x", "x"])
def test_a_garbled_ruleset_key_means_no_ruleset(key):
    assert ruleset_from_key(key) is None


def test_a_ruleset_is_worded_in_the_language_of_each_request():
    custom = rules.Ruleset(target=21)
    key = "custom-21"  # any key that is not a preset's
    with translation.override("en"):
        english = ruleset_label(key, custom)
    with translation.override("ru"):
        russian = ruleset_label(key, custom)
    with translation.override("en"):
        again = ruleset_label(key, custom)
    assert english.startswith("Custom: out at 21")
    assert russian != english and "21" in russian
    assert again == english


@pytest.mark.parametrize(
    ("form_class", "base"), [(SeriesForm, NEW_GAME), (LeagueForm, {"name": "Dacha"})]
)
def test_a_new_game_and_a_league_read_house_rules_the_same_way(form_class, base):
    preset = form_class({**base, "preset": "eggs-double", "target": "lots", "eggs": "never"})
    assert preset.is_valid(), preset.errors  # unused custom fields cannot stop anything
    assert preset.cleaned_data["ruleset"] == rules.PRESETS["eggs-double"]
    custom = form_class({**base, "preset": "custom", "target": "21", "eggs": "stacking"})
    assert custom.is_valid(), custom.errors  # a custom field left empty is the classic one
    assert custom.cleaned_data["ruleset"] == rules.Ruleset(target=21, eggs="stacking")
    assert not form_class({**base, "preset": "custom", "target": "0"}).is_valid()
    assert not form_class({**base, "preset": "nonsense"}).is_valid()
