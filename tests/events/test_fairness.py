"""A leaderboard fair to fewer games (issue #38, item 4): ranked by the share of series won,
each player counted with two series at the evening's average; a late arrival listed at once;
places among those present; table cards that say they are out of date after re-seating."""

from __future__ import annotations

from fractions import Fraction

from scoring.events import leaderboard, services
from scoring.models import Event, EventTable, Player
from tests.helpers import html, logged_in, make_event, play_out


def _line(board, name):
    return next(line for line in board.lines if line.name == name)


def _lines(**records):
    """Leaderboard lines of players with these (won, played)."""
    return [
        leaderboard.Line(player_id=at, name=name, won=won, played=played)
        for at, (name, (won, played)) in enumerate(records.items())
    ]


def test_one_win_of_one_is_not_ahead_of_five_of_six():
    lines = _lines(late=(1, 1), steady=(5, 6), even=(3, 6))
    mean = Fraction(9, 13)
    rates = {
        ln.name: (ln.won + leaderboard.RATE_PRIOR * mean) / (ln.played + leaderboard.RATE_PRIOR)
        for ln in lines
    }
    assert rates["steady"] > rates["late"] > rates["even"]


def test_the_board_ranks_by_the_share_of_series_won_not_by_series_won(league):
    """Round 1 played to the goat at both tables; a late arrival joins and wins round 2's game;
    the others played two: two wins of two come first, one of one next, one of two after (by
    series won, one of one and one of two were level)."""
    event = make_event(league, 8, rounds=3)
    for table in EventTable.objects.filter(round__event=event):
        play_out(table.series, loser=0)
    services.round_finish(event=event)
    late = Player.objects.create(name="Latecomer", league=league)
    everyone = [*Player.objects.filter(pk__in=event.present), late]
    event = services.players_change(event=event, players=everyone).event
    board = leaderboard.build(event)
    arrived = _line(board, "Latecomer")
    assert (arrived.played, arrived.won, arrived.present) == (0, 0, True)  # listed at once
    assert arrived.place is not None
    services.round_start(event=event)
    for table in EventTable.objects.filter(round__event=event, round__number=2):
        seated = table.series.seats.filter(player=late).first()
        play_out(table.series, loser=0 if seated is None else 1 - seated.side)
    board = leaderboard.build(Event.objects.get(pk=event.pk))
    arrived = _line(board, "Latecomer")
    assert (arrived.won, arrived.played) == (1, 1)
    present = [ln for ln in board.lines if ln.present]
    assert [ln.rate for ln in present] == sorted((ln.rate for ln in present), reverse=True)
    halves = [ln for ln in present if (ln.won, ln.played) == (1, 2)]
    assert halves and all(arrived.place < ln.place for ln in halves)
    assert all(ln.place < arrived.place for ln in present if (ln.won, ln.played) == (2, 2))


def test_places_count_among_the_players_present_and_a_leaver_is_listed_after(league):
    event = make_event(league, 14, rounds=3)
    for table in EventTable.objects.filter(round__event=event):
        play_out(table.series, loser=0)
    services.round_finish(event=event)
    leaver = Player.objects.get(pk=event.plan[0]["tables"][0][0])
    late = Player.objects.create(name="Latecomer", league=league)
    present = [*Player.objects.filter(pk__in=event.present).exclude(pk=leaver.pk), late]
    event = services.players_change(event=event, players=present).event
    board = leaderboard.build(event)
    assert board.present_count == 14 == len(event.present)
    assert len(board.lines) == 15
    gone = _line(board, leaver.name)
    assert (gone.present, gone.place) == (False, None) and gone.played == 1
    assert board.lines[-1] is gone
    assert max(ln.place for ln in board.lines if ln.present) <= 14


def test_the_seat_page_says_place_n_of_those_present(league):
    from tests.events.test_seat import picked, seat_url, text

    event = make_event(league, 14, rounds=3)
    for table in EventTable.objects.filter(round__event=event):
        play_out(table.series, loser=0)
    services.round_finish(event=event)
    late = Player.objects.create(name="Latecomer", league=league)
    event = services.players_change(
        event=event, players=[*Player.objects.filter(pk__in=event.present), late]
    ).event
    player = Player.objects.get(pk=event.plan[0]["tables"][0][0])
    shown = text(picked(event, player).get(seat_url(event)))
    line = _line(leaderboard.build(event), player.name)
    assert f"Place {line.place} of 15" in shown


def test_the_board_says_its_rule_in_words(league, owner):
    event = make_event(league, 9, rounds=2)
    page = html(logged_in(owner).get(f"{event.get_absolute_url()}board/"))
    assert "Order: the share of series won, each player counted as if they had also" in page
    assert "played 2 more series at the evening's average" in page
    assert "so one win of one is not ahead of five of six" in page
    assert "Places among the 9 players present." in page
    tv = html(logged_in(owner).get(f"{event.get_absolute_url()}board/?present=1"))
    assert "Places among the 9 players present." in tv


def test_the_cards_carry_the_seating_number_and_the_evening_says_when_they_are_old(league, owner):
    event = make_event(league, 9, rounds=3)
    client = logged_in(owner)
    cards = html(client.get(f"{event.get_absolute_url()}cards/"))
    assert cards.count("Seating 1</span>") == event.tables.count()
    assert "the rounds were seated again" not in html(client.get(event.get_absolute_url()))
    # Saved again with nobody changed: the seating stays, no card is out of date.
    same = services.players_change(event=event, players=list(Player.objects.all()))
    assert (same.reseated, same.event.seating) == (False, 1)
    leaver = event.plan[1]["tables"][0][0]
    changed = services.players_change(event=event, players=list(Player.objects.exclude(pk=leaver)))
    assert (changed.reseated, changed.event.seating) == (True, 2)
    page = html(client.get(event.get_absolute_url()))
    assert "Seating 2: the rounds were seated again." in page
    assert "A printed table card that shows an older seating number is out of date" in page
    assert "Seating 2</span>" in html(client.get(f"{event.get_absolute_url()}cards/"))


def test_one_round_is_said_as_one(league, owner):
    event = make_event(league, 8, rounds=1)
    page = html(logged_in(owner).get(event.get_absolute_url()))
    assert "<span>1 round</span>" in page and "1 rounds" not in page
