"""``{% deal_fields form autofocus=… %}`` and ``{% card_counter form %}``: the deal form's
fields (``_deal_fields.html``) and card counter (``_card_counter.html``), rendered once for
every deal of a line-up.

A fresh deal form (unbound) shows the same fields for every deal of a series: the sides' names,
the 120 points of a deal, and the points kept from a form whose deal was taken meanwhile (its
initial values). Rendering them was a third of the board's rendering, which every recorded deal
pays (``docs/PERFORMANCE.md``). So the markup of an unbound form is kept per process, under
everything its template reads: the language, the form's fields, sides and initial values, and
the focus attribute. A bound form (the values typed, their errors) is always rendered afresh.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django import template
from django.forms import Form
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()

FIELDS = "scoring/_deal_fields.html"
COUNTER = "scoring/_card_counter.html"
#: The fields the two templates show (not the hidden number and one-time key of each form).
SHOWN = ("points_", "tricks_", "count_")
#: How many renderings a process keeps (a few hundred bytes to a few KB each).
KEPT = 512
_kept: OrderedDict[tuple, SafeString] = OrderedDict()
_lock = threading.Lock()  # gthread workers share a process


def _key(name: str, form: Form, autofocus: str) -> tuple:
    """Everything the template renders an unbound form from."""
    fields = tuple(
        (field, form.fields[field].label, form.initial.get(field))
        for field in form.fields
        if field.startswith(SHOWN)
    )
    sides = tuple(getattr(form, "sides", ()))
    total = getattr(form, "deal_total", None)
    return (name, get_language(), form.prefix, form.auto_id, fields, sides, total, autofocus)


def _rendered(name: str, form: Form, autofocus: str = "") -> SafeString:
    if form.is_bound:
        return mark_safe(render_to_string(name, {"form": form, "autofocus": autofocus}))
    key = _key(name, form, autofocus)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    found = mark_safe(render_to_string(name, {"form": form, "autofocus": autofocus}))
    with _lock:
        _kept[key] = found
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    return found


@register.simple_tag
def deal_fields(form: Form, autofocus: str = "") -> SafeString:
    """The deal's points and trick fields; ``autofocus``: the attribute on the first side's."""
    return _rendered(FIELDS, form, autofocus)


@register.simple_tag
def card_counter(form: Form) -> SafeString:
    """The card counter under the deal's fields."""
    return _rendered(COUNTER, form)
