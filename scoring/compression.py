"""HTML compressed where it is safe (BREACH).

BREACH guesses a secret in a compressed response from its size, given an input the attacker
controls reflected beside it. So a page reached through a secret link (a ``token`` or
``uidb64`` URL argument) is never compressed, since the page repeats its URL; a page that draws
one (``{% share_link %}`` calls ``mark_secret``) is compressed only without a query string,
when nothing an attacker chooses is reflected in it. Django's GZipMiddleware also pads every
compressed response with random bytes (Heal the BREACH). CSRF tokens are masked afresh in every
response, Django's own mitigation; the deal form's entry key is random per response too. The
creator's scoreboard is so 4 to 5 KB on the wire instead of about 19 (issue #15's page weight).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

SECRET_ATTRIBUTE = "_kozel_shows_secret"
#: URL arguments that are secrets (the tokens of links, a password reset's user id).
SECRET_ARGUMENTS = frozenset({"token", "uidb64"})


def mark_secret(request: HttpRequest) -> None:
    """This response shows a secret link (module docstring)."""
    setattr(request, SECRET_ATTRIBUTE, True)


class SafeGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (with its BREACH padding), except where it is not safe."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        match = getattr(request, "resolver_match", None)
        if match is not None and not SECRET_ARGUMENTS.isdisjoint(match.kwargs):
            return response  # reached by a secret link
        if getattr(request, SECRET_ATTRIBUTE, False) and request.META.get("QUERY_STRING"):
            return response  # draws one, beside a query string an attacker may choose
        return super().process_response(request, response)
