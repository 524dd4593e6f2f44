"""The standings' running totals under races: series of one league ending at the same moment
are each folded by their own write, in the finishing order, whatever commits first."""

from __future__ import annotations

import pytest

from scoring.models import League, RunningTotal, Series
from scoring.standings.running_totals import totals_fold
from scoring.table import deals
from tests.helpers import record, start_series, totals_refold
from tests.table.test_concurrency import at_once, raced

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REPETITIONS = 8


def one_deal_from_the_end(league: League, names: tuple[str, ...]) -> Series:
    """A two-player series whose next deal (side 0 naked again) ends it."""
    series = start_series(league=league, names=names, mode="duel")
    while not series.finished:
        series = record(series, [0, 120], [False, True])
    deals.deal_undo(series_id=series.pk, number=series.deal_count, version=series.version)
    return Series.objects.get(pk=series.pk)


def last_deal(series: Series):
    return lambda: deals.deal_record(
        series_id=series.pk, number=series.deal_count + 1, points=[0, 120], tricks=[False, True]
    )


def stored(league: League) -> list[tuple]:
    """The league's running totals, every column but the row's id."""
    fields = [f.attname for f in RunningTotal._meta.concrete_fields if not f.primary_key]
    rows = RunningTotal.objects.filter(league=league).order_by("finished_at", "series_id", "player")
    return list(rows.values_list(*fields))


def test_two_series_of_a_league_ending_at_once_are_both_folded_in_their_order(league):
    for round_ in range(REPETITIONS):
        first = one_deal_from_the_end(league, (f"Anna {round_}", f"Boris {round_}"))
        second = one_deal_from_the_end(league, (f"Vera {round_}", f"Gleb {round_}"))
        results = at_once(last_deal(first), last_deal(second))
        assert not [r for r in results if isinstance(r, Exception)], results
        assert totals_fold(league_id=league.pk) == 0  # nothing was left for a reader to fold
        folded = stored(league)
        totals_refold(league)  # the same series folded afresh, one by one, in finishing order
        assert folded == stored(league)
    assert Series.objects.filter(league=league, finished=True).count() == 2 * REPETITIONS
    raced("two league series ending at once", REPETITIONS)
