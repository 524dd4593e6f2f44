"""The demo league: played through the engine, stored as series_refresh would, the same per seed."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from scoring.management.demo import demo_generate
from scoring.models import Deal, DealEvent, League, Player, Series
from scoring.table.derived import SEAT_FIELDS, SERIES_FIELDS, derived_values
from scoring.table.replays import replay_rows, row_snapshot
from tests.helpers import assert_stored_matches_replay, finished_series

pytestmark = pytest.mark.django_db


def content() -> list:
    """The league as plain data, without ids or link tokens (fresh secrets every time)."""
    result = []
    for series in Series.objects.prefetch_related("seats__player", "deals", "events").order_by(
        "created_at", "pk"
    ):
        result.append(
            (
                series.mode,
                series.rules,
                series.first_dealer,
                series.created_at,
                series.finished_at,
                series.version,
                series.rematch_of.created_at if series.rematch_of else None,
                [(seat.position, seat.player.name) for seat in series.seats.all()],
                [(d.number, d.points, d.tricks, d.created_at) for d in series.deals.all()],
                [
                    (e.number, e.action, e.before, e.after, e.created_at)
                    for e in series.events.all()
                ],
            )
        )
    return result


def test_the_bulk_values_are_what_series_refresh_stores():
    series = finished_series(eggs=True)
    derived = derived_values(replay_rows(series, list(series.deals.order_by("number"))))
    assert list(derived.series) == list(SERIES_FIELDS)
    assert {name: getattr(series, name) for name in SERIES_FIELDS} == derived.series
    for seat in series.seats.all():
        values = derived.seat(seat.side)
        assert list(values) == list(SEAT_FIELDS)
        assert {name: getattr(seat, name) for name in SEAT_FIELDS} == values
    assert {seat.deals_played for seat in series.seats.all()} == {7}


def test_every_demo_series_is_stored_exactly_as_a_replay_says():
    summary = demo_generate(seed=7, players=12, series=40)
    assert (summary.players, summary.series) == (12, 40)
    assert Series.objects.count() == 40
    assert Deal.objects.count() == summary.deals > 40
    assert DealEvent.objects.count() == summary.events >= summary.deals
    assert Player.objects.filter(league=summary.league).count() == 12
    for series in Series.objects.all():
        assert_stored_matches_replay(series)
        events = series.events.count()
        assert series.version == 1 + events


def test_the_audit_trail_ends_with_each_deal_as_stored():
    demo_generate(seed=11, players=12, series=60)
    for series in Series.objects.prefetch_related("deals", "events"):
        last = {}
        for event in series.events.all():
            last[event.number] = event.after
        for deal in series.deals.all():
            assert last[deal.number] == row_snapshot(deal)
    actions = set(DealEvent.objects.values_list("action", flat=True))
    assert actions == {"recorded", "edited", "removed"}


def test_the_same_seed_gives_the_same_league():
    demo_generate(seed=3, players=10, series=25)
    first = content()
    Series.objects.all().delete()
    Player.objects.all().delete()
    League.objects.all().delete()
    demo_generate(seed=3, players=10, series=25)
    assert content() == first
    Series.objects.all().delete()
    League.objects.all().delete()
    demo_generate(seed=4, players=10, series=25)
    assert content() != first


def test_a_deal_cap_stops_the_season_at_exactly_that_many_deals():
    summary = demo_generate(seed=5, players=8, series=1000, max_deals=100)
    assert Deal.objects.count() == summary.deals == 100
    assert summary.series < 1000
    last = Series.objects.order_by("-created_at", "-pk").first()
    assert_stored_matches_replay(last)


def test_deal_caps_stop_each_series_early():
    demo_generate(seed=6, players=8, series=3, deal_caps=(5, 2, 0))
    lengths = list(Series.objects.order_by("created_at", "pk").values_list("deal_count", flat=True))
    assert lengths == [5, 2, 0]


def test_players_have_russian_and_english_names():
    demo_generate(seed=9, players=40, series=5)
    names = list(Player.objects.values_list("name", flat=True))
    assert len(set(names)) == 40
    assert any("А" <= name[0] <= "я" for name in names)
    assert any("A" <= name[0] <= "Z" for name in names)


def test_the_command_refuses_a_second_demo_league():
    out = io.StringIO()
    call_command("demo_data", players=8, series=3, stdout=out)
    assert "Demo club: 8 players, 3 series" in out.getvalue()
    with pytest.raises(CommandError, match="already exists"):
        call_command("demo_data", players=8, series=3, stdout=io.StringIO())
