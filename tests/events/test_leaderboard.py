"""The club night's leaderboard: wins, goats, defeat points, tie-breaks, awards."""

from __future__ import annotations

from scoring.events import leaderboard, services
from scoring.models import Event, EventTable
from tests.helpers import make_event, play_out, record


def _tables(event):
    return list(EventTable.objects.filter(round__event=event).order_by("number"))


def _sides(table):
    seats = table.series.seats.select_related("player").order_by("position")
    return [[s.player.name for s in seats if s.side == side] for side in (0, 1)]


def test_winners_goats_and_defeat_points_per_player(league):
    event = make_event(league, 8)
    first, second = _tables(event)
    play_out(first.series, loser=0, eggs=2)
    losers, winners = _sides(first)
    board = leaderboard.build(event)
    lines = {line.name: line for line in board.lines}
    first.series.refresh_from_db()
    goat_total = first.series.totals[0]
    for name in winners:
        assert (lines[name].won, lines[name].goats) == (1, 0)
        assert lines[name].points_for == goat_total
    for name in losers:
        assert (lines[name].won, lines[name].goats) == (0, 1)
        assert lines[name].points_against == goat_total
    assert [line.name for line in board.lines[:2]] == sorted(winners)
    assert board.lines[0].place == board.lines[1].place == 1
    assert board.most_goats is not None and board.most_goats.names == sorted(losers)
    assert board.longest_eggs is not None and board.longest_eggs.value == 2
    assert not any(t.finished for t in board.rounds[0].tables if t.number == second.number)


def test_a_round_cut_short_counts_the_standing_leader_as_the_winner(league):
    event = make_event(league, 8, length="minutes", length_value=20)
    first, _second = _tables(event)
    record(first.series, [30, 90])
    services.round_finish(event=event)
    board = leaderboard.build(event)
    assert board.rounds[0].adjudicated
    _losers, leaders = _sides(first)
    lines = {line.name: line for line in board.lines}
    assert all(lines[name].won == 1 for name in leaders)
    assert all(lines[name].goats == 0 for name in lines)  # nobody was the goat


def test_the_tie_break_the_organiser_picked_orders_equal_players(league):
    event = make_event(league, 8, tie_break=Event.TieBreak.AGAINST)
    first, _second = _tables(event)
    record(first.series, [30, 90])
    board = leaderboard.build(event)
    losers, _ = _sides(first)
    # nobody has won or been the goat: fewest points against first, the losers last
    assert sorted(line.name for line in board.lines[-2:]) == sorted(losers)
    assert board.lines[0].place == 1 and board.lines[-1].place == 7


def test_sitting_out_players_are_named_round_by_round(league):
    event = make_event(league, 9)
    board = leaderboard.build(event)
    assert len(board.rounds[0].out) == 1
    assert board.rounds[0].out[0].startswith("Player ")


GERMAN_ORDER = ["Anna", "Ärne", "Bernd", "Emil", "Olga", "Österreich", "Ülla", "Zora"]


def _rename(league, names):
    from scoring.models import Player
    from scoring.names import name_key

    for player, name in zip(
        Player.objects.filter(league=league).order_by("pk"), names, strict=True
    ):
        player.name, player.name_key = name, name_key(name)
        player.save()


def test_equal_players_awards_and_the_players_to_seat_come_in_the_readers_collation(league):
    # By code point (or casefold) "Ärne", "Österreich" and "Ülla" would come after "Zora".
    from django.utils import translation

    from scoring.events.forms import EventForm

    event = make_event(league, 8)
    _rename(league, ["Zora", "Ärne", "Bernd", "Österreich", "Anna", "Olga", "Ülla", "Emil"])
    with translation.override("de"):
        board = leaderboard.build(event)
        award = leaderboard._award({"Zora": 2, "Ülla": 2, "Ärne": 2, "Bernd": 1})
        offered = [player.name for player in EventForm(league=league).fields["players"].queryset]
    assert [line.name for line in board.lines] == GERMAN_ORDER  # nobody has played: all equal
    assert award is not None and award.names == ["Ärne", "Ülla", "Zora"]
    assert offered == GERMAN_ORDER
