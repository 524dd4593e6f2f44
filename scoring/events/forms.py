"""The club night's forms: a new event, and who is present now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.db.models import Case, When
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring.core.rulesets import HouseRulesForm
from scoring.events import tables
from scoring.events.services import MAX_ROUNDS
from scoring.lib.collation import sorted_by_name
from scoring.lib.ids import RowsField
from scoring.models import (
    MAX_LEAGUE_NAME,
    MAX_NAME,
    TV_CODE_ALPHABET,
    TV_CODE_LENGTH,
    Event,
    League,
    Player,
)


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
        label=_("Tie-break after the share of series won and goats"),
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


def _nobody(name: str) -> str:
    return gettext("Nobody: the game still counts for %(name)s") % {"name": name}


@dataclass(frozen=True)
class SeatQuestion:
    """Who takes the seat a player leaves in a game still being played: the select's name, its
    label, its options (value, words) and the value chosen."""

    name: str
    label: str
    options: list[tuple[str, str]]
    chosen: str


class PresentForm(_PresentMixin):
    """Who is present now. While a round is in play, a player unticked who sits in a game still
    being played leaves a seat: who takes it (``cleaned_data["substitutes"]``: the leaving
    player's id and the substitute's, or a new name) is asked unless it is plain: one seat left
    and one player arriving, or nobody free to take any."""

    def __init__(
        self, *args: Any, league: League, event: Event | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, league=league, **kwargs)
        self.event = event
        self.questions: list[SeatQuestion] = []

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        data["substitutes"] = {}
        if self.event is None or "players" not in data or "new_players" not in data:
            return data
        seated = tables.seated_now(self.event)
        ticked = {player.pk for player in data["players"]}
        leavers = [seat for seat in seated.values() if seat.plays and seat.player_id not in ticked]
        # Who may take a seat: who arrives (a new name, a player ticked now), then who was
        # present and sits out this round.
        free = [player for player in data["players"] if player.pk not in seated]
        arrivals = [(f"name-{name}", name) for name in data["new_players"]]
        arrivals += [(f"player-{p.pk}", p.name) for p in free if p.pk not in self.event.present]
        candidates = arrivals + [
            (f"player-{p.pk}", p.name) for p in free if p.pk in self.event.present
        ]
        if not leavers or not candidates:
            return data  # no seat to give, or nobody to give it to: the games stay as they are
        answers = {
            seat.player_id: str(self.data[f"seat-{seat.player_id}"])
            for seat in leavers
            if f"seat-{seat.player_id}" in self.data
        }
        if not answers and len(leavers) == 1 and len(arrivals) == 1:
            answers = {leavers[0].player_id: arrivals[0][0]}  # one leaves, one comes
        self.questions = [
            SeatQuestion(
                name=f"seat-{seat.player_id}",
                label=gettext(
                    "Who takes the seat of %(name)s at table %(table)s, from deal %(deal)s on?"
                )
                % {"name": seat.name, "table": seat.table, "deal": seat.next_deal},
                options=[("", _nobody(seat.name)), *candidates],
                chosen=answers.get(seat.player_id, ""),
            )
            for seat in leavers
        ]
        if len(answers) < len(leavers):
            raise forms.ValidationError(
                gettext(
                    "A round is in play: choose who takes the seat of each player who leaves a "
                    "game still being played, then save again."
                )
            )
        valid = dict(candidates)
        chosen = [answer for answer in answers.values() if answer]
        if any(answer not in valid for answer in chosen):
            raise forms.ValidationError(gettext("Pick each substitute from the list."))
        if len(set(chosen)) < len(chosen):
            raise forms.ValidationError(gettext("A substitute takes one seat only."))
        data["substitutes"] = {
            leaving: int(answer.removeprefix("player-"))
            if answer.startswith("player-")
            else answer.removeprefix("name-")
            for leaving, answer in answers.items()
            if answer
        }
        return data


def seat_key(event: Event, player: int) -> str:
    """What "Find your seat" sends for a player: a key of this evening's alone, not the
    player's row id (a global sequence number tells how many players the site holds)."""
    return salted_hmac("scoring.events.seat", f"{event.pk}:{player}").hexdigest()[:12]


class SeatForm(forms.Form):
    """ "Find your seat": a player of the evening picks their name (``cleaned_data["player"]``
    is their id)."""

    player = forms.ChoiceField(
        label=_("Your name"),
        error_messages={
            "required": _("Pick your name from the list."),
            "invalid_choice": _("Pick your name from the list."),
        },
    )

    def __init__(self, *args: Any, event: Event, names: dict[int, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._players = {seat_key(event, player): player for player in names}
        field = self.fields["player"]
        assert isinstance(field, forms.ChoiceField)
        choices = [(seat_key(event, player), name) for player, name in names.items()]
        ordered: list[tuple[str, str]] = sorted_by_name(choices, lambda item: item[1])
        field.choices = ordered

    def clean_player(self) -> int:
        return self._players[self.cleaned_data["player"]]


class LinksForm(forms.Form):
    """The organiser's change to the evening's links: renew or revoke one table's (or every
    table's), or end every link of the evening."""

    change = forms.ChoiceField(
        choices=[("renew", "renew"), ("revoke", "revoke"), ("end", "end")],
        error_messages={
            "required": _("Choose what to do with the links."),
            "invalid_choice": _("Choose what to do with the links."),
        },
    )
    table = forms.TypedChoiceField(
        coerce=int,
        required=False,
        empty_value=None,
        error_messages={"invalid_choice": _("There is no such table this evening.")},
    )

    def __init__(self, *args: Any, tables: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["table"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", "")] + [(number, number) for number in range(1, tables + 1)]


class TvCodeForm(forms.Form):
    """The big screen's code, typed with a TV's remote: letters in either case, spaces and
    dashes left out (``cleaned_data["code"]``: as ``Event.tv_code`` keeps it)."""

    code = forms.CharField(
        label=_("The evening's code"),
        max_length=40,
        error_messages={"required": _("Type the code the organiser's screen shows.")},
    )

    def clean_code(self) -> str:
        code = "".join(self.cleaned_data["code"].split()).replace("-", "").upper()
        if len(code) != TV_CODE_LENGTH or any(c not in TV_CODE_ALPHABET for c in code):
            raise forms.ValidationError(
                gettext(
                    "A code is %(count)s letters and digits, as the organiser's screen shows it."
                )
                % {"count": TV_CODE_LENGTH}
            )
        return code
