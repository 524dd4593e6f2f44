"""A player's record: series, goats, deals, naked deals, eggs, narrow saves, partners, streaks."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from django.utils import timezone

from scoring import rules
from scoring.history.records import CHART_MONTHS, MonthResults, chart_months, player_record
from scoring.models import Player, Seat, Series
from tests.helpers import LONG, finished_series, play_deals, start_series

pytestmark = pytest.mark.django_db

NAMES = ("Lena", "Misha", "Nina", "Pavel")  # Lena and Nina against Misha and Pavel


def player(name: str) -> Player:
    return Player.objects.get(name=name)


@pytest.fixture
def evening(league):
    """Three series of one league: Lena's side the goat, then the other side with eggs, then one
    still being played."""
    first = finished_series(goat=0, names=NAMES, league=league)
    second = finished_series(goat=1, names=NAMES, league=league, eggs=True)
    third = start_series(names=NAMES, league=league)
    now = timezone.now()
    for age, series in enumerate((third, second, first)):
        Series.objects.filter(pk=series.pk).update(created_at=now - timedelta(hours=age))
    return first, second, third


def test_series_figures_come_from_the_stored_goat_and_winner(evening):
    record = player_record(player("Lena"), Series.objects.all())
    assert (record.series_played, record.series_finished, record.in_progress) == (3, 2, 1)
    assert (record.series_won, record.goats, record.goats_with_eggs) == (1, 1, 0)
    misha = player_record(player("Misha"), Series.objects.all())
    assert (misha.series_won, misha.goats, misha.goats_with_eggs) == (1, 1, 1)


def test_only_the_series_given_are_counted(evening):
    first, _second, _third = evening
    record = player_record(player("Lena"), Series.objects.filter(pk=first.pk))
    assert (record.series_played, record.series_won, record.goats) == (1, 0, 1)
    assert record.deals.played == 6
    # Never won together: the partner of the only series is still the best partner.
    assert (record.best_partner.name, record.best_partner.series, record.best_partner.count) == (
        "Nina", 1, 0,
    )  # fmt: skip
    nobody = player_record(player("Lena"), Series.objects.none())
    assert nobody.series_played == 0 and nobody.deals.played == 0


def test_the_best_partner_and_the_toughest_opponent_are_counted_by_series(evening):
    record = player_record(player("Lena"), Series.objects.all())
    assert record.best_partner.name == "Nina"
    assert (record.best_partner.series, record.best_partner.count) == (3, 1)
    assert record.toughest_opponent.name == "Misha"  # level with Pavel; the name decides
    assert (record.toughest_opponent.series, record.toughest_opponent.count) == (3, 1)


def test_the_streak_counts_finished_series_without_being_the_goat(evening):
    record = player_record(player("Lena"), Series.objects.all())
    assert (record.current_streak, record.best_streak) == (1, 1)
    misha = player_record(player("Misha"), Series.objects.all())
    assert (misha.current_streak, misha.best_streak) == (0, 1)


@pytest.mark.parametrize(
    ("goats", "expected"),
    [
        ([False, True, False, False, False, True, False, False], (2, 3)),
        ([True, False, False, True], (0, 2)),
        ([False, False, False], (3, 3)),
        ([True, True], (0, 0)),
    ],
)
def test_the_streaks_are_runs_without_the_goat_oldest_first(league, goats, expected):
    now = timezone.now()
    for age, goat in enumerate(reversed(goats)):  # the oldest first, an hour apart
        series = finished_series(goat=0 if goat else 1, names=NAMES, league=league)
        Series.objects.filter(pk=series.pk).update(created_at=now - timedelta(hours=age))
    start_series(names=NAMES, league=league)  # in progress: not part of any run
    record = player_record(player("Lena"), Series.objects.all())
    assert (record.current_streak, record.best_streak) == expected


def test_deal_figures_add_up_what_the_engine_counted_for_each_seat(league):
    series = start_series(names=NAMES, league=league, ruleset=LONG)
    play_deals(
        series,
        [
            (31, 89),  # Lena's side loses with exactly the save line: a narrow save
            (30, 90),  # loses by 4
            ((0, 120), (False, True)),  # naked
            (60, 60),  # eggs: neither won nor lost
            (89, 31),  # won
            ((0, 120), (True, True)),  # 0 points with a trick: 4, not naked (classic)
        ],
    )
    tally = player_record(player("Lena"), Series.objects.all()).deals
    assert (tally.played, tally.won, tally.lost) == (6, 1, 4)
    assert (tally.naked, tally.eggs, tally.narrow_saves) == (1, 1, 1)
    other = player_record(player("Misha"), Series.objects.all()).deals
    assert (other.played, other.won, other.lost, other.narrow_saves) == (6, 4, 1, 1)


def test_a_doubled_deal_after_eggs_is_still_naked_or_a_narrow_save(league):
    ruleset = rules.Ruleset(target=999, eggs="double-next")
    series = start_series(names=NAMES, league=league, ruleset=ruleset)
    play_deals(series, [(60, 60), (31, 89), (60, 60), ((0, 120), (False, True))])
    tally = player_record(player("Lena"), Series.objects.all()).deals
    assert (tally.lost, tally.narrow_saves, tally.naked, tally.eggs) == (2, 1, 1, 2)


def test_three_players_save_at_their_own_save_line(league):
    series = start_series(mode="three", names=("Lena", "Misha", "Nina"), league=league,
                          ruleset=LONG)  # fmt: skip
    play_deals(series, [(21, 50, 49), (31, 60, 29)])
    lena = player_record(player("Lena"), Series.objects.all()).deals
    assert (lena.played, lena.lost, lena.narrow_saves) == (2, 2, 1)
    nina = player_record(player("Nina"), Series.objects.all()).deals
    assert (nina.lost, nina.narrow_saves) == (2, 0)
    misha = player_record(player("Misha"), Series.objects.all()).deals
    assert (misha.won, misha.lost) == (2, 0)


def test_results_are_counted_per_month_oldest_first(league):
    months = [datetime(2025, 1, 15, 20), datetime(2025, 1, 20, 20), datetime(2025, 3, 2, 20)]
    for goat, when in zip((0, 1, 0), months, strict=True):
        series = finished_series(goat=goat, names=NAMES, league=league)
        Series.objects.filter(pk=series.pk).update(created_at=timezone.make_aware(when))
    record = player_record(player("Lena"), Series.objects.all())
    assert len(record.months) == CHART_MONTHS  # calendar months up to the last one played
    assert [(m.month, m.played, m.won, m.goat) for m in record.months[-3:]] == [
        (date(2025, 1, 1), 2, 1, 1),
        (date(2025, 2, 1), 0, 0, 0),  # nothing played: an empty slot, time stays to scale
        (date(2025, 3, 1), 1, 0, 1),
    ]
    assert sum(m.played for m in record.months) == 3


def test_naked_by_points_counts_a_side_with_0_points_and_a_trick_as_naked(league):
    ruleset = rules.Ruleset(target=999, naked="points")
    series = start_series(names=NAMES, league=league, ruleset=ruleset)
    play_deals(series, [((0, 120), (True, True)), ((0, 120), (False, True)), (31, 89)])
    tally = player_record(player("Lena"), Series.objects.all()).deals
    assert (tally.played, tally.lost, tally.naked, tally.narrow_saves) == (3, 3, 2, 1)
    classic = start_series(names=NAMES, league=league, ruleset=LONG)
    play_deals(classic, [((0, 120), (True, True))])
    both = player_record(player("Lena"), Series.objects.all()).deals
    assert (both.played, both.naked) == (4, 2)  # 0 points with a trick: 4, not naked (classic)


def test_a_player_out_of_three_plays_no_more_deals(league):
    series = start_series(mode="three", names=("Lena", "Misha", "Nina"), league=league)
    out_first = ((100, 20, 0), (True, True, False))  # Nina: naked twice, 12, out
    play_deals(series, [out_first, out_first, (31, 89)])
    nina = player_record(player("Nina"), Series.objects.all()).deals
    assert (nina.played, nina.lost, nina.naked) == (2, 2, 2)
    lena = player_record(player("Lena"), Series.objects.all()).deals
    assert (lena.played, lena.won, lena.lost, lena.narrow_saves) == (3, 2, 1, 1)


def test_the_record_reads_the_stored_figures_and_replays_nothing(league, monkeypatch):
    series = start_series(names=NAMES, league=league, ruleset=LONG)
    play_deals(series, [(31, 89), (89, 31)])
    Seat.objects.filter(player__name="Lena").update(deals_won=40)

    def no_replay(*args, **kwargs):
        raise AssertionError("the player record replayed a series")

    monkeypatch.setattr(rules.Series, "add", no_replay)
    tally = player_record(player("Lena"), Series.objects.all()).deals
    assert (tally.played, tally.won, tally.narrow_saves) == (2, 40, 1)


def test_the_chart_keeps_the_last_24_months_in_the_current_time_zone(league):
    utc = timezone.get_fixed_timezone(0)
    last = datetime(2025, 6, 30, 22, 30, tzinfo=utc)  # July in Moscow
    with timezone.override("Europe/Moscow"):
        starts = chart_months(last)
    assert len(starts) == 25  # 24 months, then where the last one ends
    assert [start.date() for start in (starts[0], starts[-2], starts[-1])] == [
        date(2023, 8, 1),
        date(2025, 7, 1),
        date(2025, 8, 1),
    ]
    for when, goat in ((last, 1), (datetime(2023, 7, 20, 12, tzinfo=utc), 0)):  # too old
        series = finished_series(goat=goat, names=NAMES, league=league)
        Series.objects.filter(pk=series.pk).update(created_at=when)
    with timezone.override("Europe/Moscow"):
        months = player_record(player("Lena"), Series.objects.all()).months
    assert len(months) == CHART_MONTHS
    assert months[0] == MonthResults(date(2023, 8, 1), 0, 0, 0)
    assert months[-2] == MonthResults(date(2025, 6, 1), 0, 0, 0)
    assert months[-1] == MonthResults(date(2025, 7, 1), 1, 1, 0)
