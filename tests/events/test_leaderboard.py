"""The club night's leaderboard: wins, goats, defeat points, tie-breaks, awards."""

from __future__ import annotations

from scoring.events import leaderboard, services
from scoring.models import Event, EventTable
from tests.helpers import make_event, play_deals, play_out, record


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
    assert board.most_goats is None  # one goat each is no story (an award needs two)
    assert board.longest_eggs is not None and board.longest_eggs.value == 2
    assert not any(t.finished for t in board.rounds[0].tables if t.number == second.number)


def test_a_round_cut_short_counts_the_standing_leader_as_the_winner(league):
    event = make_event(league, 8, length="minutes", length_value=20)
    first, _second = _tables(event)
    record(first.series, [30, 90])
    services.round_finish(event=event)
    board = leaderboard.build(event)
    assert board.rounds[0].cut_short and not board.rounds[0].provisional
    _losers, leaders = _sides(first)
    lines = {line.name: line for line in board.lines}
    assert all(lines[name].won == 1 for name in leaders)
    assert all(lines[name].goats == 0 for name in lines)  # nobody was the goat


def test_the_tie_break_the_organiser_picked_orders_equal_players(league):
    event = make_event(league, 8, tie_break=Event.TieBreak.AGAINST)
    first, second = _tables(event)
    record(first.series, [30, 90])  # side 0 takes the defeat points
    record(second.series, [60, 60], [True, True])  # an egg: 0 : 0, level, nobody wins it
    services.round_finish(event=event)
    board = leaderboard.build(Event.objects.get(pk=event.pk))
    _losers, winners = _sides(first)
    level = [name for side in _sides(second) for name in side]
    # The winners first; then the level table's four, equal on every count (none against);
    # the losers, with points against, last.
    assert sorted(line.name for line in board.lines[:2]) == sorted(winners)
    assert sorted(line.name for line in board.lines[2:6]) == sorted(level)
    assert {line.place for line in board.lines[2:6]} == {3}
    assert [line.place for line in board.lines[6:]] == [7, 7]


def test_sitting_out_players_are_named_round_by_round(league):
    event = make_event(league, 9)
    board = leaderboard.build(event)
    assert len(board.rounds[0].out) == 1
    assert board.rounds[0].out[0].startswith("Player ")


GERMAN_ORDER = ["Anna", "Ärne", "Bernd", "Emil", "Olga", "Österreich", "Ülla", "Zora"]


def _rename(league, names):
    from scoring.core.names import name_key
    from scoring.models import Player

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
        award = leaderboard.award({"Zora": 2, "Ülla": 2, "Ärne": 2, "Bernd": 1})
        offered = [player.name for player in EventForm(league=league).fields["players"].queryset]
    assert [line.name for line in board.lines] == GERMAN_ORDER  # nobody has played: all equal
    assert award is not None and award.names == ["Ärne", "Ülla", "Zora"]
    assert offered == GERMAN_ORDER


def test_a_series_counts_as_played_only_once_it_has_a_deal(league):
    event = make_event(league, 8)
    first, second = _tables(event)
    record(first.series, [30, 90])
    services.round_finish(event=event)
    lines = {line.name: line for line in leaderboard.build(event).lines}
    for name in [n for side in _sides(first) for n in side]:
        assert lines[name].played == 1
    for name in [n for side in _sides(second) for n in side]:
        assert (lines[name].played, lines[name].won) == (0, 0)  # cut short before any deal


def test_an_award_shows_only_when_it_means_something(league):
    event = make_event(league, 8)
    first, second = _tables(event)
    record(first.series, [60, 60], [True, True])  # one egg: any evening has one
    play_out(second.series, loser=0)  # one goat each for two players: no story yet
    board = leaderboard.build(event)
    assert board.longest_eggs is None
    assert board.most_goats is None
    record(first.series, [60, 60], [True, True])  # two in a row: a chain
    board = leaderboard.build(event)
    assert board.longest_eggs is not None and board.longest_eggs.value == 2


def test_two_goats_are_an_award_but_not_when_half_the_room_shares_it():
    assert leaderboard.award({"Anna": 2, "Vera": 2, "Boris": 1, "Gleb": 0}, among=8) == (
        leaderboard.Award(names=["Anna", "Vera"], value=2)
    )
    shared = {name: 2 for name in ("Anna", "Vera", "Boris", "Gleb", "Olga")}
    assert leaderboard.award(shared, among=8) is None
    assert leaderboard.award({"Anna": 1}, among=8) is None


def test_a_correction_after_the_round_changes_who_won_a_table_cut_short(league, owner):
    from scoring.table import deals as table_deals

    event = make_event(league, 8)
    first, _second = _tables(event)
    series = record(first.series, [30, 90])  # side 0 takes the defeat points
    services.round_finish(event=event)
    losers, leaders = _sides(first)
    lines = {line.name: line for line in leaderboard.build(event).lines}
    assert all(lines[name].won == 1 for name in leaders)
    series.refresh_from_db()
    table_deals.deal_edit(
        series_id=series.pk,
        number=1,
        version=series.version,
        points=(90, 30),
        tricks=None,
        user=owner,
        organiser=True,
    )
    lines = {line.name: line for line in leaderboard.build(event).lines}
    assert all(lines[name].won == 1 for name in losers)
    assert all(lines[name].won == 0 for name in leaders)


def test_the_boards_version_moves_with_a_deal_a_round_and_a_correction_only(league, owner):
    from scoring.table import deals as table_deals

    event = make_event(league, 8)
    first, _second = _tables(event)
    before = leaderboard.version(event)
    assert leaderboard.version(event) == before  # a read changes nothing
    series = record(first.series, [30, 90])
    after_deal = leaderboard.version(event)
    assert after_deal != before
    services.round_finish(event=event)
    after_finish = leaderboard.version(Event.objects.get(pk=event.pk))
    assert after_finish != after_deal
    series.refresh_from_db()
    table_deals.deal_edit(
        series_id=series.pk,
        number=1,
        version=series.version,
        points=(90, 30),
        tricks=None,
        user=owner,
        organiser=True,
    )
    assert leaderboard.version(Event.objects.get(pk=event.pk)) != after_finish


def test_each_table_of_the_round_says_how_it_stands(league):
    from scoring.table.life import Phase

    event = make_event(league, 12, length="deals", length_value=2)
    first, second, _third = _tables(event)
    play_deals(first.series, [(30, 90), (30, 90)])
    record(second.series, [30, 90])
    played = leaderboard.build(event).rounds[0]
    states = {t.number: t.state for t in played.tables}
    assert states == {1: Phase.CLOSED, 2: Phase.PLAYING, 3: Phase.WAITING}
    # The table at its limit has its result, provisional while the round is open.
    assert [t.provisional for t in played.tables] == [True, False, False] and played.provisional
    services.round_finish(event=event)
    played = leaderboard.build(event).rounds[0]
    states = {t.number: t.state for t in played.tables}
    assert states == {1: Phase.CLOSED, 2: Phase.CUT_SHORT, 3: Phase.CUT_SHORT}
    assert not played.provisional and not any(t.provisional for t in played.tables)
