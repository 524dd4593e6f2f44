"""The authorization matrix: every kind of visitor asks for an action that changes a league;
what is allowed changes something, what is refused nothing (each test_authorization_matrix.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from tests.helpers import league_snapshot, logged_in

WHO = ("owner", "scorer", "viewer", "outsider", "anonymous")
MANAGE = {"owner"}
SCORE = {"owner", "scorer"}
LOGIN = "login"
OK = "ok"


def no_data(ctx) -> dict:
    return {}


@dataclass(frozen=True)
class Action:
    name: str
    url: Callable[[dict], str]
    data: Callable[[dict], dict]
    allowed: frozenset[str]
    anonymous: str  # LOGIN (redirect to log in) or "404"
    refused_member: int = 403  # what a member whose role is too small gets
    prepare: Callable[[dict], None] | None = None  # before the request (and the snapshot)


def league_url(rest):
    return lambda ctx: f"/leagues/{ctx['league'].pk}/{rest}"


def series_url(rest):
    return lambda ctx: f"/series/{ctx['series'].pk}/{rest}"


def expected(action: Action, who: str) -> str:
    if who in action.allowed:
        return OK
    if who == "anonymous":
        return action.anonymous
    if who == "outsider":
        return "404"
    return str(action.refused_member)


def each_answered_as_allowed(ctx: dict, action: Action) -> None:
    """Every kind of visitor asks for ``action``, each on the world as it was made: one world a
    test, each visitor's request in a savepoint rolled back after it (a world a visitor costs
    a tenth of a second, and the matrices ask hundreds of times)."""
    for who in WHO:
        try:
            with transaction.atomic():
                answers_as_allowed(ctx, action, who)
                transaction.set_rollback(True)
        except AssertionError as failed:
            raise AssertionError(f"{action.name}, asked by {who}: {failed}") from failed


def answers_as_allowed(ctx: dict, action: Action, who: str) -> None:
    """``who`` asks for ``action``: what is allowed changes something, what is refused nothing
    (404, 403 or a log-in as ``expected`` says)."""
    client = logged_in(ctx[who])
    if action.prepare:
        action.prepare(ctx)
    before = league_snapshot(ctx["league"])
    response = client.post(action.url(ctx), action.data(ctx))
    want = expected(action, who)
    if want == OK:
        assert response.status_code in (200, 302), response.content[:300]
        assert league_snapshot(ctx["league"]) != before, "an allowed action changed nothing"
        return
    if want == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == int(want)
    assert league_snapshot(ctx["league"]) == before
