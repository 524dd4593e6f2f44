"""A GET reads; it never writes: no row, no session, no cache entry.

Every URL pattern of the site (found through Django's resolver, so a view added later is crawled
as it lands) is asked for with GET, as a page and as htmx asks, by every kind of visitor the
site has: nobody, a phone that opened a quick game's score link, one that opened its watch link,
the phone that started it, a club night's table phone, a player who picked a name on "Find your
seat", and a league's owner, scorer, viewer and an outsider logged in. Every statement the
database is sent is captured: one that writes (an INSERT, UPDATE or DELETE: a row, the session's
row, the cache table's) fails the test, with the visitor, the address and the statement.
"""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.accounts import login_links
from scoring.events.forms import seat_key
from scoring.leagues import services as league_services
from scoring.models import DealProposal, EventTable, Export, Membership, Player
from scoring.table import proposals
from tests.endpoints import endpoints
from tests.helpers import (
    client_with_link,
    creator_client,
    logged_in,
    make_event,
    play_out,
    record,
    start_series,
)

pytestmark = pytest.mark.slow  # a thousand requests: make test runs it, make test-fast does not

#: Where htmx asks for part of a page: the boards and their polls.
LIVE = ("/tables/", "/series/", "/public/events/")
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)


@pytest.fixture
def site(league, owner, scorer, viewer, outsider, exports_storage):
    """One of everything a GET can show, and the visitors who look at it."""
    quick = record(start_series(), (70, 50))
    finished = play_out(start_series(names=("Ira", "Kolya", "Lida", "Misha")), loser=0)
    creator = creator_client(finished)
    creator.post(f"/series/{finished.pk}/rematch/")
    mine = record(start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel")), (30, 90))
    event = make_event(league, 8, rounds=2, length="deals", length_value=2)
    game = EventTable.objects.filter(round__event=event).order_by("number").first().series
    table_phone = Client()
    table_phone.post(f"/tables/{game.table.score_token}/")
    record(game, (80, 40))
    record(game, (70, 50))  # its round's two deals: closed
    proposals.proposal_send(
        series_id=game.pk,
        number=3,
        entry_key=uuid.uuid4(),
        points=[60, 60],
        tricks=[True, True],
        sides=[0, 1],
    )
    seat_picker = Client()
    seat_picker.post(
        f"/public/events/{event.share_token}/seat/", {"player": seat_key(event, event.present[0])}
    )
    league = league_services.share_renew(league=league)
    league = league_services.invite_renew(league=league)
    visitors = {
        "nobody": Client(),
        "score link": client_with_link(quick),
        "watch link": client_with_link(quick, quick.table.watch_token),
        "creator": creator,
        "table phone": table_phone,
        "seat picker": seat_picker,
        "owner": logged_in(owner),
        "scorer": logged_in(scorer),
        "viewer": logged_in(viewer),
        "outsider": logged_in(outsider),
    }
    export = Export.objects.create(kind=Export.Kind.ACCOUNT, user=owner, scope={})
    values = {
        "series": [quick.pk, finished.pk, finished.rematches.get().pk, mine.pk, game.pk],
        "leagues": [league.pk],
        "players": list(Player.objects.filter(league=league).values_list("pk", flat=True)[:2])
        + list(Player.objects.filter(league=None).values_list("pk", flat=True)[:1]),
        "exports": [export.pk],
        "tables": [
            quick.table.score_token,
            quick.table.watch_token,
            finished.table.score_token,
            game.table.score_token,
            "x" * 32,
        ],
        "join": [quick.table.score_token],
        "invite": [league.invite_token],
        "public": [league.share_token],
        "public/events": [event.share_token],
        "number": [1],
        "membership_pk": list(
            Membership.objects.filter(league=league).values_list("pk", flat=True)[:1]
        ),
        "player_pk": list(Player.objects.filter(league=league).values_list("pk", flat=True)[:1]),
        "event_pk": [event.pk],
        "proposal_pk": list(DealProposal.objects.values_list("pk", flat=True)),
        "login link": [login_links.login_link_path(user=owner), "/accounts/login/link/MQ/a-1/"],
    }
    return visitors, values


def addresses(endpoint, values: dict) -> list[str]:
    """Real addresses of ``endpoint``: each of its arguments from what the site holds."""
    route = endpoint.route
    if route.startswith("accounts/login/link/<"):
        return values["login link"]  # a login link: a real one, and one that is not
    if "<uidb64>" in route:
        return [route.replace("<uidb64>", "MQ").replace("<token>", "set-password")]
    found = [route]
    for name in re.findall(r"<(?:\w+:)?(\w+)>", route):
        head = route.split("<", 1)[0].rstrip("/")
        if name == "pk":
            pool = values.get(head.split("/")[0], [1])
        elif name == "token":
            pool = values.get(head, values.get(head.split("/")[0], ["x" * 32]))
        else:
            pool = values.get(name, [1])
        found = [
            re.sub(rf"<(?:\w+:)?{name}>", str(value), address, count=1)
            for address in found
            for value in pool
        ]
    return ["/" + address for address in found]


def test_no_get_of_the_site_writes_anything_whoever_asks(site):
    visitors, values = site
    wrote = []
    asked = 0
    for endpoint in endpoints():
        for address in addresses(endpoint, values):
            for name, client in visitors.items():
                # As htmx asks too where a page answers it otherwise (a board, a poll).
                htmx = address.startswith(LIVE) or "/board/" in address
                for headers in ({}, {"HX-Request": "true"}) if htmx else ({},):
                    with CaptureQueriesContext(connection) as queries:
                        response = client.get(address, headers=headers)
                    asked += 1
                    assert response.status_code < 500, (name, address, response.status_code)
                    wrote += [
                        (name, address, query["sql"][:160])
                        for query in queries.captured_queries
                        if WRITES.match(query["sql"])
                    ]
    assert asked > 900  # every page, as everyone
    assert not wrote, "\n".join(f"{who} GET {where}: {sql}" for who, where, sql in wrote[:20])


def test_the_crawl_sees_a_request_that_writes_the_session(site):
    """What the crawl counts as a write is what a session's save sends: it could fail."""
    _visitors, values = site
    phone = Client()
    with CaptureQueriesContext(connection) as queries:
        assert phone.post(f"/tables/{values['tables'][0]}/").status_code == 302  # opens the link
    assert [query for query in queries.captured_queries if WRITES.match(query["sql"])]
