"""The season form: a name, its days and its ladder rules."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.models import MAX_GAMES, MAX_LEAGUE_NAME, MAX_NIGHTS, Season
from scoring.seasons.services import SeasonRules
from scoring.standings.forms import FIRST_DAY, LAST_DAY


def _date_field(label) -> forms.DateField:
    return forms.DateField(label=label, widget=forms.DateInput(attrs={"type": "date"}))


def _count_field(label, most: int, *, help_text="", required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=0 if required else 1,
        max_value=most,
        required=required,
        help_text=help_text,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


class SeasonForm(forms.Form):
    name = forms.CharField(label=_("Name of the season"), max_length=MAX_LEAGUE_NAME)
    starts_on = _date_field(_("From"))
    ends_on = _date_field(_("To"))
    counts = forms.ChoiceField(
        label=_("Games that count"),
        choices=Season.Counts.choices,
        widget=forms.RadioSelect,
        initial=Season.Counts.ALL,
    )
    best_nights = _count_field(
        _("Best nights that count"),
        MAX_NIGHTS,
        help_text=_("Empty: every night counts."),
        required=False,
    )
    min_nights = _count_field(_("Nights needed to be ranked"), MAX_NIGHTS)
    min_games = _count_field(_("Games needed to be ranked"), MAX_GAMES)

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("initial", {"counts": Season.Counts.ALL, "min_nights": 0, "min_games": 0})
        super().__init__(*args, **kwargs)

    @classmethod
    def of(cls, season: Season) -> SeasonForm:
        """The form filled with ``season``'s rules, to change them."""
        return cls(
            initial={
                "name": season.name,
                "starts_on": season.starts_on,
                "ends_on": season.ends_on,
                "counts": season.counts,
                "best_nights": season.best_nights,
                "min_nights": season.min_nights,
                "min_games": season.min_games,
            }
        )

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(gettext("Give the season a name."))
        return name

    def clean(self):
        super().clean()
        data = self.cleaned_data
        for name in ("starts_on", "ends_on"):
            day = data.get(name)
            if day and not FIRST_DAY <= day <= LAST_DAY:
                self.add_error(name, gettext("Pick a day between 1900 and 2100."))
                data.pop(name, None)
        start, end = data.get("starts_on"), data.get("ends_on")
        if start and end and start > end:
            self.add_error("ends_on", gettext("The season cannot end before it starts."))
        return data

    def rules(self) -> SeasonRules:
        """The season the form describes (the form is valid)."""
        data = self.cleaned_data
        return SeasonRules(
            name=data["name"],
            starts_on=data["starts_on"],
            ends_on=data["ends_on"],
            counts=data["counts"],
            best_nights=data.get("best_nights"),
            min_nights=data["min_nights"],
            min_games=data["min_games"],
        )
