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


# {% deal_form %}: the board's whole deal form, kept per line-up with stand-in numbers ----------


class _Board:
    def __init__(self, next_number):
        self.next_number = next_number


class _Series:
    def __init__(self, pk):
        self.pk = pk


def _form_context(sides, number, pk, *, initial=None, htmx=False, focus="", csrf=None):
    from django.template import RequestContext
    from django.test import RequestFactory

    from scoring import pagecache

    request = RequestFactory().get("/")
    request.htmx = htmx
    form = DealForm(
        None,
        sides=sides,
        initial={"number": number, "entry_key": pagecache.ENTRY_PLACEHOLDER, **(initial or {})},
    )
    values = {
        "form": form,
        "board": _Board(number),
        "series": _Series(pk),
        "csrf_token": csrf or pagecache.CSRF_PLACEHOLDER,
        "focus_mark": focus,
    }
    context = RequestContext(request)
    context.update(values)  # over the context processors' token, as a view's render() does
    return context


def _partial(context) -> str:
    from django.template.loader import get_template

    template = get_template(tags.FORM).template
    with context.bind_template(template):
        return template.render(context)


def _tag(context) -> str:
    from django.template.loader import get_template

    with context.bind_template(get_template(tags.FORM).template):
        return tags.deal_form(context)


FORM_CASES = list(
    itertools.product(
        ["en", "ru", "ja"],
        [TEAMS, THREE],
        [None, KEPT],
        [(False, ""), (True, ""), (False, "data-focus-stand-in")],
    )
)


def test_every_kept_deal_form_is_the_partials_rendering_for_that_board():
    tags._kept.clear()
    # (next deal, series), one series whose id holds a stand-in's digits
    numbers = [(1, 7), (2, 7), (10, 7), (10, 4521), (39, 88), (3, int(f"1{tags.NEXT_STAND_IN}"))]
    for _round in range(2):
        for language, sides, initial, (htmx, focus) in FORM_CASES:
            with translation.override(language):
                for number, pk in numbers:
                    context = _form_context(
                        sides, number, pk, initial=initial, htmx=htmx, focus=focus
                    )
                    kept = _tag(context)
                    assert kept == _partial(context)
                    assert f"/series/{pk}/deals/" in kept
                    assert f'data-number="{number}"' in kept
    # One rendering per line-up, language, kept points and focus (and its fields and counter).
    assert len([key for key in tags._kept if key[0] == "form"]) == len(FORM_CASES)


def test_a_deal_form_with_a_real_token_or_a_stand_in_number_in_a_name_is_rendered_as_it_is():
    tags._kept.clear()
    with translation.override("en"):
        real = _form_context(TEAMS, 3, 5, csrf="a-real-token")
        assert _tag(real) == _partial(real) and "a-real-token" in _tag(real)
        named = [(0, f"Team {tags.NEXT_STAND_IN}"), (1, "Boris")]
        odd = _form_context(named, 3, 5)
        assert _tag(odd) == _partial(odd)
        assert str(tags.NEXT_STAND_IN) in _tag(odd)  # the name as typed, not deal 3's number
    assert not [key for key in tags._kept if key[0] == "form"]


def test_kept_keys_hold_text_not_lazy_labels_whose_hash_follows_the_language():
    tags._kept.clear()
    with translation.override("ru"):
        tags.card_counter(_form(TEAMS))  # the card ranks' labels are lazy (pgettext_lazy)
    with translation.override("en"):
        keys = list(tags._kept)  # a lazy label in a key would hash otherwise here: KeyError
        assert tags._kept[keys[0]]
    assert all(not hasattr(part, "_proxy____cast") for key in keys for part in key[4][-1])
