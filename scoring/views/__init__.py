"""Views, one module per page family: the table, history, players, leagues, accounts.

What they share is how they refuse: bad input answers 422 with the page and its messages, and a
change another device made first answers 409 with the fresh page. htmx swaps both in like a 200
(``templates/base.html``), and ``static/js/app.js`` shows them where the form was.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

UNPROCESSABLE = 422
CONFLICT = 409
TOO_MANY = 429


class HtmxHttpRequest(HttpRequest):
    """A request as the django-htmx middleware leaves it: ``request.htmx`` says whether htmx
    sent it (and which element asked)."""

    htmx: HtmxDetails


class LoggedInRequest(HtmxHttpRequest):
    """A request to a view behind ``login_required``: the user is an account, never anonymous."""

    user: User
