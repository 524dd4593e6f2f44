"""Asks for an export at the same moment (a double tap, a script's burst) make as many exports as
the limits allow, never more (issue #38: 3 of 8 bursts of 20 made two for one person). Real
threads, each with its own connection, released together, on SQLite and on PostgreSQL."""

from __future__ import annotations

import functools
from collections import Counter

import pytest
from django.test import Client

from scoring.backup import jobs
from scoring.models import Export
from tests.helpers import at_once, logged_in, raced

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BURSTS = 4
ASKS = 12


def answers(results: list[object]) -> Counter[int]:
    assert not [result for result in results if isinstance(result, Exception)], results
    return Counter(result.status_code for result in results)  # type: ignore[attr-defined]


def test_a_burst_of_asks_by_one_person_makes_one_export(league, scorer):
    for _burst in range(BURSTS):
        Export.objects.update(finished_at=jobs.timezone.now())  # the last one done
        asks = [
            functools.partial(logged_in(scorer).post, "/history/export.csv") for _ in range(ASKS)
        ]
        assert answers(at_once(*asks)) == {302: 1, 429: ASKS - 1}
        assert Export.objects.filter(user=scorer, finished_at__isnull=True).count() == 1
        raced("export asks by one account")


def test_a_burst_of_asks_from_one_network_makes_its_few_exports(db):
    for _burst in range(BURSTS):
        Export.objects.update(finished_at=jobs.timezone.now())
        asks = [functools.partial(Client().post, "/history/export.csv") for _ in range(ASKS)]
        assert answers(at_once(*asks)) == {302: jobs.PER_ADDRESS, 429: ASKS - jobs.PER_ADDRESS}
        unfinished = Export.objects.filter(finished_at__isnull=True)
        assert sorted(unfinished.values_list("slot", flat=True)) == list(range(jobs.PER_ADDRESS))
        raced("export asks from one network")


def test_a_refused_ask_in_a_race_says_why_in_words(league, scorer):
    results = at_once(*[functools.partial(logged_in(scorer).post, "/history/export.csv")] * 2)
    refused = [result for result in results if result.status_code == 429]  # type: ignore[attr-defined]
    assert len(refused) == 1
    assert "still being made" in refused[0].content.decode()  # type: ignore[attr-defined]
