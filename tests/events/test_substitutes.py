"""A substitute in the round under way (issue #38, item 1): the seat of a player who leaves a
game still being played goes to the substitute, from the next deal on; the game counts for who
ends it (the league's standings and the evening's board), and its change log says from which
deal."""

from __future__ import annotations

import pytest

from scoring.events import leaderboard, services
from scoring.events.services import EventError
from scoring.models import DealEvent, Event, EventTable, Player, RunningTotal, Seat
from tests.helpers import html, logged_in, make_event, play_out, record


def _last_round_under_way(league, players=14):
    """An evening of three rounds, each table of each with a deal, the third under way."""
    event = make_event(league, players, rounds=3)
    for number in (1, 2, 3):
        if number > 1:
            services.round_finish(event=event)
            services.round_start(event=event)
        for table in EventTable.objects.filter(round__event=event, round__number=number):
            record(table.series, [40, 80])
    event.refresh_from_db()
    return event


def _seated(event, number=3):
    """A player of round ``number``'s table 1, and that table's series."""
    table = EventTable.objects.get(round__event=event, round__number=number, number=1)
    seat = table.series.seats.order_by("position").first()
    return Player.objects.get(pk=seat.player_id), table.series


def _present(event, *, without=(), also=()):
    ids = [p for p in event.present if p not in without]
    return [*Player.objects.filter(pk__in=ids), *also]


def test_a_substitute_takes_the_seat_in_the_last_round_and_the_game_counts_for_them(league):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    pyotr = Player.objects.create(name="Pyotr", league=league)
    changed = services.players_change(
        event=event,
        players=_present(event, without=[masha.pk], also=[pyotr]),
        substitutes={masha.pk: pyotr.pk},
    )
    assert [(s.table, s.left, s.joined, s.from_deal) for s in changed.substituted] == [
        (1, masha.name, "Pyotr", 2)
    ]
    seats = list(series.seats.values_list("player_id", flat=True))
    assert pyotr.pk in seats and masha.pk not in seats
    # The change log says from which deal on, and whose seat it was.
    logged = DealEvent.objects.get(series=series, action=DealEvent.Action.SUBSTITUTE)
    assert logged.number == 2
    assert (logged.before["name"], logged.after["name"]) == (masha.name, "Pyotr")
    assert logged.before["position"] == logged.after["position"] == 0
    # The game ends: the league's standings and the evening's board count it for Pyotr.
    play_out(series, loser=0)
    counted = set(RunningTotal.objects.filter(series=series).values_list("player_id", flat=True))
    assert pyotr.pk in counted and masha.pk not in counted
    lines = {line.name: line for line in leaderboard.build(changed.event).lines}
    assert (lines["Pyotr"].played, lines["Pyotr"].goats) == (1, 1)
    before = Seat.objects.filter(player=masha, series__event_table__round__number__lt=3).count()
    assert lines[masha.name].played == before  # her earlier rounds; the third is not hers
    assert not lines[masha.name].present and lines[masha.name].place is None


def test_the_round_in_play_follows_the_substitute_and_the_seating_number_grows(league):
    event = _last_round_under_way(league)
    masha, _series = _seated(event)
    sitting_out = EventTable.objects.filter(round__event=event, round__number=3).first()
    out = event.played_rounds.get(number=3).out
    ivan = Player.objects.get(pk=out[0])  # sits out round 3: may take the seat
    before = event.seating
    changed = services.players_change(
        event=event, players=_present(event, without=[masha.pk]), substitutes={masha.pk: ivan.pk}
    )
    event = changed.event
    assert event.seating == before + 1
    assert ivan.pk in event.plan[2]["tables"][0] and masha.pk not in event.plan[2]["tables"][0]
    assert ivan.pk not in event.plan[2]["out"]
    assert ivan.pk not in event.played_rounds.get(number=3).out
    assert sitting_out is not None


def test_a_game_that_has_ended_counts_for_who_played_it(league):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    play_out(series, loser=1)
    pyotr = Player.objects.create(name="Pyotr", league=league)
    with pytest.raises(EventError, match="has ended"):
        services.players_change(
            event=event,
            players=_present(event, without=[masha.pk], also=[pyotr]),
            substitutes={masha.pk: pyotr.pk},
        )
    assert masha.pk in series.seats.values_list("player_id", flat=True)


def test_a_substitute_who_already_plays_in_the_round_is_refused(league):
    event = _last_round_under_way(league)
    masha, _series = _seated(event)
    other = EventTable.objects.get(round__event=event, round__number=3, number=2)
    busy = Player.objects.get(pk=other.series.seats.first().player_id)
    with pytest.raises(EventError, match="already plays"):
        services.players_change(
            event=event,
            players=_present(event, without=[masha.pk]),
            substitutes={masha.pk: busy.pk},
        )
    assert not DealEvent.objects.filter(action=DealEvent.Action.SUBSTITUTE).exists()


def test_a_player_who_stays_keeps_their_seat(league):
    event = _last_round_under_way(league)
    masha, _series = _seated(event)
    pyotr = Player.objects.create(name="Pyotr", league=league)
    with pytest.raises(EventError, match="keeps their seat"):
        services.players_change(
            event=event, players=_present(event, also=[pyotr]), substitutes={masha.pk: pyotr.pk}
        )


def test_a_new_name_can_be_the_substitute(league):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    services.players_change(
        event=event,
        players=_present(event, without=[masha.pk]),
        names=["Пётр Новиков"],
        substitutes={masha.pk: "Пётр Новиков"},
    )
    assert series.seats.filter(player__name="Пётр Новиков").exists()


def test_between_rounds_there_is_no_seat_to_give(league):
    event = make_event(league, 8, rounds=2)
    masha, _series = _seated(event, number=1)
    services.round_finish(event=event)
    pyotr = Player.objects.create(name="Pyotr", league=league)
    with pytest.raises(EventError, match="No round is in play"):
        services.players_change(
            event=event,
            players=_present(event, without=[masha.pk], also=[pyotr]),
            substitutes={masha.pk: pyotr.pk},
        )


# The page: un-tick who leaves, name who comes --------------------------------------------------


def _post(client, event, players, new="", **answers):
    data = {"players": [p.pk for p in players], "new_players": new, **answers}
    return client.post(f"{event.get_absolute_url()}players/", data)


def test_one_leaver_and_one_newcomer_pair_by_themselves(league, owner):
    """The issue's evening: un-ticking Masha and adding Pyotr in round 3 of 3 seats Pyotr."""
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    client = logged_in(owner)
    response = _post(client, event, _present(event, without=[masha.pk]), new="Pyotr")
    assert response.status_code == 302
    assert series.seats.filter(player__name="Pyotr").exists()
    page = html(client.get(event.get_absolute_url()))
    assert f"Pyotr takes the seat of {masha.name} at table 1 from deal 2 on." in page
    assert f"Round 3, table 1: Pyotr in place of {masha.name} from deal 2 on." in page
    assert "The rounds to come are seated again" not in page  # there are none
    assert "Seating 2: the rounds were seated again" in page


def test_several_who_could_take_the_seat_are_asked_about(league, owner):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    client = logged_in(owner)
    present = _present(event, without=[masha.pk])
    response = _post(client, event, present, new="Pyotr\nZina")
    assert response.status_code == 422
    page = html(response)
    assert f"Who takes the seat of {masha.name} at table 1, from deal 2 on?" in page
    assert f"Nobody: the game still counts for {masha.name}" in page
    assert series.seats.filter(player=masha).exists()  # nothing changed yet
    response = _post(client, event, present, new="Pyotr\nZina", **{f"seat-{masha.pk}": "name-Zina"})
    assert response.status_code == 302
    assert series.seats.filter(player__name="Zina").exists()


def test_nobody_keeps_the_game_for_the_leaver(league, owner):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    client = logged_in(owner)
    present = _present(event, without=[masha.pk])
    response = _post(client, event, present, new="Pyotr\nZina", **{f"seat-{masha.pk}": ""})
    assert response.status_code == 302
    assert series.seats.filter(player=masha).exists()
    assert not DealEvent.objects.filter(action=DealEvent.Action.SUBSTITUTE).exists()


def test_a_substitute_picked_twice_or_made_up_is_a_clear_refusal(league, owner):
    event = make_event(league, 8, rounds=2)
    first = EventTable.objects.get(round__event=event, number=1).series
    record(first, [40, 80])
    second = EventTable.objects.get(round__event=event, number=2).series
    record(second, [40, 80])
    a = Seat.objects.filter(series=first).first().player_id
    b = Seat.objects.filter(series=second).first().player_id
    client = logged_in(owner)
    present = _present(event, without=[a, b])
    twice = {f"seat-{a}": "name-Pyotr", f"seat-{b}": "name-Pyotr"}
    response = _post(client, event, present, new="Pyotr\nZina", **twice)
    assert response.status_code == 422 and "A substitute takes one seat only." in html(response)
    made_up = {f"seat-{a}": "name-Nobody", f"seat-{b}": "player-999999999999999"}
    response = _post(client, event, present, new="Pyotr\nZina", **made_up)
    assert response.status_code == 422 and "Pick each substitute from the list." in html(response)
    assert not DealEvent.objects.filter(action=DealEvent.Action.SUBSTITUTE).exists()


def test_a_substitute_shows_in_the_games_change_log(league, owner):
    event = _last_round_under_way(league)
    masha, series = _seated(event)
    _post(logged_in(owner), event, _present(event, without=[masha.pk]), new="Pyotr")
    page = html(logged_in(owner).get(f"/series/{series.pk}/sheet/"))
    assert f"From deal 2, Pyotr plays in place of {masha.name}" in page


def test_old_boards_hear_of_the_next_round_and_of_a_new_seating(league):
    """A board of round 1's game, opened by its own address, polls its series' version: the
    next round's start and a re-seating give it one, so it stops saying "Waiting for round 2"."""
    event = make_event(league, 8, rounds=3)
    game = EventTable.objects.get(round__event=event, round__number=1, number=1).series
    services.round_finish(event=event)
    game.refresh_from_db()
    finished = game.version
    services.round_start(event=event)
    game.refresh_from_db()
    assert game.version == finished + 1
    event = Event.objects.get(pk=event.pk)
    second = EventTable.objects.get(round__event=event, round__number=2, number=1).series
    before = second.version
    leaver = event.plan[2]["tables"][0][0]
    services.players_change(event=event, players=_present(event, without=[leaver]))
    second.refresh_from_db()
    assert second.version == before + 1
    game.refresh_from_db()
    assert game.version == finished + 1  # an older round's board says nothing of it


def test_a_backup_keeps_the_substitute_the_seating_number_and_the_tvs_code(league):
    import json

    from scoring.backup.json_import import history_import
    from tests.helpers import exported, wipe

    event = _last_round_under_way(league)
    masha, series = _seated(event)
    pyotr = Player.objects.create(name="Pyotr", league=league)
    services.players_change(
        event=event,
        players=_present(event, without=[masha.pk], also=[pyotr]),
        substitutes={masha.pk: pyotr.pk},
    )
    event = Event.objects.get(pk=event.pk)
    logged = list(DealEvent.objects.filter(series=series).values("number", "action", "before"))
    document = exported()
    wipe()
    history_import(json.loads(document))
    restored = Event.objects.get(pk=event.pk)
    assert (restored.seating, restored.tv_code) == (event.seating, event.tv_code) != (1, None)
    assert list(DealEvent.objects.filter(series=series.pk).values("number", "action", "before"))
    assert logged == list(
        DealEvent.objects.filter(series=series.pk).values("number", "action", "before")
    )
    assert exported() == document
