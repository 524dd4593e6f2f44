"""HTML compressed where it is safe: never a page that shows a secret (BREACH).

BREACH guesses a secret in a compressed response from its size, given a reflected input the
attacker controls beside it. So a response is gzipped unless it shows a secret link:

- a page that draws a share link (``{% share_link %}``: a quick game's score and watch links on
  its scoreboard, a league's invite link, its public standings link) marks its request with
  ``mark_secret``, and a scoreboard served from the page cache carries that mark with it;
- a page reached through a secret link (a URL with a ``token`` or ``uidb64`` argument: score and
  watch links, invites, public standings, password resets) repeats the token in its links.

CSRF tokens are in every page with a form, compressed or not: Django masks them afresh in every
response (a new random mask over the secret), which is the mitigation Django's documentation
gives for them; the deal form's one-time entry key is random per response too.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

SECRET_ATTRIBUTE = "_kozel_shows_secret"
#: URL arguments that are secrets (the tokens of links, a password reset's user id).
SECRET_ARGUMENTS = frozenset({"token", "uidb64"})


def mark_secret(request: HttpRequest) -> None:
    """This response shows a secret link: it is never compressed."""
    setattr(request, SECRET_ATTRIBUTE, True)


def shows_secret(request: HttpRequest) -> bool:
    if getattr(request, SECRET_ATTRIBUTE, False):
        return True
    match = getattr(request, "resolver_match", None)
    return match is not None and not SECRET_ARGUMENTS.isdisjoint(match.kwargs)


class SafeGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware, except for responses that show a secret (module docstring)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        if shows_secret(request):
            return response
        return super().process_response(request, response)
