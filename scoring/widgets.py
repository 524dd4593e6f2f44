"""Form widgets built in Python where Django's per-option templates cost too much."""

from __future__ import annotations

from html import escape

from django import forms
from django.forms.utils import flatatt
from django.utils.safestring import SafeString, mark_safe


class ListSelect(forms.Select):
    """A ``<select>`` built in Python: a league's few hundred players, or its dozen rulesets,
    cost one join, not two template renderings per option."""

    def render(self, name, value, attrs=None, renderer=None) -> SafeString:
        final = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        final.pop("maxlength", None)  # a CharField's, meaningless on a <select>
        chosen = "" if value is None else str(value)
        options = "".join(
            f'<option value="{escape(str(key))}"{" selected" if str(key) == chosen else ""}>'
            f"{escape(str(label))}</option>"
            for key, label in self.choices
        )
        return mark_safe(f"<select{flatatt(final)}>{options}</select>")  # every value escaped
