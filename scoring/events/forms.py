"""The club night's forms: a new event, and who is present now."""

from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import Case, When
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.collation import sorted_by_name
from scoring.events.services import MAX_ROUNDS
from scoring.ids import RowsField
from scoring.models import MAX_LEAGUE_NAME, MAX_NAME, Event, League, Player
from scoring.rulesets import HouseRulesForm


class _PresentMixin(forms.Form):
    """Ticked league players and new names, one a line."""

    players = RowsField(
        label=_("Who is present"),
        queryset=Player.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    new_players = forms.CharField(
        label=_("New players, one name a line"),
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
    )

    def __init__(self, *args: Any, league: League, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["players"]
        assert isinstance(field, RowsField)
        # In the reader's collation (ICU), which SQL cannot sort by: the order is given as a list.
        players = sorted_by_name(Player.objects.filter(league=league), lambda p: p.name)
        order = Case(*(When(pk=player.pk, then=at) for at, player in enumerate(players)))
        field.queryset = Player.objects.filter(league=league).order_by(order, "pk")

    def clean_new_players(self) -> list[str]:
        names = [" ".join(line.split()) for line in self.cleaned_data["new_players"].splitlines()]
        names = [name for name in names if name]
        if any(len(name) > MAX_NAME for name in names):
            raise forms.ValidationError(
                gettext("A name is at most %(count)s characters.") % {"count": MAX_NAME}
            )
        return names


class EventForm(_PresentMixin, HouseRulesForm):
    field_order = ["name", "players", "new_players", "rounds", "length", "length_value"]

    name = forms.CharField(label=_("Name of the evening"), max_length=MAX_LEAGUE_NAME)
    rounds = forms.IntegerField(label=_("Rounds"), min_value=1, max_value=MAX_ROUNDS, initial=4)
    length = forms.ChoiceField(
        label=_("A round lasts"),
        choices=Event.Length.choices,
        initial=Event.Length.GOAT,
        widget=forms.RadioSelect,
    )
    length_value = forms.IntegerField(
        label=_("Deals or minutes"), min_value=1, max_value=300, required=False
    )
    three_player_tables = forms.BooleanField(
        label=_("Seat the players left over at tables of three (otherwise they sit out in turn)"),
        required=False,
    )
    tie_break = forms.ChoiceField(
        label=_("Tie-break after series won and goats"),
        choices=Event.TieBreak.choices,
        initial=Event.TieBreak.DIFFERENCE,
    )

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(gettext("Give the evening a name."))
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("length") in (Event.Length.DEALS, Event.Length.MINUTES) and not data.get(
            "length_value"
        ):
            self.add_error("length_value", gettext("Say how many deals or minutes."))
        return data

    def event_arguments(self) -> dict[str, Any]:
        """What ``services.event_create`` takes from the form (it is valid)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": list(data["players"]),
            "names": data["new_players"],
            "rounds": data["rounds"],
            "length": data["length"],
            "length_value": data["length_value"],
            "ruleset": data["ruleset"],
            "three_player_tables": data["three_player_tables"],
            "tie_break": data["tie_break"],
        }


class PresentForm(_PresentMixin):
    pass


class SeatForm(forms.Form):
    """ "Find your seat": a player of the evening picks their name."""

    player = forms.TypedChoiceField(
        label=_("Your name"),
        coerce=int,
        error_messages={
            "required": _("Pick your name from the list."),
            "invalid_choice": _("Pick your name from the list."),
        },
    )

    def __init__(self, *args: Any, names: dict[int, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["player"]
        assert isinstance(field, forms.TypedChoiceField)
        choices: list[tuple[int, str]] = sorted_by_name(names.items(), lambda item: item[1])
        field.choices = choices
