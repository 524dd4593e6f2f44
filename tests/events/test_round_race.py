"""The organiser finishes the round while a table's phone posts a deal, at the same moment: the
deal is either in the round's result or refused, never recorded outside it (issue #27). Real
threads, each with its own database connection, released together (``tests.helpers.at_once``),
on SQLite and on PostgreSQL (``.ci/run`` runs the suite on both)."""

from __future__ import annotations

import functools

import pytest
from django.test import Client

from scoring import rules
from scoring.events import leaderboard
from scoring.models import EventRound, EventTable
from tests.helpers import (
    at_once,
    deal_data,
    logged_in,
    make_event,
    raced,
    record,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REPETITIONS = 10
HTMX = {"HX-Request": "true"}


def test_a_deal_racing_the_rounds_finish_is_in_its_result_or_refused(league, owner):
    for repetition in range(REPETITIONS):
        event = make_event(league, 8, name=f"Night {repetition}")
        table = EventTable.objects.filter(round__event=event, number=1).get()
        series = record(record(table.series, (80, 40)), (40, 80))  # 2 : 2
        phone = Client()
        link = event.tables.get(number=1)
        phone.post(link.get_absolute_url())
        form = deal_data(phone.get(link.get_absolute_url(), headers=HTMX), points_0="70")
        finish = functools.partial(
            logged_in(owner).post,
            f"{event.get_absolute_url()}rounds/finish/",
            {"confirmed": "1"},
        )
        deal = functools.partial(phone.post, f"/series/{series.pk}/deals/", form, headers=HTMX)
        finished, sent = at_once(finish, deal)
        assert finished.status_code == 302, finished
        assert sent.status_code in (200, 422), sent
        played = EventRound.objects.get(event=event, number=1)
        assert played.finished_at is not None
        series.refresh_from_db()
        table.refresh_from_db()
        if sent.status_code == 200:  # recorded: before the round closed, and in its result
            assert sent["X-Kozel-Recorded"] == "3"
            assert series.deal_count == 3 and series.totals == [2, 4]
            assert series.deals.get(number=3).created_at <= played.finished_at
        else:  # refused, and said why
            assert "this round is over at this table" in sent.content.decode()
            assert series.deal_count == 2 and series.totals == [2, 2]
        assert series.closed_at is not None
        # Its result is the standing defeat points', cut short, and counted as it stands.
        assert series.finished and series.ending == "cut"
        assert series.winner_side == rules.standing_winner(series.totals)
        # The leaderboard counts the table's series as it stands.
        board = leaderboard.build(event)
        first = next(r for r in board.rounds if r.number == 1).tables[0]
        assert [total for _names, total in first.sides] == series.totals
        raced("a deal against the round's finish (views)")
