"""``{% deal_form %}``, ``{% deal_fields form autofocus=… %}`` and ``{% card_counter form %}``:
the scoreboard's deal form (the ``deal-form`` partial of ``scoring/series.html``), its fields
(``_deal_fields.html``) and its card counter (``_card_counter.html``), rendered once for every
deal of a line-up.

A fresh deal form (unbound) shows the same fields for every deal of a series: the sides' names,
the 120 points of a deal, and the points kept from a form whose deal was taken meanwhile (its
initial values). Rendering them was a third of the board's rendering, which every recorded deal
pays (``docs/PERFORMANCE.md``). So the markup of an unbound form is kept per process, under
everything its template reads: the language, the form's fields, sides and initial values, and
the focus attribute. A bound form (the values typed, their errors) is always rendered afresh.

The form around them (``{% deal_form %}``) differs from deal to deal only by the series, the
deal's number and the number before it, and by the CSRF token and one-time key, which a board
rendered for the page cache holds as stand-ins (``scoring.pagecache``). Such a form is rendered
once per line-up with stand-in numbers, which each board then replaces by its own; any other
form (bound, or with a real token and key) is the partial rendered as it is.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django import template
from django.forms import Form
from django.template import engines
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

register = template.Library()

FORM = "scoring/series.html#deal-form"
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
    # Labels as text: a lazy one (the card ranks') hashes as the language active when hashed,
    # and a key whose hash changes breaks the dict it is kept in (popitem then fails).
    fields = tuple(
        (field, str(form.fields[field].label), form.initial.get(field))
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


#: What differs between the deal forms of one line-up: numbers no page shows otherwise (none is
#: a part of another), rendered in place of the series, the deal's number and the one before.
SERIES_STAND_IN = 918273645
NEXT_STAND_IN = 987654321
TAKEN_STAND_IN = NEXT_STAND_IN - 1
_STAND_INS = tuple(str(number) for number in (SERIES_STAND_IN, NEXT_STAND_IN, TAKEN_STAND_IN))


class _Board:
    """The one thing the partial reads of a board: its next deal's number."""

    next_number = NEXT_STAND_IN


class _Series:
    pk = SERIES_STAND_IN


@register.simple_tag(takes_context=True)
def deal_form(context) -> SafeString:
    """The board's form for its next deal: ``form``, ``board``, ``series``, the CSRF token and
    the request from the board's context; ``focus_mark``, the page cache's focus stand-in."""
    # Imported here: the page cache's module reads the session's links (scoring.access), which
    # the template library of every page must not load first.
    from scoring import pagecache
    from scoring.table.forms import DealForm

    form, board, series = context["form"], context["board"], context["series"]
    partial = engines["django"].engine.get_template(FORM)  # type: ignore[attr-defined]
    shown = [(name, form.initial.get(name)) for name in form.fields if name.startswith(SHOWN)]
    words = [label for _side, label in form.sides] + [str(value) for _name, value in shown]
    if (
        form.is_bound
        or context.get("csrf_token") != pagecache.CSRF_PLACEHOLDER
        or form.initial.get("entry_key") != pagecache.ENTRY_PLACEHOLDER
        or any(stand_in in word for word in words for stand_in in _STAND_INS)
    ):
        return mark_safe(partial.render(context))
    htmx = bool(getattr(context.get("request"), "htmx", False))
    focus = context.get("focus_mark", "")
    key = ("form", get_language(), tuple(form.sides), tuple(shown), htmx, focus)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
    if found is None:
        initial = {**form.initial, "number": NEXT_STAND_IN}
        stand_in = DealForm(sides=form.sides, initial=initial)
        with context.push(form=stand_in, board=_Board(), series=_Series()):
            found = partial.render(context)
        with _lock:
            _kept[key] = found
            if len(_kept) > KEPT:
                _kept.popitem(last=False)
    number = board.next_number
    # The series last: its id, whatever its digits, is never taken for another stand-in (the
    # deal numbers are small; none holds a stand-in's digits).
    return mark_safe(
        found.replace(_STAND_INS[1], str(number))
        .replace(_STAND_INS[2], str(number - 1))
        .replace(_STAND_INS[0], str(series.pk))
    )
