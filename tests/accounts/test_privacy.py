"""Every account: download what the site holds about me, and delete my account."""

from __future__ import annotations

import json

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.auth import get_user_model

from scoring.accounts import languages, privacy
from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import DealEvent, Event, Export, LeagueEvent, Membership, Player, Series
from scoring.table import deals
from tests.helpers import (
    PASSWORD,
    export_downloaded,
    finished,
    html,
    logged_in,
    make_event,
    record,
    start_series,
    streamed,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(league, owner, scorer):
    """Sergei (the scorer) plays as "Serezha", started a series and recorded a deal."""
    played = finished(league, names=("Serezha", "Boris"), mode="duel")
    serezha = Player.objects.get(league=league, name="Serezha")
    league_players.player_link_user(league=league, player_id=serezha.pk, user_id=scorer.pk)
    league_players.player_rename(league=league, player_id=serezha.pk, name="Seryozha", user=scorer)
    game = start_series(league=league, names=("Seryozha", "Vera"), mode="duel")
    Series.objects.filter(pk=game.pk).update(created_by=scorer)
    deals.deal_record(series_id=game.pk, number=1, points=[70, 50], tricks=None, user=scorer)
    AccessLog.objects.create(
        username="sergei", ip_address="203.0.113.9", user_agent="phone", http_accept="*/*"
    )
    AccessAttempt.objects.create(
        username="sergei",
        ip_address="198.51.100.4",
        user_agent="laptop",
        http_accept="*/*",
        failures_since_start=2,
    )
    return {"played": played, "game": game, "player": serezha}


@pytest.mark.django_db(transaction=True)
def test_the_download_holds_everything_about_me(history, scorer, league, exports_storage):
    client = logged_in(scorer)
    assert "Make the file" in html(client.get("/accounts/data/"))  # a GET only asks
    response = export_downloaded(client, "/accounts/data/")
    assert response["Content-Disposition"].startswith("attachment;")
    data = json.loads(streamed(response))
    assert data["account"]["username"] == "sergei"
    assert data["memberships"] == [
        {
            "league": league.pk,
            "league_name": "Kitchen table",
            "role": "scorer",
            "joined_at": data["memberships"][0]["joined_at"],
        }
    ]
    assert [p["name"] for p in data["players_linked"]] == ["Seryozha"]
    assert data["leagues_owned"] == []
    assert [s["id"] for s in data["series_created"]] == [history["game"].pk]
    assert data["series_created"][0]["players"] == ["Seryozha", "Vera"]
    assert data["series_scored"] == [
        {"id": history["game"].pk, "league": league.pk, "deals_recorded": 1}
    ]
    assert [e["action"] for e in data["deal_events"]] == ["recorded"]
    assert data["league_events"][0]["action"] == "renamed"
    assert data["logins"][0]["ip_address"] == "203.0.113.9"
    assert [(a["ip_address"], a["failures"]) for a in data["lockout_counts"]] == [
        ("198.51.100.4", 2)
    ]


def test_the_download_of_another_account_holds_nothing_of_mine(history, viewer):
    data = privacy.personal_data(viewer)
    assert data["players_linked"] == data["series_created"] == data["deal_events"] == []
    assert logged_in(None).get("/accounts/data/").status_code == 302
    assert logged_in(None).post("/accounts/data/").status_code == 302
    assert not Export.objects.exists()


def test_deleting_my_account_keeps_the_games_under_the_typed_names(history, scorer, league):
    client = logged_in(scorer)
    page = client.get("/accounts/delete/")
    assert page.status_code == 200 and "Delete my account for good" in html(page)
    response = client.post("/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 302
    assert not get_user_model().objects.filter(username="sergei").exists()
    assert not Membership.objects.filter(league=league, user_id=scorer.pk).exists()
    player = Player.objects.get(pk=history["player"].pk)
    assert (player.name, player.user_id) == ("Seryozha", None)
    game = Series.objects.get(pk=history["game"].pk)
    assert game.created_by_id is None
    assert not DealEvent.objects.filter(actor_id=scorer.pk).exists()
    assert LeagueEvent.objects.get(action="renamed").actor_id is None
    assert not AccessLog.objects.filter(username="sergei").exists()
    assert not AccessAttempt.objects.filter(username="sergei").exists()
    sheet = html(logged_in(league_owner(league)).get(f"/series/{game.pk}/sheet/"))
    assert "Seryozha" in sheet and "sergei" not in sheet
    record(game, [70, 50])  # the game goes on


def league_owner(league):
    return Membership.objects.get(league=league, role="owner").user


def test_a_wrong_password_deletes_nothing(history, scorer):
    response = logged_in(scorer).post("/accounts/delete/", {"password": "wrong"})
    assert response.status_code == 422 and "not your password" in html(response)
    assert get_user_model().objects.filter(username="sergei").exists()


def test_the_only_owner_must_hand_the_league_over_first(league, owner, scorer):
    client = logged_in(owner)
    page = client.get("/accounts/delete/")
    assert "only owner" in html(page) and "Kitchen table" in html(page)
    response = client.post("/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 422 and "Transfer ownership" in html(response)
    assert get_user_model().objects.filter(pk=owner.pk).exists()
    membership = Membership.objects.get(league=league, user=scorer)
    league_services.ownership_transfer(league=league, user=owner, membership_id=membership.pk)
    assert client.post("/accounts/delete/", {"password": PASSWORD}).status_code == 302
    assert not get_user_model().objects.filter(pk=owner.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_the_download_holds_my_settings_and_the_club_nights_i_started(
    league, scorer, exports_storage
):
    languages.account_language_set(user=scorer, language="uk")
    night = make_event(league, 8, rounds=1)
    Event.objects.filter(pk=night.pk).update(created_by=scorer)
    data = json.loads(streamed(export_downloaded(logged_in(scorer), "/accounts/data/")))
    assert data["settings"] == {"language": "uk"}
    assert [(n["id"], n["name"]) for n in data["club_nights_created"]] == [
        (night.pk, "Friday night")
    ]
    assert privacy.personal_data(league_owner(league))["club_nights_created"] == []


def test_a_deleted_account_leaves_no_id_in_the_merges_and_no_link_anywhere(league, owner, scorer):
    """A merge keeps the merged player's account for its undo; once the account is deleted the
    merge keeps nothing of it, and undoing it brings the player back with the typed name only."""
    finished(league, names=("Serezha", "Boris"), mode="duel")
    finished(league, names=("Sergei", "Vera"), mode="duel")
    typo = Player.objects.get(league=league, name="Serezha")
    sergei = Player.objects.get(league=league, name="Sergei")
    league_players.player_link_user(league=league, player_id=typo.pk, user_id=scorer.pk)
    merge = league_players.players_merge(
        league=league, source_id=typo.pk, target_id=sergei.pk, user=scorer
    )
    assert merge.data["source"]["user"] == scorer.pk
    privacy.account_delete(scorer)
    merge.refresh_from_db()
    assert merge.data["source"]["user"] is None and merge.actor_id is None
    client = logged_in(owner)
    for url in (f"/leagues/{league.pk}/players/", f"/leagues/{league.pk}/changes/"):
        page = client.get(url)
        assert page.status_code == 200 and "sergei" not in html(page), url
    restored = league_players.merge_undo(league=league, event_id=merge.pk, user=owner)
    assert (restored.name, restored.user_id) == ("Serezha", None)
    assert "Serezha" in html(client.get(f"/leagues/{league.pk}/players/"))


@pytest.mark.django_db(transaction=True)
def test_deleting_my_account_deletes_my_downloads_and_their_files(scorer, exports_storage):
    client = logged_in(scorer)
    streamed(export_downloaded(client, "/accounts/data/"))
    files = list(exports_storage.iterdir())
    assert len(files) == 1
    assert client.post("/accounts/delete/", {"password": PASSWORD}).status_code == 302
    assert not Export.objects.exists() and not files[0].exists()
