"""Archiving and deleting a league."""

from __future__ import annotations

import pytest

from scoring.leagues import services
from scoring.leagues.services import LeagueError
from scoring.models import Deal, Event, League, Membership, Player, Role, Seat, Series
from tests.helpers import (
    PASSWORD,
    finished,
    html,
    league_snapshot,
    logged_in,
    make_event,
    record,
    start_series,
)

pytestmark = pytest.mark.django_db


def test_an_archived_league_leaves_the_lists_but_not_its_own_section(league, owner, scorer):
    services.league_archive(league=league, user=owner)
    page = html(logged_in(scorer).get("/leagues/"))
    assert "1 archived league" in page
    assert page.index("Kitchen table") > page.index("1 archived league")
    new_game = html(logged_in(scorer).get("/new/"))
    assert "Kitchen table" not in new_game
    assert "archived" in html(logged_in(scorer).get(f"/leagues/{league.pk}/"))


def test_archiving_twice_is_refused(league, owner):
    services.league_archive(league=league, user=owner)
    with pytest.raises(LeagueError):
        services.league_archive(league=league, user=owner)
    response = logged_in(owner).post(f"/leagues/{league.pk}/archive/")
    assert response.status_code == 422 and "archived already" in html(response)


def test_deleting_keeps_the_series_as_quick_games(league, owner):
    played = finished(league, names=("Anna", "Boris"), mode="duel")
    deals = Deal.objects.filter(series=played).count()
    kept = services.league_delete(
        league=league, user=owner, confirm_name=" Kitchen  table ", series="keep"
    )
    assert kept == 1
    assert not League.objects.filter(pk=league.pk).exists()
    played.refresh_from_db()
    assert played.league_id is None and played.finished
    assert Deal.objects.filter(series=played).count() == deals
    names = sorted(Seat.objects.filter(series=played).values_list("player__name", flat=True))
    assert names == ["Anna", "Boris"]
    assert not Player.objects.filter(league__isnull=False).exists()


def test_deleting_with_its_series(league, owner):
    played = finished(league, names=("Anna", "Boris"), mode="duel")
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/delete/", {"name": "Kitchen table", "series": "delete"}
    )
    assert response.status_code == 302
    assert not Series.objects.filter(pk=played.pk).exists()
    assert not Player.objects.exists()


def test_deleting_wants_the_name_typed(league, owner):
    finished(league, names=("Anna", "Boris"), mode="duel")
    client = logged_in(owner)
    page = client.get(f"/leagues/{league.pk}/delete/")
    assert page.status_code == 200 and "Type the league" in html(page)
    before = league_snapshot(league)
    wrong = client.post(f"/leagues/{league.pk}/delete/", {"name": "Kitchen", "series": "keep"})
    assert wrong.status_code == 422 and "exactly" in html(wrong)
    empty = client.post(f"/leagues/{league.pk}/delete/", {})
    assert empty.status_code == 422
    assert league_snapshot(league) == before


def test_a_league_archived_after_the_pages_looked_takes_no_more_changes(league, owner):
    """The services refuse too, under the series' lock: a deal sent at the very moment the
    league is archived (its page looked before) is not recorded, nor undone, nor redone."""
    from django.core.exceptions import PermissionDenied

    from scoring.table import deals
    from scoring.table import services as table_services

    series = record(start_series(league=league), (40, 80))
    services.league_archive(league=league, user=owner)
    snapshot = league_snapshot(league)
    attempts = [
        lambda: deals.deal_record(series_id=series.pk, number=2, points=(70, 50), tricks=None),
        lambda: deals.deal_undo(series_id=series.pk, number=1, version=series.version),
        lambda: table_services.series_rematch(series=series),
    ]
    for attempt in attempts:
        with pytest.raises(PermissionDenied, match="archived"):
            attempt()
    assert league_snapshot(league) == snapshot
    assert series.deals.count() == 1


@pytest.mark.parametrize("fate", ["delete", "keep"])
def test_a_league_with_a_club_night_is_deleted_either_way(league, owner, fate):
    """A club night's tables hold on to their series (was a 500 with "delete")."""
    make_event(league, 8, rounds=2)
    tables = list(Series.objects.filter(league=league).values_list("pk", flat=True))
    assert len(tables) == 2
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/delete/", {"name": "Kitchen table", "series": fate}
    )
    assert response.status_code == 302
    assert not League.objects.filter(pk=league.pk).exists()
    assert not Event.objects.exists()
    kept = Series.objects.filter(pk__in=tables)
    assert kept.count() == (2 if fate == "keep" else 0)
    assert all(series.league_id is None for series in kept)


def test_the_only_owner_of_an_archived_league_hands_it_over_and_can_then_go(league, owner, scorer):
    """The account page sends the owner to Members; an archived league offers the handover
    there too (it changes none of the league's contents), and only to its owner."""
    services.league_archive(league=league, user=owner)
    client = logged_in(owner)
    refused = client.post("/accounts/delete/", {"password": PASSWORD})
    assert refused.status_code == 422 and "Transfer ownership" in html(refused)
    members = html(client.get(f"/leagues/{league.pk}/members/"))
    assert "Hand the league over" in members
    assert "Hand the league over" not in html(
        logged_in(scorer).get(f"/leagues/{league.pk}/members/")
    )
    successor = Membership.objects.get(league=league, user=scorer)
    denied = logged_in(scorer).post(f"/leagues/{league.pk}/transfer/", {"membership": successor.pk})
    assert denied.status_code == 403
    handed = client.post(f"/leagues/{league.pk}/transfer/", {"membership": successor.pk})
    assert handed.status_code == 302
    successor.refresh_from_db()
    assert successor.role == Role.OWNER
    assert League.objects.get(pk=league.pk).archived_at is not None  # still archived
    assert client.post("/accounts/delete/", {"password": PASSWORD}).status_code == 302
    assert not Membership.objects.filter(user_id=owner.pk).exists()
