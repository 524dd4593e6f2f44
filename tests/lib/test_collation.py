"""Names sorted as the reader's language sorts them (scoring.lib.collation), not by code point."""

from __future__ import annotations

import pytest
from django.utils import translation

from scoring.leagues.selectors import league_players
from scoring.lib import collation
from scoring.lib.collation import name_sort_key, plain_key, sorted_by_name
from scoring.models import Player

NAMES = [
    "Zoe",
    "Ärger",
    "abel",
    "Österreich",
    "Emil",
    "Ґанна",
    "Гнат",
    "Іван",
    "Юрій",
    "Đức",
    "Dung",
]


def ordered(language: str) -> list[str]:
    with translation.override(language):
        return sorted(NAMES, key=name_sort_key)


def test_icu_is_there():
    assert collation.icu is not None  # requirements.txt pins pyicu-wheels


def test_german_sorts_umlauts_with_their_letter_and_case_does_not_matter():
    names = ordered("de")
    assert names[:2] == ["abel", "Ärger"]
    assert names.index("Österreich") < names.index("Zoe")
    assert sorted(NAMES) != names  # by code point "Ärger" and "Österreich" would come last


def test_ukrainian_puts_its_alphabet_first_and_ghe_with_upturn_after_ghe():
    names = ordered("uk")
    assert names[:4] == ["Гнат", "Ґанна", "Іван", "Юрій"]


def test_vietnamese_puts_d_with_stroke_after_d():
    names = ordered("vi")
    assert names.index("Dung") < names.index("Đức") < names.index("Emil")
    assert ordered("en").index("Đức") < ordered("en").index("Dung")


def test_the_fallback_without_icu_ignores_accents_and_case():
    names = sorted(NAMES, key=plain_key)
    assert names[:2] == ["abel", "Ärger"]
    assert names.index("Österreich") < names.index("Zoe")
    assert names.index("Гнат") < names.index("Юрій")  # (its і, ї, є go by code point)


def test_equal_names_keep_their_order_and_different_ones_never_tie():
    assert name_sort_key("anna") != name_sort_key("Anna")
    pairs = [(1, "Anna"), (2, "anna"), (3, "Anna")]
    assert [pk for pk, _name in sorted_by_name(pairs, lambda pair: pair[1])] in (
        [2, 1, 3],
        [1, 3, 2],
    )


@pytest.mark.django_db
def test_a_leagues_players_come_in_the_readers_order(league):
    for name in ("Österreich", "Zoe", "Ärger", "Bernd"):
        Player.objects.create(league=league, name=name)
    with translation.override("de"):
        names = [player.name for player in league_players(league)]
    assert names == ["Ärger", "Bernd", "Österreich", "Zoe"]


def test_japanese_sorts_hiragana_katakana_and_half_width_kana_by_their_sound():
    # By code point every hiragana name comes before every katakana one: いとう, うえだ, アオキ.
    names = ["うえだ", "ｶﾄｳ", "いとう", "アオキ"]
    with translation.override("ja"):
        assert sorted(names, key=name_sort_key) == ["アオキ", "いとう", "うえだ", "ｶﾄｳ"]
    assert sorted(names) != ["アオキ", "いとう", "うえだ", "ｶﾄｳ"]


@pytest.mark.parametrize(
    ("language", "first"),
    [("ko", ["강지훈", "김민수", "이서연"]), ("te", ["అనిల్", "ఆనంద్", "గీత", "రవి"])],
)
def test_korean_and_telugu_put_their_own_script_first(language, first):
    names = ["Zoe", "이서연", "రవి", "강지훈", "అనిల్", "김민수", "గీత", "ఆనంద్", "アオキ"]
    with translation.override(language):
        ordered_names = sorted(names, key=name_sort_key)
    assert ordered_names[: len(first)] == first
    assert sorted(names)[0] == "Zoe"  # by code point Latin comes first
