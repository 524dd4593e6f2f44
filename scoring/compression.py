"""HTML compressed where it is safe (BREACH).

BREACH guesses a secret in a compressed response from its size, given an input the attacker
controls reflected beside it, over many requests. So:

- a page reached through a secret link (a URL with a ``token`` or ``uidb64`` argument: score and
  watch links, invites, public standings, password resets) is never compressed: its token is in
  the URL, which the page repeats;
- a page that draws a share link (``{% share_link %}``: a quick game's score and watch links on
  its creator's scoreboard, a league's invite link, its public standings link) marks its
  request with ``mark_secret`` (a scoreboard served from the page cache carries the mark). It is
  compressed only when the request has no query string: then nothing an attacker can choose is
  reflected in it (the path names the page, the language picker repeats the path); with one
  (a filter, a poll's ``?version=``), it goes uncompressed;
- on top of that, Django's GZipMiddleware pads every compressed response with random bytes
  (Heal the BREACH, as Django's documentation describes), so its length no longer tells.

CSRF tokens are in every page with a form, compressed or not: Django masks them afresh in every
response (a new random mask over the secret), which is the mitigation Django's documentation
gives for them; the deal form's one-time entry key is random per response too.

The creator's scoreboard, the page a table loads most, is so 4 to 5 KB on the wire instead of
about 19 KB (issue #15's page weight).
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
    """Django's GZipMiddleware (with its BREACH padding), except where a secret could be guessed
    from the size of the response (module docstring)."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        match = getattr(request, "resolver_match", None)
        if match is not None and not SECRET_ARGUMENTS.isdisjoint(match.kwargs):
            return response  # reached by a secret link
        if getattr(request, SECRET_ATTRIBUTE, False) and request.META.get("QUERY_STRING"):
            return response  # draws one, beside a query string an attacker may choose
        return super().process_response(request, response)
