"""Forms for the standings: a season and house rules to filter by, two players head to head."""

from __future__ import annotations

from datetime import date
from typing import cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.core.rulesets import KEY_MAX_LENGTH, ruleset_from_key, ruleset_label
from scoring.lib.widgets import ListSelect
from scoring.models import Player
from scoring.standings.selectors import ALL_RULES, StandingsFilter

# A season's ends stay well inside what every database and time zone can represent.
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(2100, 12, 31)


class StandingsFilterForm(forms.Form):
    """A season (from – to, both days included) and a ruleset: any well-formed key (one nobody
    played finds no series); ``offer_rulesets`` lists what the league played."""

    date_from = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    rules = forms.CharField(
        label=_("House rules"), required=False, max_length=KEY_MAX_LENGTH, widget=ListSelect
    )

    def __init__(self, *args, rulesets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.offer_rulesets(rulesets)

    def offer_rulesets(self, rulesets) -> None:
        choices = [(ALL_RULES, gettext("Any house rules"))]
        choices += [(key, ruleset_label(key, ruleset)) for key, ruleset in rulesets]
        self.fields["rules"].widget.choices = choices

    def clean_rules(self) -> str:
        key = self.cleaned_data["rules"]
        if key and ruleset_from_key(key) is None:
            raise forms.ValidationError(gettext("Choose house rules from the list."))
        return key

    def clean(self):
        super().clean()
        data = self.cleaned_data
        for name in ("date_from", "date_to"):
            day = data.get(name)
            if day and not FIRST_DAY <= day <= LAST_DAY:
                self.add_error(name, gettext("Pick a day between 1900 and 2100."))
                data.pop(name, None)
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", gettext("The season cannot end before it starts."))
        return data

    def standings_filter(self) -> StandingsFilter:
        """The filter the form describes; no filter at all when it is not valid."""
        if not self.is_valid():
            return StandingsFilter()
        data = self.cleaned_data
        return StandingsFilter(
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            ruleset=data.get("rules") or ALL_RULES,
        )


class HeadToHeadForm(forms.Form):
    first = forms.TypedChoiceField(label=_("Player"), coerce=int, choices=[], widget=ListSelect)
    second = forms.TypedChoiceField(label=_("against"), coerce=int, choices=[], widget=ListSelect)

    def __init__(self, *args, players=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.players = {player.pk: player for player in players}
        choices = [(player.pk, player.name) for player in players]
        cast(forms.ChoiceField, self.fields["first"]).choices = choices
        cast(forms.ChoiceField, self.fields["second"]).choices = choices

    def clean(self):
        super().clean()
        data = self.cleaned_data
        if data.get("first") is not None and data.get("first") == data.get("second"):
            self.add_error("second", gettext("Pick two different players."))
        return data

    def pair(self) -> tuple[Player, Player]:
        """The two players picked (the form is valid)."""
        return self.players[self.cleaned_data["first"]], self.players[self.cleaned_data["second"]]
