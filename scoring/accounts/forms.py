"""Accounts: the sign-up form and the account deletion's password check (log in, log out and
the password flows are Django's own)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class SignupForm(UserCreationForm):
    """A username and a password; an e-mail address only to reset a forgotten password."""

    email = forms.EmailField(
        label=_("E-mail (optional)"),
        required=False,
        help_text=_("Only used to send you a link if you forget your password."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class AccountDeleteForm(forms.Form):
    password = forms.CharField(label=_("Your password"), strip=False, widget=forms.PasswordInput)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(gettext("That is not your password."))
        return password
