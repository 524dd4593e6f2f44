"""Forms for leagues, their members and players: parse what was typed or picked."""

from __future__ import annotations

from typing import cast

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scoring import rules
from scoring.core.rulesets import HouseRulesForm
from scoring.models import MAX_LEAGUE_NAME, MAX_NAME, Role


class LeagueForm(HouseRulesForm):
    """A league's name and its default house rules (a preset or custom settings)."""

    field_order = ["name"]

    name = forms.CharField(label=_("League name"), max_length=MAX_LEAGUE_NAME)

    @classmethod
    def initial_for(cls, name: str, ruleset: rules.Ruleset) -> dict:
        return {"name": name, **cls.rules_initial(ruleset)}

    def clean_name(self) -> str:
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError(gettext("Give the league a name."))
        return name


INVITE_ROLES = [(Role.SCORER.value, Role.SCORER.label), (Role.VIEWER.value, Role.VIEWER.label)]


class InviteForm(forms.Form):
    role = forms.ChoiceField(
        label=_("Whoever joins by the link becomes"),
        choices=INVITE_ROLES,
        initial=Role.SCORER,
        widget=forms.RadioSelect,
    )


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)


class MemberForm(forms.Form):
    """Pick a member (for a transfer of ownership)."""

    membership = forms.TypedChoiceField(label=_("New owner"), coerce=int, choices=[])

    def __init__(self, *args, memberships=(), **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["membership"]).choices = [
            (m.pk, m.user.get_username()) for m in memberships
        ]


class PlayerLinkForm(forms.Form):
    """Which member's account a player is; empty for nobody's."""

    user = forms.TypedChoiceField(
        label=_("Account"), coerce=int, empty_value=None, required=False, choices=[]
    )

    def __init__(self, *args, memberships=(), **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["user"]).choices = [("", gettext("— nobody —"))] + [
            (m.user_id, m.user.get_username()) for m in memberships
        ]


class PlayerRenameForm(forms.Form):
    name = forms.CharField(label=_("New name"), max_length=MAX_NAME)


class PlayerMergeForm(forms.Form):
    """The player a player is merged into (another of the league's)."""

    into = forms.TypedChoiceField(label=_("Merge into"), coerce=int, choices=[])

    def __init__(self, *args, players=(), **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["into"]).choices = [
            (player.pk, player.name) for player in players
        ]


class LeagueDeleteForm(forms.Form):
    name = forms.CharField(label=_("Type the league's name to confirm"), max_length=200)
    series = forms.ChoiceField(
        label=_("Its series"),
        choices=[
            ("keep", _("Keep them as quick games (with whoever started them)")),
            ("delete", _("Delete them with the league")),
        ],
        widget=forms.RadioSelect,
    )


class MoveForm(forms.Form):
    league = forms.TypedChoiceField(label=_("League"), coerce=int, choices=[])

    def __init__(self, *args, leagues=(), **kwargs):
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["league"]).choices = [
            (league.pk, league.name) for league in leagues
        ]
