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
