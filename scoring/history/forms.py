"""The history's filters: who, which league, which days, which game and house rules, finished or
not, read from the query string (``selectors.history_filter`` applies them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.core.modes import Mode
from scoring.core.rulesets import CUSTOM, RULE_FAMILIES
from scoring.lib.days import FIRST_YEAR, LAST_YEAR
from scoring.lib.ids import MAX_ID
from scoring.lib.widgets import ListSelect

FINISHED = "finished"
PLAYING = "playing"


class HistoryFilterForm(forms.Form):
    """The history's filters, read from the query string; every field may be left empty."""

    player = forms.TypedChoiceField(
        label=_("Player"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=ListSelect,
        error_messages={"invalid_choice": _("Pick a player from the list.")},
    )
    league = forms.TypedChoiceField(
        label=_("League"),
        coerce=int,
        required=False,
        empty_value=None,
        widget=ListSelect,
        error_messages={"invalid_choice": _("Pick one of your leagues.")},
    )
    start = forms.DateField(
        label=_("From"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": _("Enter a date such as 2025-03-31.")},
    )
    end = forms.DateField(
        label=_("To"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": _("Enter a date such as 2025-03-31.")},
    )
    mode = forms.ChoiceField(
        label=_("Game"),
        required=False,
        choices=[("", _("Any game")), *Mode.choices],
        error_messages={"invalid_choice": _("Pick a game from the list.")},
    )
    rules = forms.ChoiceField(
        label=_("House rules"),
        required=False,
        choices=[("", _("Any house rules")), *RULE_FAMILIES.items(), (CUSTOM, _("Custom rules"))],
        error_messages={"invalid_choice": _("Pick house rules from the list.")},
    )
    status = forms.ChoiceField(
        label=_("Finished?"),
        required=False,
        choices=[
            ("", _("Finished or not")),
            (FINISHED, _("Finished")),
            (PLAYING, _("In progress")),
        ],
        error_messages={"invalid_choice": _("Pick finished or in progress.")},
    )
    before = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, widget=forms.HiddenInput
    )
    after = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_ID, widget=forms.HiddenInput
    )

    FILTERS = ("player", "league", "start", "end", "mode", "rules", "status")

    def __init__(
        self,
        data=None,
        *,
        players: Sequence[tuple[int, str]] = (),
        leagues: Sequence[tuple[int, str]] = (),
        **kwargs,
    ) -> None:
        super().__init__(data, **kwargs)
        cast(forms.ChoiceField, self.fields["player"]).choices = [("", _("Anyone")), *players]
        cast(forms.ChoiceField, self.fields["league"]).choices = [("", _("All my games")), *leagues]
        self.has_leagues = bool(leagues)
        if not leagues:
            self.fields["league"].widget = forms.HiddenInput()

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        for name in ("start", "end"):
            day = data.get(name)
            if day and not FIRST_YEAR <= day.year <= LAST_YEAR:
                self.add_error(name, gettext("Pick a date between the years 1900 and 9998."))
                data.pop(name, None)
        start, end = data.get("start"), data.get("end")
        if start and end and start > end:
            self.add_error("end", gettext("The end date comes before the start date."))
        if data.get("before") and data.get("after"):
            raise forms.ValidationError(gettext("This page link is broken; start from the top."))
        return data

    def filter_fields(self):
        return [self[name] for name in self.FILTERS if name != "league" or self.has_leagues]

    @property
    def is_filtered(self) -> bool:
        return self.is_bound and any(self.data.get(name) for name in self.FILTERS)
