"""Forms: parse what a player typed; the rules themselves are the engine's to check."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.models import MAX_NAME
from scoring.modes import SHAPES, Mode

CUSTOM = "custom"
PRESET_LABELS = {
    "classic": _("Classic (to 12, eggs score nothing)"),
    "eggs-double": _("Eggs double the next deal"),
    "eggs-stacking": _("Eggs stack: ×2, ×3, …"),
    "tie-penalty": _("Tie penalty: eggs give both sides 2"),
    CUSTOM: _("Custom house rules"),
}
NAKED_LABELS = {
    "tricks": _("6 only for a side without a trick"),
    "points": _("6 for 0 card points, tricks or not"),
}
EGGS_LABELS = {
    "none": _("60:60 scores nothing"),
    "both-two": _("60:60: both sides score 2"),
    "double-next": _("60:60: the next deal counts double"),
    "stacking": _("60:60: multipliers stack (×2, ×3, …)"),
}
ENDING_LABELS = {
    "last-standing": _("Play on until one player is left"),
    "first-out": _("Stop when the first player is out"),
}
YES_NO = [("", _("—")), ("yes", _("Yes")), ("no", _("No"))]


def engine_message(error: rules.InvalidDeal) -> str:
    """The engine's message in the current language."""
    return error.render(gettext)


class SeriesForm(forms.Form):
    """A new game: mode, players in clockwise seat order, first dealer, house rules."""

    mode = forms.ChoiceField(
        label=_("Game"), choices=Mode.choices, initial=Mode.TEAMS, widget=forms.RadioSelect
    )
    player_0 = forms.CharField(label=_("Seat 1"), max_length=MAX_NAME, required=False)
    player_1 = forms.CharField(label=_("Seat 2"), max_length=MAX_NAME, required=False)
    player_2 = forms.CharField(label=_("Seat 3"), max_length=MAX_NAME, required=False)
    player_3 = forms.CharField(label=_("Seat 4"), max_length=MAX_NAME, required=False)
    first_dealer = forms.TypedChoiceField(
        label=_("Deals first"),
        coerce=int,
        choices=[(i, i + 1) for i in range(4)],
        initial=0,
        widget=forms.RadioSelect,
    )
    preset = forms.ChoiceField(
        label=_("House rules"),
        choices=list(PRESET_LABELS.items()),
        initial="classic",
        widget=forms.RadioSelect,
    )
    target = forms.IntegerField(
        label=_("Out at (defeat points)"),
        min_value=1,
        max_value=rules.ruleset.MAX_TARGET,
        initial=12,
    )
    save_line = forms.IntegerField(
        label=_("Save line, two sides"), min_value=1, max_value=60, initial=31
    )
    save_line_three = forms.IntegerField(
        label=_("Save line, three players"), min_value=1, max_value=60, initial=21
    )
    naked = forms.ChoiceField(label=_("Naked (6 points)"), choices=list(NAKED_LABELS.items()))
    eggs = forms.ChoiceField(label=_("Eggs (60:60)"), choices=list(EGGS_LABELS.items()))
    ending = forms.ChoiceField(
        label=_("Three players: the end"), choices=list(ENDING_LABELS.items())
    )

    RULE_FIELDS = ("target", "save_line", "save_line_three", "naked", "eggs", "ending")

    def seat_fields(self) -> list[dict]:
        """Each seat's name field with its label in every mode (the page shows the right one)."""
        seats = []
        for position in range(4):
            labels = {
                mode: str(shape.seat_labels[position])
                for mode, shape in SHAPES.items()
                if position < shape.seats
            }
            seats.append({"field": self[f"player_{position}"], "labels": labels})
        return seats

    def rule_fields(self):
        return [self[name] for name in self.RULE_FIELDS]

    def clean(self):
        data = super().clean()
        mode = data.get("mode")
        if mode is None:
            return data
        shape = SHAPES[mode]
        names = [" ".join((data.get(f"player_{i}") or "").split()) for i in range(shape.seats)]
        for i, name in enumerate(names):
            if not name:
                self.add_error(f"player_{i}", gettext("Enter a name for this seat."))
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name and name.casefold() in seen:
                self.add_error(f"player_{i}", gettext("This player already has a seat."))
            seen.add(name.casefold())
        data["names"] = names
        dealer = data.get("first_dealer")
        if dealer is not None and dealer >= shape.seats:
            self.add_error("first_dealer", gettext("Pick one of the players at the table."))
        preset = data.get("preset")
        if preset in rules.PRESETS:
            data["ruleset"] = rules.PRESETS[preset]
        elif preset == CUSTOM:
            try:
                data["ruleset"] = rules.Ruleset(
                    target=data["target"],
                    save_line=data["save_line"],
                    save_line_three=data["save_line_three"],
                    naked=data["naked"],
                    eggs=data["eggs"],
                    ending=data["ending"],
                )
            except (KeyError, rules.InvalidRuleset):
                self.add_error("preset", gettext("Check the custom house rules."))
        return data


def _points_field(label) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        required=False,
        min_value=0,
        max_value=rules.DEAL_TOTAL,
        error_messages={
            "invalid": _("Card points are whole numbers."),
            "min_value": _("Card points are between 0 and 120."),
            "max_value": _("Card points are between 0 and 120."),
        },
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )


class DealForm(forms.Form):
    """One deal's card points for the sides in play, and for a side with 0 points, its tricks.

    Leave one side empty and it gets what is left of 120. The optional card counter fills the
    first side's points from how many A, 10, K, Q and J its pile holds.
    """

    number = forms.IntegerField(widget=forms.HiddenInput, min_value=1, max_value=10_000)
    entry_key = forms.UUIDField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, sides: list[tuple[int, str]], **kwargs):
        """``sides``: (original side index, label) of every side in play, in side order."""
        super().__init__(*args, **kwargs)
        self.sides = sides
        for side, label in sides:
            self.fields[f"points_{side}"] = _points_field(label)
            self.fields[f"tricks_{side}"] = forms.ChoiceField(
                label=_("Did %(side)s take a trick?") % {"side": label},
                choices=YES_NO,
                required=False,
                widget=forms.RadioSelect,
            )
        for rank in rules.COUNTED_RANKS:
            self.fields[f"count_{rank}"] = forms.IntegerField(
                label=rank,
                required=False,
                min_value=0,
                max_value=4,
                widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
            )

    def points_fields(self):
        return [self[f"points_{side}"] for side, _label in self.sides]

    def tricks_fields(self):
        return [self[f"tricks_{side}"] for side, _label in self.sides]

    def counter_fields(self):
        return [self[f"count_{rank}"] for rank in rules.COUNTED_RANKS]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        names = [f"points_{side}" for side, _label in self.sides]
        values = [data.get(name) for name in names]
        counts = {rank: data.get(f"count_{rank}") for rank in rules.COUNTED_RANKS}
        if values[0] is None and any(v is not None for v in counts.values()):
            values[0] = rules.count_points({r: n or 0 for r, n in counts.items()})
        missing = [i for i, value in enumerate(values) if value is None]
        if len(missing) == 1:
            values[missing[0]] = rules.DEAL_TOTAL - sum(v for v in values if v is not None)
        elif missing:
            self.add_error(names[missing[0]], gettext("Enter the card points of this side."))
            return data
        answers = [data.get(f"tricks_{side}") or None for side, _label in self.sides]
        if any(
            value == 0 and answer is None for value, answer in zip(values, answers, strict=True)
        ):
            tricks = None  # the engine asks for the missing answer
        else:
            tricks = tuple(
                answer == "yes" if answer else value > 0
                for value, answer in zip(values, answers, strict=True)
            )
        try:
            deal = rules.Deal(tuple(values), tricks)
        except rules.InvalidDeal as error:
            self.add_engine_error(error)
            return data
        data["points"] = deal.points
        data["tricks"] = deal.tricks
        return data

    def add_engine_error(self, error: rules.InvalidDeal) -> None:
        """Put the engine's message beside the side it is about (or above the form)."""
        field = None
        if error.side is not None and error.side < len(self.sides):
            side = self.sides[error.side][0]
            field = f"{error.field or 'points'}_{side}"
        self.add_error(field, engine_message(error))
