"""``{% deal_fields %}`` and ``{% card_counter %}`` keep an unbound form's markup: what they
give is always what the templates render for that very form, whatever was kept before."""

from __future__ import annotations

import itertools

from django.template.loader import render_to_string
from django.utils import translation

from scoring.table.forms import DealForm
from scoring.templatetags import deal_fields as tags

TEAMS = [(0, "Anna & Vera"), (1, "Boris & Gleb")]
OTHERS = [(0, "Dasha & Egor"), (1, "Zhenya & Ilya")]
THREE = [(0, "Ira"), (2, "Lida")]  # Kolya is out
KEPT = {"points_0": "45", "count_A": "2"}


def _form(sides, initial=None, data=None):
    return DealForm(data, sides=sides, initial={"number": 3, **(initial or {})})


def _fresh(name: str, form, autofocus: str = "") -> str:
    return render_to_string(name, {"form": form, "autofocus": autofocus})


CASES = list(
    itertools.product(
        ["en", "ru", "de", "ja"],
        [TEAMS, OTHERS, THREE],
        [None, KEPT],
        ["", "autofocus", "data-focus-stand-in"],
    )
)


def test_every_kept_rendering_is_the_templates_rendering_of_that_form():
    tags._kept.clear()
    # Twice round: the second time every answer comes from what the first kept.
    for _round in range(2):
        for language, sides, initial, autofocus in CASES:
            with translation.override(language):
                form = _form(sides, initial)
                assert tags.deal_fields(form, autofocus) == _fresh(tags.FIELDS, form, autofocus)
                assert tags.card_counter(form) == _fresh(tags.COUNTER, form)
    assert len(tags._kept) == len(CASES) + len(CASES) // 3  # the counter has no focus


def test_the_kept_markup_differs_where_the_form_does():
    with translation.override("en"):
        teams, others = tags.deal_fields(_form(TEAMS)), tags.deal_fields(_form(OTHERS))
        kept = tags.deal_fields(_form(TEAMS, KEPT))
        counter_kept = tags.card_counter(_form(TEAMS, KEPT))
    assert "Anna &amp; Vera" in teams and "Anna" not in others
    assert 'value="45"' in kept and 'value="45"' not in teams
    assert 'value="2"' in counter_kept
    with translation.override("ru"):
        assert tags.card_counter(_form(TEAMS)) != counter_kept


def test_a_bound_form_is_rendered_afresh_with_its_values_and_errors():
    tags._kept.clear()
    with translation.override("en"):
        refused = _form(TEAMS, data={"number": "3", "points_0": "999"})
        refused.is_valid()
        rendered = tags.deal_fields(refused)
        assert rendered == _fresh(tags.FIELDS, refused)
        assert 'value="999"' in rendered and 'aria-invalid="true"' in rendered
        assert tags.card_counter(refused) == _fresh(tags.COUNTER, refused)
    assert not tags._kept


def test_no_more_than_kept_renderings_stay():
    tags._kept.clear()
    with translation.override("en"):
        for number in range(tags.KEPT + 20):
            tags.card_counter(_form([(0, f"Side {number}"), (1, "B")]))
    assert len(tags._kept) == tags.KEPT
