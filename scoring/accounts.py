"""Accounts: the sign-up form (log in, log out and the password flows are Django's own)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
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
