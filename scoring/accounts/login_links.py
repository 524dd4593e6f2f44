"""Login links: a way into an account from any browser that no stranger's failed log-ins can
block (#38).

A stranger's wrong passwords can leave an account taking log-ins only from browsers it knows
(``scoring.web.logins``); a person on a new phone, with no mail to reset the password by, needs
another way in. A login link is one: made by the site's operator (``manage.py login_link``) or by
the person on a browser already logged in (the account page), it logs in the browser that opens
it and makes it known. It is a password-reset token with its own salt: it stops working once
any log-in to the account happens (the last log-in is in its digest), when the password changes,
and after ``PASSWORD_RESET_TIMEOUT``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode


class LoginLinkTokens(PasswordResetTokenGenerator):
    """A password reset's token, which no password-reset link takes (nor the reverse)."""

    key_salt = "scoring.accounts.login_links.LoginLinkTokens"


tokens = LoginLinkTokens()


def login_link_path(*, user: User) -> str:
    """The path of a new login link into ``user``'s account."""
    uidb64 = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("login_link", kwargs={"uidb64": uidb64, "token": tokens.make_token(user)})


def login_link_user(*, uidb64: str, token: str) -> User | None:
    """The active account a login link lets in, or None when it does not (broken, used, old)."""
    try:
        user = User.objects.get(pk=int(urlsafe_base64_decode(uidb64).decode()))
    except (TypeError, ValueError, OverflowError, ValidationError, User.DoesNotExist):
        return None  # as Django's password reset reads its link (a UnicodeDecodeError too)
    if not user.is_active or not tokens.check_token(user, token):
        return None
    return user


def days_valid() -> int:
    """How many days a new login link works (``PASSWORD_RESET_TIMEOUT``, at least one)."""
    return max(1, settings.PASSWORD_RESET_TIMEOUT // (24 * 60 * 60))
