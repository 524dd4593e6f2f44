"""Renaming and merging a league's players, the merge's preview and undo, the league's changes."""

from __future__ import annotations

import pytest

from scoring.leagues import services
from scoring.leagues.services import LeagueError
from scoring.leagues.standings import StandingsFilter, league_standings
from scoring.models import League, LeagueEvent, Player, Seat, Series
from tests.helpers import finished, html, league_snapshot, logged_in

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
    services.player_rename(league=typo, player_id=anya.pk, name="  Anyuta ", user=owner)
    anya.refresh_from_db()
    assert anya.name == "Anyuta"
    assert "Anyuta" in standings_names(typo)
    assert Series.objects.get(seats__player=anya).version == version + 1
    event = LeagueEvent.objects.get(league=typo)
    assert (event.action, event.actor, event.data["before"]) == ("renamed", owner, "Anya")


def test_renaming_to_another_players_name_is_refused_and_suggests_a_merge(typo, owner):
    before = league_snapshot(typo)
    with pytest.raises(LeagueError, match="merge"):
        services.player_rename(
            league=typo, player_id=player(typo, "Anya").pk, name="ANNA", user=owner
        )
    assert league_snapshot(typo) == before


def test_a_merge_moves_every_seat_and_the_standings_follow(typo, owner):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    assert standings_names(typo)["Anna"] == 2
    league = League.objects.get(pk=typo.pk)
    preview = services.merge_preview(league=typo, source_id=anya.pk, target_id=anna.pk)
    assert (preview.series, preview.shared, preview.refusal) == (1, 0, "")
    event = services.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)
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
    preview = services.merge_preview(league=typo, source_id=boris.pk, target_id=anna.pk)
    assert preview.shared == 1 and "same table" in preview.refusal
    with pytest.raises(LeagueError, match="same table"):
        services.players_merge(league=typo, source_id=boris.pk, target_id=anna.pk, user=owner)
    assert league_snapshot(typo) == before


def test_players_of_two_accounts_cannot_be_merged(typo, owner, scorer):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    services.player_link_user(league=typo, player_id=anna.pk, user_id=owner.pk)
    services.player_link_user(league=typo, player_id=anya.pk, user_id=scorer.pk)
    with pytest.raises(LeagueError, match="accounts"):
        services.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)


def test_undo_brings_the_player_back_as_before(typo, owner, scorer):
    anna, anya = player(typo, "Anna"), player(typo, "Anya")
    services.player_link_user(league=typo, player_id=anya.pk, user_id=scorer.pk)
    seats = set(Seat.objects.filter(player=anya).values_list("pk", flat=True))
    standings = standings_names(typo)
    event = services.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)
    assert Player.objects.get(pk=anna.pk).user == scorer  # the link follows
    restored = services.merge_undo(league=typo, event_id=event.pk, user=owner)
    assert (restored.pk, restored.name, restored.user) == (anya.pk, "Anya", scorer)
    assert set(Seat.objects.filter(player=restored).values_list("pk", flat=True)) == seats
    assert Player.objects.get(pk=anna.pk).user is None
    assert standings_names(typo) == standings
    event.refresh_from_db()
    assert event.undone_at is not None
    assert LeagueEvent.objects.filter(league=typo, action="unmerged").count() == 1
    with pytest.raises(LeagueError, match="undone already"):
        services.merge_undo(league=typo, event_id=event.pk, user=owner)


def test_undo_is_refused_when_the_name_is_taken_again_or_the_target_merged_on(typo, owner):
    anna, anya, vera = player(typo, "Anna"), player(typo, "Anya"), player(typo, "Vera")
    first = services.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)
    services.player_rename(league=typo, player_id=vera.pk, name="anya", user=owner)
    with pytest.raises(LeagueError, match="again"):
        services.merge_undo(league=typo, event_id=first.pk, user=owner)
    services.player_rename(league=typo, player_id=vera.pk, name="Vera", user=owner)
    boris = player(typo, "Boris")
    # Anna (with Anya's series) merged on: Anna sat with Boris, so use a fresh player.
    lone = Player.objects.create(name="Zoya", league=typo)
    services.players_merge(league=typo, source_id=anna.pk, target_id=lone.pk, user=owner)
    with pytest.raises(LeagueError, match="undo that merge first"):
        services.merge_undo(league=typo, event_id=first.pk, user=owner)
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
    services.players_merge(league=typo, source_id=anya.pk, target_id=anna.pk, user=owner)
    page = logged_in(viewer).get(f"/leagues/{typo.pk}/changes/")
    assert page.status_code == 200
    assert "Anya merged into Anna" in html(page) and "Undo this merge" not in html(page)
