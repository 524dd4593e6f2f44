"""A club night's writes: its rounds are league series, re-seating keeps what was played."""

from __future__ import annotations

import pytest

from scoring.events import services
from scoring.events.services import EventError
from scoring.models import EventTable, Player, Series
from scoring.table import deals
from tests.helpers import make_event, play_deals, play_out, record


def test_a_new_event_starts_its_first_round_with_a_league_series_per_table(league):
    event = make_event(league, 8)
    tables = list(EventTable.objects.filter(round__event=event).select_related("series"))
    assert [t.number for t in tables] == [1, 2]
    for table in tables:
        assert table.series.league_id == league.pk
        assert table.series.mode == "teams"
        assert table.series.seats.count() == 4
    assert len(event.plan) == 3
    seated = sorted(p for t in event.plan[0]["tables"] for p in t)
    assert seated == sorted(event.present)


def test_the_next_round_waits_for_the_round_in_play(league):
    event = make_event(league, 8)
    with pytest.raises(EventError, match="Finish the round"):
        services.round_start(event=event)


def test_finishing_a_timed_round_scores_unfinished_series_by_standing_points(league):
    event = make_event(league, 8, length="minutes", length_value=30)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    record(first.series, [30, 90])  # side 0 takes the defeat points
    play_out(second.series, loser=1)
    services.round_finish(event=event)
    cut, goat = (Series.objects.get(pk=table.series_id) for table in (first, second))
    # Cut short by the finish: won on its standing defeat points, a result like any other.
    assert (cut.finished, cut.ending, cut.winner_side) == (True, "cut", 1)
    assert (goat.ending, goat.winner_side) == ("goat", 0)
    nxt = services.round_start(event=event)
    assert nxt.number == 2


def test_a_leaver_is_reseated_out_of_the_rounds_not_started(league):
    event = make_event(league, 9, rounds=4)
    first_round = event.plan[0]
    leaver = first_round["tables"][0][0]
    players = Player.objects.filter(pk__in=event.present).exclude(pk=leaver)
    event = services.players_change(event=event, players=list(players)).event
    assert event.plan[0] == first_round
    for later in event.plan[1:]:
        seated = [p for t in later["tables"] for p in t]
        assert leaver not in seated and leaver not in later["out"]
        assert len(seated) == 8


def test_too_few_players_is_refused_and_nothing_is_stored(league):
    with pytest.raises(EventError):
        make_event(league, 3)
    assert not Series.objects.exists()


def test_every_round_played_refuses_another(league):
    event = make_event(league, 4, rounds=1)
    services.round_finish(event=event)
    with pytest.raises(EventError, match="Every round"):
        services.round_start(event=event)


def test_thirteen_players_at_tables_of_three_get_three_player_series(league):
    event = make_event(league, 13, three_player_tables=True)
    modes = sorted(t.series.mode for t in EventTable.objects.filter(round__event=event))
    assert modes == ["teams", "three", "three", "three"]


def test_a_late_arrival_is_seated_in_the_rounds_not_started(league):
    event = make_event(league, 8, rounds=3)
    first_round = event.plan[0]
    late = Player.objects.create(name="Late Lara", league=league)
    players = [*Player.objects.filter(pk__in=event.present), late]
    event = services.players_change(event=event, players=players, names=["New Nikita"]).event
    assert event.plan[0] == first_round
    nikita = Player.objects.get(league=league, name="New Nikita")
    for later in event.plan[1:]:
        seated = [p for t in later["tables"] for p in t]
        assert late.pk in seated + later["out"] and nikita.pk in seated + later["out"]
        assert len(seated) == 8 and len(later["out"]) == 2


def test_a_round_of_deals_limits_each_tables_series_to_its_deals(league):
    event = make_event(league, 8, length="deals", length_value=8)
    tables = EventTable.objects.filter(round__event=event).select_related("series")
    assert [t.series.deal_limit for t in tables] == [8, 8]
    services.round_finish(event=event)
    second = services.round_start(event=event)
    assert [t.series.deal_limit for t in second.tables.select_related("series")] == [8, 8]


@pytest.mark.parametrize(("length", "value"), [("goat", None), ("minutes", 30)])
def test_other_rounds_leave_the_series_without_a_limit(league, length, value):
    event = make_event(league, 8, length=length, length_value=value)
    tables = EventTable.objects.filter(round__event=event).select_related("series")
    assert [t.series.deal_limit for t in tables] == [None, None]


def test_finishing_a_round_of_deals_scores_a_table_at_its_limit_by_standing_points(league):
    event = make_event(league, 8, length="deals", length_value=2)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    play_deals(first.series, [(30, 90), (30, 90)])  # side 0 takes the defeat points
    refused = deals.deal_record(series_id=first.series_id, number=3, points=(30, 90), tricks=None)
    assert refused.entry is deals.Entry.LIMIT
    limit = Series.objects.get(pk=first.series_id)
    # At its limit the table has its result at once, before the round's end.
    assert (limit.finished, limit.ending, limit.winner_side) == (True, "deals", 1)
    services.round_finish(event=event)
    limit, level = (Series.objects.get(pk=table.series_id) for table in (first, second))
    assert (limit.ending, limit.winner_side) == ("deals", 1)  # played to its limit: not cut
    assert (level.ending, level.winner_side) == ("cut", None)  # no deal: level, cut short


def test_finishing_asked_first_names_the_tables_still_playing_and_changes_nothing(league):
    from tests.helpers import league_snapshot

    event = make_event(league, 12, length="deals", length_value=2)
    first, second, third = EventTable.objects.filter(round__event=event).order_by("number")
    play_deals(first.series, [(30, 90), (30, 90)])  # closed at its limit
    record(second.series, [30, 90])  # still playing
    before = league_snapshot(league)
    with pytest.raises(services.TablesPlaying) as asked:
        services.round_finish(event=event, ask_first=True)
    assert asked.value.numbers == [second.number, third.number]
    assert league_snapshot(league) == before
    assert Series.objects.filter(closed_at__isnull=False).count() == 1


def test_a_round_whose_tables_are_all_over_or_closed_finishes_without_asking(league):
    event = make_event(league, 8, length="deals", length_value=1)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    record(first.series, [30, 90])
    record(second.series, [90, 30])
    finished = services.round_finish(event=event, ask_first=True)
    assert finished.finished_at is not None
