"""Failed log-ins, capped per account and per network without letting a stranger lock a person
out: browsers an account knows keep getting in.

django-axes locks a username at one network after ``AXES_FAILURE_LIMIT`` failures; a guesser
spread over many networks or accounts gets past that, so two more caps count failures per hour
at one account and from one network. Each would let a stranger lock a person out at will, so
neither applies to a browser the account knows (OWASP's "Slow Down Online Guessing Attacks with
Device Cookies"): one that logged in to it, or set its password from a reset link, holds a
signed cookie naming the accounts. Its own failures at the account are capped as any one
client's (``AXES_FAILURE_LIMIT``), so a stolen cookie buys no more guesses than anybody has.

An attempt refused (by django-axes' lock or by a cap) is answered before any password is
checked, so it counts nowhere: a stranger hammering the account from one network, locked out
there after a few guesses, adds nothing to the account's cap (#38). The way back no stranger can
block is a login link (``scoring.accounts.login_links``): it makes the browser that opens it
known.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponseBase
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from scoring.web import throttle
from scoring.web.clients import client_network

COOKIE = "kozel_browser"
_SALT = "scoring.web.logins"
COOKIE_AGE = 400 * 24 * 60 * 60  # the longest a browser keeps a cookie (Chrome's cap)
_ACCOUNTS_KEPT = 8  # the accounts a browser is known to: a family's phone, a club's tablet


@dataclass(frozen=True)
class Browser:
    """What a browser's signed cookie says: its id and the accounts (by digest) it knows."""

    id: str
    accounts: tuple[str, ...]


def _account(username: str) -> str:
    """A digest of the username as the login form reads it: the cookie names no account."""
    normalized = get_user_model().normalize_username(username.strip())
    return salted_hmac(_SALT, normalized).hexdigest()[:20]


def browser(request: HttpRequest) -> Browser | None:
    """The browser's cookie when the site signed it, else None."""
    value = request.get_signed_cookie(COOKIE, default=None, salt=_SALT, max_age=COOKIE_AGE)
    if not value or ":" not in value:
        return None
    browser_id, _colon, accounts = value.partition(":")
    return Browser(id=browser_id, accounts=tuple(filter(None, accounts.split("."))))


def _known(request: HttpRequest, username: str) -> Browser | None:
    """The browser when it has logged in to ``username``'s account before."""
    found = browser(request)
    return found if found is not None and _account(username) in found.accounts else None


def known_browser(request: HttpRequest, credentials: dict | None = None) -> bool:
    """django-axes' whitelist: a known browser's failures are this module's to count."""
    username = (credentials or {}).get("username") or request.POST.get("username") or ""
    return isinstance(username, str) and _known(request, username) is not None


def _axes_locked(request: HttpRequest, username: str) -> bool:
    """Whether django-axes has locked ``username`` at this network (asked, never counted)."""
    return not AxesProxyHandler.is_allowed(request, {"username": username})


def login_refusal(request: HttpRequest, username: str) -> str | None:
    """Why this browser may not try to log in as ``username`` now, or None when it may: asked
    before the password is checked, so that a refused attempt counts nowhere. Only the why: the
    lockout page (``accounts/locked_out.html``) says every way back this site has."""
    known = _known(request, username)
    if known is not None:
        own = f"{known.id}:{_account(username)}"
        if throttle.count("logins:browser", own) >= settings.AXES_FAILURE_LIMIT:
            return _(
                "This browser has given too many wrong passwords for this account in the last hour."
            )
        return None
    if _axes_locked(request, username):
        return network_locked()
    if throttle.count("logins:account", _account(username)) >= settings.LOGIN_FAILURES_PER_ACCOUNT:
        return _(
            "This account has had too many failed log-ins in the last hour, so for now it "
            "takes them only from browsers that have logged in to it before."
        )
    if throttle.count("logins:address", client_network(request)) >= (
        settings.LOGIN_FAILURES_PER_ADDRESS
    ):
        return _("Too many failed log-ins came from your network in the last hour.")
    return None


def network_locked() -> str:
    """Why django-axes refuses: the username is locked at this network (the failure that locks
    it is answered by django-axes itself, in these words too)."""
    return _(
        "Too many wrong passwords for this account came from your network, so for an hour it "
        "takes no log-ins for it from here, except from browsers that have logged in to it "
        "before."
    )


def login_failed(request: HttpRequest, username: str) -> None:
    """Count a wrong password for ``username``: at the known browser's own cap, else at the
    account's and the network's."""
    known = _known(request, username)
    if known is not None:
        throttle.note("logins:browser", f"{known.id}:{_account(username)}")
        return
    throttle.note("logins:account", _account(username))
    throttle.note("logins:address", client_network(request))


def browser_remember(request: HttpRequest, response: HttpResponseBase, username: str) -> None:
    """This browser logged in to ``username``'s account (or set its password): from now on the
    account knows it, and its own failures there start from nothing."""
    found = browser(request) or Browser(id=secrets.token_urlsafe(12), accounts=())
    account = _account(username)
    throttle.forget("logins:browser", f"{found.id}:{account}")
    accounts = [account, *(kept for kept in found.accounts if kept != account)]
    response.set_signed_cookie(
        COOKIE,
        f"{found.id}:{'.'.join(accounts[:_ACCOUNTS_KEPT])}",  # no comma: cookies quote it
        salt=_SALT,
        max_age=COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
