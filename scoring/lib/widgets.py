"""A ``<select>`` for long lists: a league's few hundred players, or its dozen rulesets."""

from __future__ import annotations

from django import forms


class ListSelect(forms.Select):
    """Django's ``Select`` rendered by one template that writes its options inline
    (templates/scoring/widgets/list_select.html), not by one template per option."""

    template_name = "scoring/widgets/list_select.html"

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        # A CharField's maxlength means nothing on a <select>.
        context["widget"]["attrs"].pop("maxlength", None)
        return context
