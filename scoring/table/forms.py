"""Forms: parse what a player typed; the rules themselves are the engine's to check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.core.modes import SHAPES, Mode
from scoring.core.names import name_clean, name_key
from scoring.core.rulesets import HouseRulesForm
from scoring.models import MAX_DEALS, MAX_NAME

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

#: The card counter's ranks as players name them (Russian: Т, К, Д, В).
RANK_LABELS: dict[str, StrOrPromise] = {
    "A": pgettext_lazy("card rank", "A"),
    "10": "10",
    "K": pgettext_lazy("card rank", "K"),
    "Q": pgettext_lazy("card rank", "Q"),
    "J": pgettext_lazy("card rank", "J"),
}
YES_NO = [("", _("—")), ("yes", _("Yes")), ("no", _("No"))]
#: The error of a deal form whose hidden fields were tampered with or lost.
STALE = _("This form is out of date: reload the page and enter the deal again.")
#: What a deal form carries besides its number and key: kept when its deal was taken meanwhile.
TYPED = ("points_", "tricks_", "count_")
#: The largest series version a form may carry (``Series.version``, a positive integer column).
MAX_VERSION = 2_147_483_647


def engine_message(error: rules.InvalidDeal) -> str:
    """The engine's message in the current language."""
    return error.render(gettext)


class SeriesForm(HouseRulesForm):
    """A new game: mode, players in clockwise seat order, first dealer, house rules."""

    field_order = ["mode", "player_0", "player_1", "player_2", "player_3", "first_dealer"]

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

    def clean(self):
        super().clean()
        data = self.cleaned_data
        mode = data.get("mode")
        if mode is None:
            return data
        shape = SHAPES[mode]
        names = [name_clean(data.get(f"player_{i}") or "") for i in range(shape.seats)]
        for i, name in enumerate(names):
            if not name:
                self.add_error(f"player_{i}", gettext("Enter a name for this seat."))
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name and name_key(name) in seen:
                self.add_error(f"player_{i}", gettext("This player already has a seat."))
            seen.add(name_key(name))
        data["names"] = names
        dealer = data.get("first_dealer")
        if dealer is not None and dealer >= shape.seats:
            self.add_error("first_dealer", gettext("Pick one of the players at the table."))
        return data


class SeatNamesForm(forms.Form):
    """Who sits at each seat of a game, clockwise: one name each, nobody twice."""

    def __init__(self, *args, shape, **kwargs):
        super().__init__(*args, **kwargs)
        self.seats = shape.seats
        for position in range(shape.seats):
            self.fields[f"player_{position}"] = forms.CharField(
                label=shape.seat_labels[position], max_length=MAX_NAME, required=False
            )

    def clean(self):
        super().clean()
        data = self.cleaned_data
        names = [name_clean(data.get(f"player_{i}") or "") for i in range(self.seats)]
        seen: set[str] = set()
        for i, name in enumerate(names):
            if not name:
                self.add_error(f"player_{i}", gettext("Enter a name for this seat."))
            elif name_key(name) in seen:
                self.add_error(f"player_{i}", gettext("This player already has a seat."))
            seen.add(name_key(name))
        data["names"] = names
        return data


def series_initial(
    *, mode: str, names: Sequence[str], first_dealer: int, ruleset: rules.Ruleset
) -> dict:
    """A new-game form filled in: these players in seat order, this dealer, these rules."""
    initial: dict = {
        "mode": mode,
        "first_dealer": first_dealer,
        **HouseRulesForm.rules_initial(ruleset),
    }
    for position, name in enumerate(names):
        initial[f"player_{position}"] = name
    return initial


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


def _hidden_number(min_value: int, max_value: int) -> forms.IntegerField:
    """A hidden number the page wrote (a deal's number, a series' version): stale if wrong."""
    return forms.IntegerField(
        widget=forms.HiddenInput,
        min_value=min_value,
        max_value=max_value,
        error_messages=dict.fromkeys(["required", "invalid", "min_value", "max_value"], STALE),
    )


class DealForm(forms.Form):
    """One deal's card points for the sides in play, and for a side with 0 points, its tricks.

    Leave one side empty and it gets what is left of 120. The optional card counter fills the
    first side's points from how many A, 10, K, Q and J its pile holds.

    A form for the next deal carries its hidden ``number`` and one-time ``entry_key``; an edit
    form its hidden ``version``.
    """

    deal_total = rules.DEAL_TOTAL  # for the page's script, which fills in the rest of 120

    def __init__(self, *args, sides: list[tuple[int, str]], entry: bool = True, **kwargs):
        """``sides``: (original side index, label) of every side in play, in side order.

        ``entry``: a form for the next deal, with its number and one-time key; an edit form
        (False) takes the deal's number from the address instead, and carries the series'
        version it was shown at, so that an edit made meanwhile elsewhere is not overwritten.
        """
        super().__init__(*args, **kwargs)
        self.sides = sides
        if entry:
            self.fields["number"] = _hidden_number(1, MAX_DEALS)
            self.fields["entry_key"] = forms.UUIDField(
                widget=forms.HiddenInput, required=False, error_messages={"invalid": STALE}
            )
        else:
            self.fields["version"] = _hidden_number(0, MAX_VERSION)
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
                label=RANK_LABELS[rank],
                required=False,
                min_value=0,
                max_value=4,
                widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
            )

    def posted(self) -> dict[str, Any]:
        """What ``deals.deal_record`` decides on: the deal's number and one-time key (None where
        they do not parse), the sides, and their card points and tricks (None where those do
        not: the form says why)."""
        valid = self.is_valid()
        data = self.cleaned_data
        return {
            "number": data.get("number"),
            "entry_key": data.get("entry_key"),
            "sides": [side for side, _label in self.sides],
            "points": data["points"] if valid else None,
            "tricks": data["tricks"] if valid else None,
        }

    def top_errors(self) -> list[str]:
        """Errors shown above the fields: the form's own, and its hidden fields'."""
        errors = [str(error) for error in self.non_field_errors()]
        for field in self.hidden_fields():
            errors.extend(str(error) for error in field.errors if str(error) not in errors)
        return errors

    def points_fields(self):
        return [self[f"points_{side}"] for side, _label in self.sides]

    def tricks_fields(self):
        return [self[f"tricks_{side}"] for side, _label in self.sides]

    def counter_fields(self) -> list[tuple[forms.BoundField, int]]:
        """The card counter's fields, each with what one such card is worth (for app.js)."""
        return [(self[f"count_{rank}"], rules.CARD_POINTS[rank]) for rank in rules.COUNTED_RANKS]

    def clean(self):
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        if not self.sides:
            self.add_error(None, STALE)  # no card points at all: not a form the page wrote
            return data
        names = [f"points_{side}" for side, _label in self.sides]
        extra = [
            side
            for side in range(rules.MAX_SIDES)
            if f"points_{side}" not in names
            and str(self.data.get(self.add_prefix(f"points_{side}"), "")).strip()
        ]
        if extra:
            self.add_error(
                None,
                gettext("%(expected)s sides are in play, but this deal has points for %(count)s.")
                % {"expected": len(names), "count": len(names) + len(extra)},
            )
            return data
        values = [data.get(name) for name in names]
        counts = {rank: data.get(f"count_{rank}") for rank in rules.COUNTED_RANKS}
        if values[0] is None and any(v is not None for v in counts.values()):
            values[0] = rules.count_points({r: n or 0 for r, n in counts.items()})
        missing = [i for i, value in enumerate(values) if value is None]
        if len(missing) == 1:
            # The rest of 120; when the others already pass 120, a 0 lets the engine say so.
            rest = rules.DEAL_TOTAL - sum(v for v in values if v is not None)
            values[missing[0]] = max(rest, 0)
        elif missing:
            self.add_error(names[missing[0]], gettext("Enter the card points of this side."))
            return data
        points = [value for value in values if value is not None]  # every side has points now
        answers = [data.get(f"tricks_{side}") or None for side, _label in self.sides]
        if any(
            value == 0 and answer is None for value, answer in zip(points, answers, strict=True)
        ):
            tricks = None  # the engine asks for the missing answer
        else:
            tricks = tuple(
                answer == "yes" if answer else value > 0
                for value, answer in zip(points, answers, strict=True)
            )
        try:
            deal = rules.Deal(tuple(points), tricks)
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


class UndoForm(forms.Form):
    """Undo the last deal, which the form names, as the scoreboard showed it (``version``): a
    second tap, or a phone that has not seen a newer deal, then removes nothing."""

    # Not MAX_DEALS: a series recorded before the cap may hold more, and its last deal can go.
    number = forms.IntegerField(min_value=1, max_value=MAX_VERSION)
    version = forms.IntegerField(min_value=0, max_value=MAX_VERSION)
