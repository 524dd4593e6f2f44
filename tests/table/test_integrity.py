"""``manage.py check_integrity`` replays every series and reports stored totals the engine disagrees
with; ``--fix`` stores the replay's result again."""

from __future__ import annotations

import io
import itertools
import random

import pytest
from django.core.management import CommandError, call_command

from scoring import rules
from scoring.core.modes import SHAPES
from scoring.models import Deal, Seat, Series
from scoring.table import deals
from scoring.table.replays import engine_series
from tests.helpers import start_series

NAMES = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zina", "Ilya"]


def split(rng: random.Random, sides: int) -> tuple[int, ...]:
    """Random card points for ``sides`` sides, adding up to the deal's total."""
    cuts = sorted(rng.randint(0, rules.DEAL_TOTAL) for _ in range(sides - 1))
    bounds = [0, *cuts, rules.DEAL_TOTAL]
    return tuple(b - a for a, b in itertools.pairwise(bounds))


def generate(seed: int = 7, count: int = 15) -> list[Series]:
    """Series in every mode, played through the services with random deals (refused: skipped)."""
    rng = random.Random(seed)
    made = []
    for index in range(count):
        mode = list(SHAPES)[index % len(SHAPES)]
        names = rng.sample(NAMES, SHAPES[mode].seats)
        series = start_series(mode=mode, names=names, first_dealer=rng.randrange(len(names)))
        running = engine_series(series, [])
        number = 1
        for _ in range(rng.randint(0, 40)):
            if running.state.finished:
                break
            points = split(rng, len(running.in_play))
            tricks = tuple(p > 0 or rng.random() < 0.3 for p in points)
            try:
                deal = rules.Deal(points, tricks)
                deals.deal_record(series_id=series.pk, number=number, points=points, tricks=tricks)
            except rules.InvalidDeal:
                continue
            running.add(deal)
            number += 1
        series.refresh_from_db()
        made.append(series)
    return made


def check(*args: str) -> str:
    out = io.StringIO()
    call_command("check_integrity", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def played(db) -> list[Series]:
    """A few short series, one of them played to its end."""
    return [finished_series(), *generate(seed=3, count=3)]


def finished_series() -> Series:
    series = start_series()
    for number in range(1, 100):
        if series.finished:
            return series
        deals.deal_record(series_id=series.pk, number=number, points=(0, 120), tricks=(False, True))
        series.refresh_from_db()
    raise AssertionError("the series never ended")


@pytest.fixture
def generated(db) -> list[Series]:
    made = generate()
    assert sum(series.deal_count for series in made) > 60
    assert any(series.finished for series in made)
    return made


def test_a_generated_database_agrees_with_the_engine(generated):
    assert f"Checked {len(generated)} series" in check()


def test_every_kind_of_tampering_is_reported_by_series(generated):
    busy = [series for series in generated if series.deal_count > 2]
    Series.objects.filter(pk=busy[0].pk).update(totals=[99, 0])
    Seat.objects.filter(series=busy[1], position=0).update(total=77)
    Series.objects.filter(pk=busy[2].pk).update(deal_count=1000)
    finished = next(
        series for series in generated[3:] if series.finished and series not in busy[:3]
    )
    Series.objects.filter(pk=finished.pk).update(finished=False, ending="", winner_side=None)
    Seat.objects.filter(series=finished).update(is_goat=False)

    with pytest.raises(CommandError) as error:
        check()

    assert error.value.returncode == 1
    assert "4 disagreed with the engine" in str(error.value)
    assert "Run with --fix" in str(error.value)


def test_the_report_names_the_series_and_the_values(played):
    series = next(series for series in played if series.deal_count > 2)
    Seat.objects.filter(series=series, position=0).update(total=77)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_integrity", stdout=out)
    assert f"series {series.pk}: seat 0 total is 77, the replay says" in out.getvalue()


def test_fix_stores_the_replay_again_and_the_next_check_is_clean(generated):
    before = {s.pk: (s.totals, s.finished, s.winner_side, s.goat_sides) for s in generated}
    seats_before = sorted(Seat.objects.values_list("pk", "total", "is_goat", "is_winner"))
    for series in generated[:6]:
        Series.objects.filter(pk=series.pk).update(totals=[50, 50, 50][: len(series.totals)])
        Seat.objects.filter(series=series).update(total=50, is_goat=True, is_winner=True)

    out = check("--fix")

    assert "6 disagreed with the engine, 6 repaired" in out
    after = {
        s.pk: (s.totals, s.finished, s.winner_side, s.goat_sides) for s in Series.objects.all()
    }
    assert after == before
    assert sorted(Seat.objects.values_list("pk", "total", "is_goat", "is_winner")) == seats_before
    assert "0 disagreed" in check()


def test_a_repair_counts_as_a_change_for_live_views_and_cached_standings(played):
    series = played[0]
    Series.objects.filter(pk=series.pk).update(deal_count=999)
    check("--fix")
    assert Series.objects.get(pk=series.pk).version == series.version + 1


def test_only_the_named_series_are_checked(played):
    Series.objects.filter(pk=played[0].pk).update(deal_count=999)
    assert "Checked 1 series" in check("--series", str(played[1].pk))


def test_deals_that_cannot_be_replayed_are_reported_and_left_alone(played):
    finished = next(series for series in played if series.finished)
    last = Deal.objects.filter(series=finished).order_by("-number").first()
    # A deal stored after the end of the series: something other than the services wrote it.
    Deal.objects.create(
        series=finished,
        number=last.number + 1,
        **{f"points_{side}": last.points[side] for side in range(3)},
        **{f"tricks_{side}": last.tricks[side] for side in range(3)},
    )
    out = io.StringIO()
    with pytest.raises(CommandError) as error:
        call_command("check_integrity", "--fix", stdout=out)
    assert f"[cannot repair] series {finished.pk}: its deals cannot be replayed" in out.getvalue()
    assert "1 still disagree" in str(error.value)


def test_a_gap_in_the_deal_numbers_is_reported(played):
    series = next(series for series in played if series.deal_count > 2)
    Deal.objects.filter(series=series, number=series.deal_count).update(number=500)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_integrity", stdout=out)
    assert f"series {series.pk}: deal numbers are [" in out.getvalue()


def test_an_empty_database_is_fine(db):
    assert "Checked 0 series" in check()


def test_the_seats_deal_figures_are_checked_and_repaired(played):
    series = played[0]  # lost naked by side 0 until it was out
    tallies = ("deals_played", "deals_won", "deals_lost", "deals_naked", "deals_eggs")
    before = sorted(Seat.objects.filter(series=series).values_list("position", *tallies))
    assert before[0][1:] == (2, 0, 2, 2, 0)
    Seat.objects.filter(series=series, position=0).update(deals_naked=0, narrow_saves=3)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_integrity", stdout=out)
    assert f"series {series.pk}: seat 0 deals_naked is 0, the replay says 2" in out.getvalue()
    assert "seat 0 narrow_saves is 3, the replay says 0" in out.getvalue()

    assert "1 disagreed with the engine, 1 repaired" in check("--fix")
    assert sorted(Seat.objects.filter(series=series).values_list("position", *tallies)) == before
    assert Seat.objects.get(series=series, position=0).narrow_saves == 0
