"""Fixtures of the site-wide tests: the worlds the fuzzer knocks on (tests/site/fuzzing.py)."""

from __future__ import annotations

import itertools
import uuid
from datetime import date

import pytest
from django.core.handlers.wsgi import WSGIRequest
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.functional import cached_property
from django.utils.http import urlsafe_base64_encode

import scoring.table.forms  # noqa: F401  (every form class, for the field names below)
from scoring.accounts import login_links
from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.models import (
    Deal,
    Event,
    Export,
    League,
    Membership,
    Player,
    Role,
    Season,
    Series,
    Table,
    new_token,
)
from scoring.table import proposals
from tests.helpers import (
    client_with_link,
    make_event,
    record,
    start_series,
)
from tests.site.fuzzing import (
    READS,
    RecordingQueryDict,
    Site,
    World,
)


@pytest.fixture
def world(league, owner, scorer, viewer, outsider) -> World:
    mine = start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))
    record(record(mine, (70, 50)), (30, 90))
    evening = make_event(league, 4, rounds=2)  # its public link and its table's link
    quick = record(start_series(), (80, 40))
    other = League.objects.create(name="Other table", invite_token=new_token())
    Membership.objects.create(league=other, user=outsider, role=Role.OWNER)
    theirs = start_series(league=other, names=("Ivan", "Kira"), mode="duel")
    record(theirs, (60, 60), (True, True))
    League.objects.filter(pk=league.pk).update(invite_token=new_token(), share_token=new_token())
    Season.objects.create(
        league=league, name="Spring", starts_on=date(2025, 3, 1), ends_on=date(2025, 5, 31)
    )

    logins = {"league member elsewhere": outsider, "scorer": scorer, "viewer": viewer}
    clients = {"visitor": Client(), "link holder": client_with_link(quick)}
    for name, user in logins.items():
        clients[name] = Client()
        clients[name].force_login(user)
    ids = sorted(
        {
            *Series.objects.values_list("pk", flat=True),
            *League.objects.values_list("pk", flat=True),
            *Player.objects.values_list("pk", flat=True),
            *Membership.objects.values_list("pk", flat=True),
            *Event.objects.values_list("pk", flat=True),
            *Season.objects.values_list("pk", flat=True),
            *Deal.objects.values_list("number", flat=True),
            owner.pk,
            outsider.pk,
        }
    )
    tokens = [
        token
        for token in itertools.chain(
            Table.objects.values_list("score_token", "watch_token"),
            League.objects.values_list("invite_token", "share_token"),
            [(evening.share_token,)],
        )
        for token in token
        if token
    ]
    return World(clients=clients, logins=logins, ids=ids, tokens=tokens)


@pytest.fixture
def site(league, owner, outsider) -> Site:
    mine = record(record(start_series(league=league), (70, 50)), (30, 90))
    quick = record(start_series(names=("Ira", "Kolya", "Liza", "Max")), (80, 40))
    League.objects.filter(pk=league.pk).update(invite_token=new_token(), share_token=new_token())
    league.refresh_from_db()
    event = event_services.share_renew(event=make_event(league, 4, rounds=1))
    table_link = event.tables.get(number=1)
    clients = {"visitor": Client(), "link holder": client_with_link(quick)}
    clients["table phone"] = Client()  # a club night's table, by its link for the evening
    clients["table phone"].post(table_link.get_absolute_url())
    logins = {"outsider": outsider, "owner": owner}
    for name, user in logins.items():
        clients[name] = Client()
        clients[name].force_login(user)
    zed = Player.objects.create(name="Zed", league=league)
    merge = league_players.players_merge(
        league=league, source_id=zed.pk, target_id=mine.seats.first().player_id, user=owner
    )
    players = list(Player.objects.order_by("pk").values_list("pk", flat=True))
    backup = Export.objects.create(kind=Export.Kind.HISTORY_JSON, user=owner)  # not made yet
    closed = make_event(league, 4, rounds=1, name="Closed")  # a deal a table proposed
    event_services.round_finish(event=closed)
    proposal = proposals.proposal_send(
        series_id=closed.played_rounds.get().tables.get().series_id, number=1,
        entry_key=uuid.uuid4(), points=(70, 50), tricks=None, sides=(0, 1),
    )  # fmt: skip
    season = Season.objects.create(
        league=league, name="Spring", starts_on=date(2025, 3, 1), ends_on=date(2025, 5, 31)
    )
    arguments = {
        "proposal": [proposal.pk],
        "export": [backup.pk],
        "event": [event.pk],  # a club night
        "change": [merge.pk],  # a league's change (a merge), undone by its own URL
        "event share": [event.share_token],
        "table link": [table_link.score_token],
        "series": [mine.pk, quick.pk],
        "league": [league.pk],
        "player": players,
        "membership": list(league.memberships.values_list("pk", flat=True)),
        "number": [1, 2],
        "series token": [quick.table.score_token, quick.table.watch_token],
        "invite": [league.invite_token],
        "share": [league.share_token],
        "uidb64": [urlsafe_base64_encode(force_bytes(owner.pk))],
        "reset token": ["set-password", "abc-123"],
        # A login link's: the owner's, and one that never was.
        "login token": [login_links.tokens.make_token(owner), "abc-123"],
        "season": [season.pk],
        # A link drawn as a QR code: the site's own paths, a secret one among them.
        "link": [
            f"tables/{quick.table.score_token}/",
            f"invite/{league.invite_token}/",
            "history/",
        ],
    }
    samples = [str(value) for value in (mine.pk, quick.pk, league.pk, *players)]
    samples += [str(mine.version), "2025-03-31", "9999-12-31", "0001-01-01"]
    samples += ["teams", "duel", "classic", "custom", "finished", "playing", "1", "0", "-1"]
    return Site(clients=clients, logins=logins, arguments=arguments, samples=samples)


@pytest.fixture
def recorded_reads(monkeypatch):
    """Every request's ``GET`` notes the names looked up in it, in ``READS``."""

    def recording(request):
        query = RecordingQueryDict(
            request.environ.get("QUERY_STRING", ""), encoding=request.encoding
        )
        query.recording = True
        return query

    prop = cached_property(recording)
    prop.__set_name__(WSGIRequest, "GET")
    monkeypatch.setattr(WSGIRequest, "GET", prop)
    READS.clear()
    return READS
