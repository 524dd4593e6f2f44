"""A quick game is managed (its links renewed, moved into a league) only by whoever started it:
a scoring link lets its holder score, not manage; a league role gives nothing in a quick game."""

from __future__ import annotations

import pytest

from tests.authorization import (
    LOGIN,
    OK,
)
from tests.helpers import (
    client_with_link,
    creator_client,
    league_snapshot,
    logged_in,
    start_series,
)

# A quick game: its creator, the holders of its links, league members and strangers ----------

QUICK_WHO = (
    "creator",  # the browser that started it, logged in as the league's scorer
    "anonymous creator",  # the same browser before logging in
    "score link",  # holds the scoring link, logged in as the league's owner
    "watch link",  # holds the watching link, logged in as the league's owner
    "league owner",  # no link: the game is not the league's
    "league scorer",
    "league viewer",
    "outsider",
    "anonymous",
)
QUICK_ACTIONS = {
    # action: (path, data, {visitor: expected answer}); unlisted visitors get 404.
    "renew the scoring link": (
        "links/",
        {"link": "score"},
        {"creator": OK, "anonymous creator": OK, "score link": "403", "watch link": "403"},
    ),
    "renew the watching link": (
        "links/",
        {"link": "watch"},
        {"creator": OK, "anonymous creator": OK, "score link": "403", "watch link": "403"},
    ),
    "move into the league": (
        "move/",
        None,  # the league's id
        {
            "creator": OK,
            "anonymous creator": LOGIN,
            "score link": "403",
            "watch link": "403",
            "anonymous": LOGIN,
        },
    ),
}


def quick_visitor(who: str, series, ctx):
    """A browser for ``who``, seen from the quick game ``series``."""
    users = {"league owner": "owner", "league scorer": "scorer", "league viewer": "viewer"}
    if who in ("creator", "anonymous creator"):
        client = creator_client(series)
        if who == "creator":
            client.force_login(ctx["scorer"])
        return client
    if who in ("score link", "watch link"):
        client = client_with_link(series, getattr(series.table, f"{who.split()[0]}_token"))
        client.force_login(ctx["owner"])
        return client
    return logged_in(ctx[users.get(who, who)])


@pytest.mark.parametrize("who", QUICK_WHO)
@pytest.mark.parametrize("action", QUICK_ACTIONS)
def test_only_the_creator_manages_a_quick_game(ctx, action, who):
    series = start_series(names=("Anna", "Boris", "Vera", "Gleb"))
    path, data, answers = QUICK_ACTIONS[action]
    client = quick_visitor(who, series, ctx)
    before = league_snapshot(ctx["league"])
    response = client.post(f"/series/{series.pk}/{path}", data or {"league": ctx["league"].pk})
    want = answers.get(who, "404")
    if want == OK:
        assert response.status_code == 302, response.content[:300]
        assert league_snapshot(ctx["league"]) != before, "an allowed action changed nothing"
        return
    if want == LOGIN:
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    else:
        assert response.status_code == int(want)
    assert league_snapshot(ctx["league"]) == before
