"""Writes: starting, recording, editing, undoing and rematching, each in one transaction."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import rules
from scoring.models import Deal, DealEvent, League, Player, Series
from scoring.table import deals, services
from tests.helpers import THREE, assert_stored_matches_replay, db_snapshot, record, start_series

pytestmark = pytest.mark.django_db

NAKED_LOSS = ((0, 120), (False, True))  # team N+S scores 6


def finish(series: Series) -> Series:
    """Two naked losses for N+S: 12 defeat points, the goat."""
    for _ in range(2):
        series = record(series, *NAKED_LOSS)
    assert series.finished
    return series


def edit(series: Series, number: int, points, tricks=None) -> Series:
    """Edit a deal from a form shown now (at the series' current version)."""
    series.refresh_from_db()
    return deals.deal_edit(
        series_id=series.pk, number=number, version=series.version, points=points, tricks=tricks
    )


def undo(series: Series, number: int) -> Series:
    """Undo from a scoreboard shown now."""
    series.refresh_from_db()
    return deals.deal_undo(series_id=series.pk, number=number, version=series.version)


# Starting a series


def test_a_series_starts_with_seats_clockwise_and_partners_opposite(quick_series):
    seats = list(quick_series.seats.order_by("position").select_related("player"))
    assert [seat.player.name for seat in seats] == ["Anna", "Boris", "Vera", "Gleb"]
    assert [seat.side for seat in seats] == [0, 1, 0, 1]
    assert quick_series.table.score_token and quick_series.table.watch_token
    assert quick_series.table.score_token != quick_series.table.watch_token
    assert_stored_matches_replay(quick_series)


def test_a_series_freezes_its_house_rules(db):
    series = start_series(ruleset=rules.Ruleset(target=21, eggs="stacking"))
    assert series.ruleset == rules.Ruleset(target=21, eggs="stacking")


@pytest.mark.parametrize(
    ("mode", "names", "dealer", "problem"),
    [
        ("teams", ("A", "B", "C"), 0, "needs 4 players"),
        ("duel", ("A", "A"), 0, "only one seat"),
        ("three", ("A", "B", "C"), 3, "first dealer"),
    ],
)
def test_a_series_refuses_a_table_that_does_not_fit_its_mode(db, mode, names, dealer, problem):
    players = [Player.objects.get_or_create(name=name)[0] for name in names]
    with pytest.raises(ValueError, match=problem):
        services.series_start(
            mode=mode, players=players, first_dealer=dealer, ruleset=rules.Ruleset()
        )
    assert not Series.objects.exists()


def test_players_are_found_in_the_league_whatever_the_case_and_spaces(league):
    anna = Player.objects.create(name="Anna Petrova", league=league)
    found = services.players_resolve(names=["  anna   PETROVA ", "Boris"], league=league)
    assert found[0] == anna
    assert found[1].name == "Boris" and found[1].league == league


def test_a_quick_game_never_takes_a_leagues_player(league):
    league_anna = Player.objects.create(name="Anna", league=league)
    quick_anna = Player.objects.create(name="Anna")
    known = Player.objects.all()
    found = services.players_resolve(names=["anna", "Boris"], league=None, known=known)
    assert found[0] == quick_anna != league_anna
    assert found[1].league is None


def test_a_quick_game_without_known_players_creates_new_ones(db):
    Player.objects.create(name="Anna")
    found = services.players_resolve(names=["Anna"], league=None, known=None)
    assert Player.objects.filter(name="Anna").count() == 2
    assert found[0].league is None


def test_series_create_resolves_names_and_starts_the_game(league):
    series = services.series_create(
        mode="duel",
        names=["Lena", "Misha"],
        first_dealer=1,
        ruleset=rules.PRESETS["eggs-double"],
        league=league,
    )
    assert series.league == league
    assert [seat.player.name for seat in series.seats.order_by("position")] == ["Lena", "Misha"]
    assert series.first_dealer == 1
    assert League.objects.get().players.count() == 2


# Recording


def test_recording_a_deal_stores_it_with_an_event_and_fresh_totals(quick_series):
    key = uuid.uuid4()
    recorded = deals.deal_record(
        series_id=quick_series.pk, number=1, points=(80, 40), tricks=None, entry_key=key
    )
    assert recorded.created
    assert recorded.deal.points == (80, 40, None)
    assert recorded.deal.entry_key == key
    event = DealEvent.objects.get()
    assert (event.action, event.number, event.after["points"]) == ("recorded", 1, [80, 40, None])
    state = assert_stored_matches_replay(quick_series)
    assert state.totals == (0, 2)
    assert quick_series.version == 2  # the start, then this deal


def test_recording_again_with_the_same_entry_key_records_nothing_new(quick_series):
    key = uuid.uuid4()
    first = deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    again = deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    assert not again.created
    assert again.deal.pk == first.deal.pk
    assert Deal.objects.count() == 1
    assert DealEvent.objects.count() == 1


def test_an_entry_key_from_another_series_is_a_conflict(quick_series):
    other = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    key = uuid.uuid4()
    deals.deal_record(series_id=other.pk, number=1, points=(90, 30), tricks=None, entry_key=key)
    outcome = deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    assert outcome.entry is deals.Entry.STALE and outcome.deal is None
    assert quick_series.deals.count() == 0


@pytest.mark.parametrize("number", [0, 1, 3])
def test_a_form_for_another_deal_number_is_a_conflict(quick_series, number):
    record(quick_series, (90, 30))
    before = db_snapshot()
    outcome = deals.deal_record(
        series_id=quick_series.pk, number=number, points=(70, 50), tricks=None
    )
    assert outcome.entry is deals.Entry.STALE
    assert db_snapshot() == before


@pytest.mark.parametrize(
    ("points", "tricks", "message"),
    [
        ((1, 119), None, "1 is impossible"),
        ((60, 59), None, "add up to 119"),
        ((0, 120), None, "took a trick"),
        ((30, 90), (False, True), "took at least one trick"),
        ((40, 40, 40), None, "2 sides are in play"),
    ],
)
def test_a_refused_deal_changes_nothing(quick_series, points, tricks, message):
    before = db_snapshot()
    outcome = deals.deal_record(series_id=quick_series.pk, number=1, points=points, tricks=tricks)
    assert outcome.entry is deals.Entry.REFUSED and outcome.deal is None
    assert message in outcome.error.render(str)
    assert db_snapshot() == before


def test_no_deal_can_be_added_to_a_finished_series(quick_series):
    series = finish(quick_series)
    before = db_snapshot()
    outcome = deals.deal_record(series_id=series.pk, number=3, points=(90, 30), tricks=None)
    assert outcome.entry is deals.Entry.OVER and outcome.deal is None
    assert db_snapshot() == before


def test_finishing_stamps_the_time_and_names_goat_and_winner(quick_series):
    series = finish(quick_series)
    assert series.finished_at is not None
    assert series.goat_sides == [0]
    assert series.winner_side == 1
    assert {seat.player.name for seat in series.seats.filter(is_goat=True)} == {"Anna", "Vera"}
    assert_stored_matches_replay(series)


# Editing


def test_editing_a_deal_rescores_every_deal_after_it(quick_series):
    for points in [(80, 40), (100, 20), (70, 50)]:
        record(quick_series, points)
    edit(quick_series, 1, (40, 80))
    state = assert_stored_matches_replay(quick_series)
    assert [outcome.totals for outcome in state.deals] == [(2, 0), (2, 4), (2, 6)]
    event = DealEvent.objects.filter(action="edited").get()
    assert event.before["points"][:2] == [80, 40]
    assert event.after["points"][:2] == [40, 80]


def test_an_edit_can_finish_a_series(quick_series):
    record(quick_series, *NAKED_LOSS)
    record(quick_series, (90, 30))
    edit(quick_series, 2, (0, 120), (False, True))
    state = assert_stored_matches_replay(quick_series)
    assert state.finished and state.goats == (0,)


def test_an_edit_can_reopen_a_finished_series(quick_series):
    series = finish(quick_series)
    edit(series, 2, (90, 30))
    series.refresh_from_db()
    assert not series.finished
    assert series.finished_at is None
    assert series.goat_sides == []
    assert_stored_matches_replay(series)


def test_an_edit_that_would_end_the_series_before_later_deals_is_refused(quick_series):
    record(quick_series, *NAKED_LOSS)
    record(quick_series, (90, 30))
    record(quick_series, (90, 30))
    before = db_snapshot()
    with pytest.raises(rules.InvalidDeal) as caught:
        edit(quick_series, 2, (0, 120), (False, True))
    assert caught.value.number == 3
    assert str(caught.value) == "Deal 3: The series is over; no deal can be added."
    assert db_snapshot() == before


def test_an_edit_that_puts_another_player_out_is_refused_when_later_deals_no_longer_fit(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    record(series, (0, 60, 60), (False, True, True))  # Ira out
    record(series, (70, 50))  # Kolya and Lida
    before = db_snapshot()
    with pytest.raises(rules.InvalidDeal) as caught:
        edit(series, 2, (60, 0, 60), (True, False, True))
    assert caught.value.number == 3
    assert db_snapshot() == before


def test_an_edit_refuses_bad_values_naming_the_deal(quick_series):
    record(quick_series, (90, 30))
    with pytest.raises(rules.InvalidDeal) as caught:
        edit(quick_series, 1, (1, 119))
    assert str(caught.value).startswith("Deal 1: ")
    with pytest.raises(rules.InvalidDeal, match="Deal 1: 2 sides are in play"):
        edit(quick_series, 1, (40, 40, 40))


def test_an_edit_without_a_change_writes_nothing(quick_series):
    record(quick_series, (90, 30))
    before = db_snapshot()
    edit(quick_series, 1, (90, 30))
    assert db_snapshot() == before


def test_editing_a_deal_that_is_gone_is_a_conflict(quick_series):
    with pytest.raises(deals.DealConflict):
        edit(quick_series, 1, (90, 30))


# Undo


def test_undo_removes_the_last_deal_and_rescores(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (40, 80))
    undo(quick_series, 2)
    state = assert_stored_matches_replay(quick_series)
    assert state.totals == (0, 2)
    event = DealEvent.objects.filter(action="removed").get()
    assert event.before["points"][:2] == [40, 80]


def test_a_second_undo_of_the_same_deal_removes_nothing_more(quick_series):
    record(quick_series, (90, 30))
    record(quick_series, (30, 90))
    shown = quick_series.version
    deals.deal_undo(series_id=quick_series.pk, number=2, version=shown)
    before = db_snapshot()
    with pytest.raises(deals.DealConflict):
        deals.deal_undo(series_id=quick_series.pk, number=2, version=shown)
    assert quick_series.deals.count() == 1
    assert db_snapshot() == before


@pytest.mark.parametrize("number", [0, 1])
def test_undo_of_a_deal_that_is_no_longer_the_last_is_a_conflict(quick_series, number):
    record(quick_series, (90, 30))
    record(quick_series, (30, 90))
    with pytest.raises(deals.DealConflict):
        undo(quick_series, number)
    assert quick_series.deals.count() == 2


def test_undoing_the_last_deal_reopens_a_finished_series(quick_series):
    series = finish(quick_series)
    undo(series, 2)
    state = assert_stored_matches_replay(series)
    assert not state.finished


# Stale forms: an undo or edit acts on the series as its page showed it, and a form that
# recorded a deal stays spent once that deal is undone.


def test_an_old_undo_never_removes_a_deal_recorded_since(quick_series):
    """Phone A undoes deal 2; phone B records a new deal 2; A's undo is sent again."""
    record(quick_series, (90, 30))
    record(quick_series, (30, 90))
    shown_on_a = quick_series.version
    deals.deal_undo(series_id=quick_series.pk, number=2, version=shown_on_a)
    b_deal = record(quick_series, (70, 50)).deals.get(number=2)
    before = db_snapshot()
    with pytest.raises(deals.DealConflict):
        deals.deal_undo(series_id=quick_series.pk, number=2, version=shown_on_a)
    assert db_snapshot() == before
    assert quick_series.deals.get(number=2).pk == b_deal.pk


def test_an_undo_shown_before_an_edit_elsewhere_removes_nothing(quick_series):
    record(quick_series, (90, 30))
    shown = quick_series.version
    edit(quick_series, 1, (60, 60))
    before = db_snapshot()
    with pytest.raises(deals.DealConflict):
        deals.deal_undo(series_id=quick_series.pk, number=1, version=shown)
    assert db_snapshot() == before


def test_an_edit_from_an_old_form_changes_nothing(quick_series):
    record(quick_series, (90, 30))
    record(quick_series, (80, 40))
    shown = quick_series.version
    edit(quick_series, 1, (100, 20))  # phone B's edit
    before = db_snapshot()
    with pytest.raises(deals.DealConflict):
        deals.deal_edit(
            series_id=quick_series.pk, number=1, version=shown, points=(40, 80), tricks=None
        )
    assert db_snapshot() == before
    assert quick_series.deals.get(number=1).points[:2] == (100, 20)


def test_an_old_edit_form_is_stale_even_after_a_new_deal_was_recorded(quick_series):
    record(quick_series, (90, 30))
    shown = quick_series.version
    record(quick_series, (80, 40))
    with pytest.raises(deals.DealConflict):
        deals.deal_edit(
            series_id=quick_series.pk, number=1, version=shown, points=(40, 80), tricks=None
        )
    assert quick_series.deals.get(number=1).points[:2] == (90, 30)


def test_an_old_edit_form_with_values_refused_now_is_stale_not_invalid(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    shown = series.version
    record(series, (0, 60, 60), (False, True, True))  # Ira is out: two sides from deal 3
    record(series, (70, 50))
    with pytest.raises(deals.DealConflict):
        deals.deal_edit(
            series_id=series.pk, number=3, version=shown, points=(40, 40, 40), tricks=None
        )


def test_an_edit_sent_twice_is_done_once_and_the_second_changes_nothing(quick_series):
    record(quick_series, (90, 30))
    shown = quick_series.version
    for _tap in range(2):  # the second tap's form is stale, but asks for what is stored
        deals.deal_edit(
            series_id=quick_series.pk, number=1, version=shown, points=(40, 80), tricks=None
        )
    assert DealEvent.objects.filter(action="edited").count() == 1
    quick_series.refresh_from_db()
    assert quick_series.version == shown + 1


def test_an_undone_deal_keeps_its_key_spent(quick_series):
    key = uuid.uuid4()
    deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    undo(quick_series, 1)
    assert DealEvent.objects.get(action="removed").entry_key == key
    before = db_snapshot()
    outcome = deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    assert outcome.entry is deals.Entry.SPENT
    assert db_snapshot() == before


def test_a_spent_key_of_another_series_is_a_conflict(quick_series):
    key = uuid.uuid4()
    deals.deal_record(
        series_id=quick_series.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    undo(quick_series, 1)
    other = start_series()
    outcome = deals.deal_record(
        series_id=other.pk, number=1, points=(90, 30), tricks=None, entry_key=key
    )
    assert outcome.entry is deals.Entry.STALE  # not SPENT: the key was spent elsewhere
    assert not other.deals.exists()


# Rematch


def test_a_rematch_keeps_seats_and_rules_and_the_next_player_deals(db):
    series = finish(start_series(ruleset=rules.PRESETS["eggs-double"], first_dealer=3))
    rematch = services.series_rematch(series=series)
    assert rematch.rematch_of == series
    assert rematch.ruleset == rules.PRESETS["eggs-double"]
    assert rematch.first_dealer == 0  # after seat 3 (West) comes seat 0 (North)
    assert [seat.player_id for seat in rematch.seats.order_by("position")] == [
        seat.player_id for seat in series.seats.order_by("position")
    ]
    assert rematch.deal_count == 0 and not rematch.finished


def test_a_second_rematch_opens_the_same_new_series(quick_series):
    series = finish(quick_series)
    assert services.series_rematch(series=series) == services.series_rematch(series=series)
    assert Series.objects.count() == 2


def test_a_series_still_in_play_has_no_rematch(quick_series):
    with pytest.raises(services.RematchRefused, match="still being played"):
        services.series_rematch(series=quick_series)
    assert Series.objects.count() == 1


# Whatever happens, the stored fields agree with a replay.

OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("record"), st.sampled_from([0, 20, 30, 31, 59, 60, 61, 90, 100, 120])),
        st.tuples(st.just("edit"), st.integers(0, 9), st.sampled_from([0, 30, 60, 90, 120])),
        st.tuples(st.just("undo")),
    ),
    max_size=12,
)


def deal_for(series: Series, first: int) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Card points for the sides in play: ``first`` for the first, the rest shared out."""
    sides = len(assert_stored_matches_replay(series).in_play)
    if sides == 2:
        points: tuple[int, ...] = (first, 120 - first)
    else:
        rest = 120 - first
        points = (first, rest // 2, rest - rest // 2)
        if 1 in points or 119 in points:
            points = (first, rest, 0)
    return points, tuple(value > 0 for value in points)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["teams", "three"])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(operations=OPERATIONS)
def test_stored_totals_always_agree_with_a_replay(db, mode, operations):
    with transaction.atomic():
        names = THREE if mode == "three" else ("Anna", "Boris", "Vera", "Gleb")
        series = start_series(mode=mode, names=names, ruleset=rules.PRESETS["eggs-stacking"])
        for operation in operations:
            series.refresh_from_db()
            try:
                if operation[0] == "record":
                    points, tricks = deal_for(series, operation[1])
                    deals.deal_record(
                        series_id=series.pk,
                        number=series.deal_count + 1,
                        points=points,
                        tricks=tricks,
                    )
                elif operation[0] == "edit" and series.deal_count:
                    number = operation[1] % series.deal_count + 1
                    earlier = Deal.objects.filter(series=series, number=number).get()
                    sides = sum(value is not None for value in earlier.points)
                    first = operation[2]
                    points = (first, 120 - first) if sides == 2 else (first, 120 - first, 0)
                    deals.deal_edit(
                        series_id=series.pk,
                        number=number,
                        version=series.version,
                        points=points,
                        tricks=tuple(value > 0 for value in points),
                    )
                elif operation[0] == "undo":
                    undo(series, series.deal_count)
            except (rules.InvalidDeal, deals.DealConflict):
                pass  # refused: nothing changed, which the next check also covers
            assert_stored_matches_replay(series)
        transaction.set_rollback(True)


def test_renewing_a_link_replaces_only_that_token(quick_series):
    score, watch = quick_series.table.score_token, quick_series.table.watch_token
    services.table_link_renew(table=quick_series.table, link="watch")
    quick_series.refresh_from_db()
    assert quick_series.table.score_token == score
    assert quick_series.table.watch_token not in (watch, score)
    with pytest.raises(ValueError):
        services.table_link_renew(table=quick_series.table, link="both")
