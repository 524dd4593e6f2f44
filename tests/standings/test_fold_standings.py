"""``manage.py fold_standings``: every league's running totals folded again after a release that
started them afresh."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from scoring.leagues import services as league_services
from scoring.models import League, RunningTotal
from tests.helpers import finished, totals_forget

pytestmark = pytest.mark.django_db


def fold(*args: str) -> str:
    out = StringIO()
    call_command("fold_standings", *args, stdout=out)
    return out.getvalue()


def test_it_folds_what_is_new_once_and_only_in_the_leagues_asked_for(league, owner):
    other = league_services.league_create(name="Other club", user=owner)
    for _ in range(3):
        finished(league)
    finished(other)
    totals_forget(league)
    totals_forget(other)
    assert not RunningTotal.objects.exists()

    assert fold("--league", str(other.pk)).startswith("1 finished series folded in 1 of 1 leagues")
    assert set(RunningTotal.objects.values_list("league_id", flat=True)) == {other.pk}

    assert fold().startswith("3 finished series folded in 1 of 2 leagues")
    league.refresh_from_db()
    last = league.series.filter(finished=True).order_by("-finished_at", "-pk").first()
    assert (league.totals_until, league.totals_until_series) == (last.finished_at, last.pk)
    assert RunningTotal.objects.filter(league=league).count() == 3 * 4  # a row per seat

    assert fold().startswith("0 finished series folded in 0 of 2 leagues")  # nothing new
    assert League.objects.count() == 2


def test_after_migration_0025_a_game_closed_before_its_first_deal_counts_nowhere(league, owner):
    """Before 0025 the fold counted a club night's table the organiser's finish found empty as a
    series its four players tied; the migration starts such leagues' totals afresh and the fold
    counts only games with a deal, as the evening's leaderboard does."""
    import importlib

    from django.apps import apps

    from scoring.events import services as event_services
    from scoring.models import EventTable
    from tests.helpers import make_event, record

    other = league_services.league_create(name="Other club", user=owner)
    finished(other)
    untouched = list(RunningTotal.objects.filter(league=other).values_list("pk", "mu"))
    event = make_event(league, 8)
    played = EventTable.objects.get(round__event=event, number=1).series
    record(played, (30, 90))
    event_services.round_finish(event=event)
    empty = EventTable.objects.get(round__event=event, number=2).series
    assert empty.finished and empty.deal_count == 0
    assert RunningTotal.objects.filter(league=league).exists()
    migration = importlib.import_module("scoring.migrations.0025_empty_games_uncounted")
    migration.totals_restarted(apps, None)
    assert not RunningTotal.objects.filter(league=league).exists()
    assert list(RunningTotal.objects.filter(league=other).values_list("pk", "mu")) == untouched

    assert fold().startswith("1 finished series folded in 1 of 2 leagues")
    counted = RunningTotal.objects.filter(league=league)
    assert set(counted.values_list("series_id", flat=True)) == {played.pk}
