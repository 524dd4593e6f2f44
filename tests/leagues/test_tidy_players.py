"""Renaming and merging a league's players, the merge's preview and undo, the league's changes."""

from __future__ import annotations

import pytest

from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.leagues.services import LeagueError
from scoring.models import (
    Event,
    League,
    LeagueEvent,
    PairResult,
    Player,
    RunningTotal,
    Seat,
    Series,
)
from scoring.standings.selectors import StandingsFilter, head_to_head, league_standings
from tests.helpers import (
    finished,
    html,
    league_snapshot,
    logged_in,
    make_event,
    totals_refold,
)

pytestmark = pytest.mark.django_db


def player(league, name) -> Player:
    return Player.objects.get(league=league, name=name)


def standings_names(league) -> dict[str, int]:
    table = league_standings(league, StandingsFilter(), everyone=True)
    return {row.name: row.played for row in table.players}


@pytest.fixture
def typo(league):
    """Anna played twice, once typed as Anya (never at one table with Anna)."""
    finished(league, names=("Anna", "Boris"), mode="duel")
    finished(league, names=("Anna", "Vera"), mode="duel", loser=1)
    finished(league, names=("Anya", "Boris"), mode="duel")
    return league


def test_rename_changes_the_name_everywhere_and_is_recorded(typo, owner):
    anya = player(typo, "Anya")
    version = Series.objects.get(seats__player=anya).version
    league_players.player_rename(league=typo, player_id=anya.pk, name="  Anyuta ", user=owner)
    anya.refresh_from_db()
    assert anya.name == "Anyuta"
    assert "Anyuta" in standings_names(typo)
    assert Series.objects.get(seats__player=anya).version == version + 1
    event = LeagueEvent.objects.get(league=typo)
    assert (event.action, event.actor, event.data["before"]) == ("renamed", owner, "Anya")


def test_renaming_to_another_players_name_is_refused_and_suggests_a_merge(typo, owner):
    before = league_snapshot(typo)
    with pytest.raises(LeagueError, match="merge"):
        league_players.player_rename(
            league=typo, player_id=player(typo, "Anya").pk, name="ANNA", user=owner
        )
    assert league_snapshot(typo) == before


def test_a_merge_moves_every_seat_and_the_standings_follow(typo, owner):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    assert standings_names(typo)["Anna"] == 2
    league = League.objects.get(pk=typo.pk)
    preview = league_players.merge_preview(league=typo, source_id=anya.pk, target_id=anna.pk)
    assert (preview.series, preview.shared, preview.refusal) == (1, 0, "")
    event = league_players.players_merge(
        league=typo, source_id=anya.pk, target_id=anna.pk, user=owner
    )
    assert not Player.objects.filter(pk=anya.pk).exists()
    assert Seat.objects.filter(player=anna).count() == 3
    names = standings_names(typo)
    assert names["Anna"] == 3 and "Anya" not in names
    typo.refresh_from_db()
    assert typo.results_version > league.results_version
    assert event.data["source"]["name"] == "Anya" and event.actor == owner


def test_players_who_sat_together_cannot_be_merged(typo, owner):
    before = league_snapshot(typo)
    anna, boris = player(typo, "Anna"), player(typo, "Boris")
    preview = league_players.merge_preview(league=typo, source_id=boris.pk, target_id=anna.pk)
    assert preview.shared == 1 and "same table" in preview.refusal
    with pytest.raises(LeagueError, match="same table"):
        league_players.players_merge(league=typo, source_id=boris.pk, target_id=anna.pk, user=owner)
    assert league_snapshot(typo) == before


def test_players_of_two_accounts_cannot_be_merged(typo, owner, scorer):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    league_players.player_link_user(league=typo, player_id=anna.pk, user_id=owner.pk)
    league_players.player_link_user(league=typo, player_id=anya.pk, user_id=scorer.pk)
    with pytest.raises(LeagueError, match="accounts"):
        league_players.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)


def test_undo_brings_the_player_back_as_before(typo, owner, scorer):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    league_players.player_link_user(league=typo, player_id=anya.pk, user_id=scorer.pk)
    seats = set(Seat.objects.filter(player=anya).values_list("pk", flat=True))
    standings = standings_names(typo)
    event = league_players.players_merge(
        league=typo, source_id=anya.pk, target_id=anna.pk, user=owner
    )
    assert Player.objects.get(pk=anna.pk).user == scorer  # the link follows
    restored = league_players.merge_undo(league=typo, event_id=event.pk, user=owner)
    assert (restored.pk, restored.name, restored.user) == (anya.pk, "Anya", scorer)
    assert set(Seat.objects.filter(player=restored).values_list("pk", flat=True)) == seats
    assert Player.objects.get(pk=anna.pk).user is None
    assert standings_names(typo) == standings
    event.refresh_from_db()
    assert event.undone_at is not None
    assert LeagueEvent.objects.filter(league=typo, action="unmerged").count() == 1
    with pytest.raises(LeagueError, match="undone already"):
        league_players.merge_undo(league=typo, event_id=event.pk, user=owner)


def test_undo_is_refused_when_the_name_is_taken_again_or_the_target_merged_on(typo, owner):
    anna, anya, vera = player(typo, "Anna"), player(typo, "Anya"), player(typo, "Vera")
    first = league_players.players_merge(
        league=typo, source_id=anya.pk, target_id=anna.pk, user=owner
    )
    league_players.player_rename(league=typo, player_id=vera.pk, name="anya", user=owner)
    with pytest.raises(LeagueError, match="again"):
        league_players.merge_undo(league=typo, event_id=first.pk, user=owner)
    league_players.player_rename(league=typo, player_id=vera.pk, name="Vera", user=owner)
    boris = player(typo, "Boris")
    # Anna (with Anya's series) merged on: Anna sat with Boris, so use a fresh player.
    lone = Player.objects.create(name="Zoya", league=typo)
    league_players.players_merge(league=typo, source_id=anna.pk, target_id=lone.pk, user=owner)
    with pytest.raises(LeagueError, match="undo that merge first"):
        league_players.merge_undo(league=typo, event_id=first.pk, user=owner)
    assert boris.pk  # Boris was never touched


# The pages ---------------------------------------------------------------------------------


def test_the_merge_is_previewed_then_done_then_undone_from_the_changes_page(typo, owner):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    client = logged_in(owner)
    page = client.get(f"/leagues/{typo.pk}/players/{anya.pk}/")
    assert page.status_code == 200 and "Merge into another player" in html(page)
    preview = client.get(f"/leagues/{typo.pk}/players/{anya.pk}/merge/", {"into": anna.pk})
    assert preview.status_code == 200
    assert "Anya's 1 series becomes Anna's." in html(preview)
    assert Player.objects.filter(pk=anya.pk).exists()  # a preview changes nothing
    done = client.post(f"/leagues/{typo.pk}/players/{anya.pk}/merge/", {"into": anna.pk})
    assert done.status_code == 302
    changes = client.get(f"/leagues/{typo.pk}/changes/")
    assert "Anya merged into Anna (1 series)" in html(changes)
    event = LeagueEvent.objects.get(action="merged")
    assert f"/leagues/{typo.pk}/changes/{event.pk}/undo/" in html(changes)
    undone = client.post(f"/leagues/{typo.pk}/changes/{event.pk}/undo/")
    assert undone.status_code == 302
    assert Player.objects.filter(pk=anya.pk, name="Anya").exists()


def test_a_refused_merge_says_why_in_the_page(typo, owner):
    anna, boris = player(typo, "Anna"), player(typo, "Boris")
    client = logged_in(owner)
    preview = client.get(f"/leagues/{typo.pk}/players/{boris.pk}/merge/", {"into": anna.pk})
    assert preview.status_code == 422 and "same table" in html(preview)
    before = league_snapshot(typo)
    post = client.post(f"/leagues/{typo.pk}/players/{boris.pk}/merge/", {"into": anna.pk})
    assert post.status_code == 422 and "same table" in html(post)
    bad = client.post(f"/leagues/{typo.pk}/players/{boris.pk}/merge/", {"into": "x"})
    assert bad.status_code == 422
    assert league_snapshot(typo) == before


def test_a_rename_to_a_taken_name_answers_422_with_the_reason(typo, owner):
    anya = player(typo, "Anya")
    client = logged_in(owner)
    response = client.post(f"/leagues/{typo.pk}/players/{anya.pk}/rename/", {"name": "anna"})
    assert response.status_code == 422
    assert "merge Anya into Anna instead" in html(response)
    empty = client.post(f"/leagues/{typo.pk}/players/{anya.pk}/rename/", {"name": "  "})
    assert empty.status_code == 422
    assert player(typo, "Anya")


def test_members_read_the_changes_but_only_owners_see_undo(typo, owner, viewer):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    league_players.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)
    page = logged_in(viewer).get(f"/leagues/{typo.pk}/changes/")
    assert page.status_code == 200
    assert "Anya merged into Anna" in html(page) and "Undo this merge" not in html(page)


# What follows a merge: running totals, pairs, ratings, head to head, club nights ------------


def stored_totals(league) -> tuple[list[dict], list[dict]]:
    """The league's running totals and pair results as the standings read them, without their
    row ids."""

    def rows(model, order):
        return [
            {k: v for k, v in row.items() if k != "id"}
            for row in model.objects.filter(league=league).order_by(*order).values()
        ]

    return (
        rows(RunningTotal, ("finished_at", "series_id", "player_id")),
        rows(PairResult, ("finished_at", "series_id", "first_id")),
    )


def folded_afresh(league) -> tuple[list[dict], list[dict]]:
    totals_refold(league)
    return stored_totals(league)


@pytest.fixture
def teams_typo(league):
    """Two-teams series: Anna and Vera against Boris and Gleb, then once Anya (Anna's typo) in
    Anna's seat, then Anna again; the typo's series is in the middle, so the running totals and
    ratings after it change with the merge."""
    finished(league)
    finished(league, names=("Anya", "Boris", "Vera", "Gleb"), loser=0)
    finished(league, loser=1)
    return league


def test_a_merge_refolds_the_running_totals_pairs_ratings_and_head_to_head(teams_typo, owner):
    league = teams_typo
    anna, anya, vera = player(league, "Anna"), player(league, "Anya"), player(league, "Vera")
    before = stored_totals(league)
    league_players.players_merge(league=league, source_id=anya.pk, target_id=anna.pk, user=owner)
    after = stored_totals(league)
    assert after != before
    assert after == folded_afresh(league)  # as if Anya had never been typed
    last = RunningTotal.objects.filter(player=anna).order_by("-finished_at", "-series_id")[0]
    assert (last.played, last.rated, last.league_series) == (3, 3, 3)
    assert not RunningTotal.objects.filter(player_id=anya.pk).exists()
    pair = {(p.first_id, p.second_id) for p in PairResult.objects.filter(league=league)}
    assert pair == {tuple(sorted((anna.pk, vera.pk))), *pairs_of(league, "Boris", "Gleb")}
    assert PairResult.objects.filter(first_id=min(anna.pk, vera.pk)).count() == 3
    table = league_standings(league, StandingsFilter(), everyone=True)
    rated = {row.name: row.rating.series for row in table.players}
    assert rated["Anna"] == 3 and "Anya" not in rated
    meeting = head_to_head(league, StandingsFilter(), anna, player(league, "Boris"))
    assert (meeting.against, meeting.together) == (3, 0)


def pairs_of(league, first, second) -> set[tuple[int, int]]:
    return {tuple(sorted((player(league, first).pk, player(league, second).pk)))}


def test_undoing_a_merge_gives_back_the_running_totals_and_pairs_of_before(teams_typo, owner):
    league = teams_typo
    anna, anya = player(league, "Anna"), player(league, "Anya")
    before = stored_totals(league)
    event = league_players.players_merge(
        league=league, source_id=anya.pk, target_id=anna.pk, user=owner
    )
    assert stored_totals(league) != before
    league_players.merge_undo(league=league, event_id=event.pk, user=owner)
    assert stored_totals(league) == before
    assert head_to_head(league, StandingsFilter(), anna, player(league, "Boris")).against == 2


def test_a_merge_seats_the_target_in_the_club_nights_rounds_to_come(league, owner):
    night = make_event(league, 8, rounds=3)
    source = player(league, "Player 03")
    typo_of = Player.objects.create(name="Player 3", league=league)  # never at the night
    event = league_players.players_merge(
        league=league, source_id=source.pk, target_id=typo_of.pk, user=owner
    )
    night.refresh_from_db()
    assert source.pk not in night.present and typo_of.pk in night.present
    assert event.data["nights"] == [night.pk]
    event_services.round_finish(event=night)
    started = event_services.round_start(event=night)  # was a KeyError: a 500
    seated = Seat.objects.filter(series__event_table__round=started)
    if typo_of.pk not in started.out:
        assert seated.filter(player=typo_of).exists()
    board = logged_in(owner).get(f"/leagues/{league.pk}/events/{night.pk}/")
    assert board.status_code == 200 and "Player 3" in html(board)
    league_players.merge_undo(league=league, event_id=event.pk, user=owner)
    night.refresh_from_db()
    assert source.pk in night.present and typo_of.pk not in night.present
    assert Seat.objects.filter(player=source, series__event_table__round__number=1).exists()


def test_two_players_of_one_club_night_cannot_be_merged(league, owner):
    night = make_event(league, 8, rounds=3)
    first, second = player(league, "Player 01"), player(league, "Player 02")
    # Not at one table in the first round: the club night alone says they are two people.
    Seat.objects.filter(series__event_table__round__event=night).delete()
    before = league_snapshot(league)
    preview = league_players.merge_preview(league=league, source_id=first.pk, target_id=second.pk)
    assert "Friday night" in preview.refusal
    with pytest.raises(LeagueError, match="club night Friday night"):
        league_players.players_merge(
            league=league, source_id=first.pk, target_id=second.pk, user=owner
        )
    assert league_snapshot(league) == before


def test_a_club_night_naming_a_player_merged_away_before_says_so_instead_of_failing(league, owner):
    """A merge from before merges rewrote club nights left the plan naming a player who is
    gone: starting the round says what to do (was a 500), and re-seating the present fixes it."""
    night = make_event(league, 8, rounds=3)
    gone = player(league, "Player 05")
    Event.objects.filter(pk=night.pk).update(
        plan=[
            {
                **planned,
                "tables": [[p if p != gone.pk else 10**6 for p in t] for t in planned["tables"]],
            }
            for planned in night.plan
        ]
    )
    night.refresh_from_db()
    event_services.round_finish(event=night)
    client = logged_in(owner)
    response = client.post(f"/leagues/{league.pk}/events/{night.pk}/rounds/next/", follow=True)
    assert response.status_code == 200
    assert "no longer in the league" in html(response)
    assert night.played_rounds.count() == 1
    event_services.players_change(
        event=night, players=list(Player.objects.filter(pk__in=night.present))
    )
    assert event_services.round_start(event=night).number == 2


def test_a_merge_preview_reads_the_club_nights_in_as_many_queries_however_many(league):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_event(league, 8, rounds=3)
    first, second = player(league, "Player 01"), player(league, "Player 02")

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            league_players.merge_preview(league=league, source_id=first.pk, target_id=second.pk)
        return len(captured)

    one = queries()
    for _ in range(3):
        make_event(league, 8, rounds=3)
    assert queries() == one
