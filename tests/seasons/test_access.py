"""Every page of seasons and publishing, for owner, scorer, viewer, outsider and anonymous.

Members see a league's seasons and a club night against expected; only the owner starts,
changes or deletes a season (a scorer or a viewer gets 403); an outsider gets 404; an
anonymous visitor is sent to log in. Behind a public link anyone sees the public pages. What is
refused changes nothing.
"""

from __future__ import annotations

from datetime import date

import pytest

from scoring.events import services as event_services
from scoring.leagues import services as league_services
from scoring.models import Season
from tests.authorization import WHO
from tests.helpers import finished, logged_in, make_event, play_out


@pytest.fixture
def world(league, owner, scorer, viewer, outsider):
    finished(league)
    event = make_event(league, 8, rounds=1)
    play_out(event.played_rounds.get().tables.first().series)
    event = event_services.share_renew(event=event)
    league = league_services.share_renew(league=league)
    season = Season.objects.create(
        league=league, name="Spring", starts_on=date(2020, 1, 1), ends_on=date(2030, 12, 31)
    )
    people = {"owner": owner, "scorer": scorer, "viewer": viewer, "outsider": outsider}
    return {"league": league, "event": event, "season": season, "people": people}


def client_of(world, who):
    return logged_in(world["people"].get(who))


def snapshot() -> list:
    return list(Season.objects.order_by("pk").values())


READ = {
    "seasons": lambda w: f"/leagues/{w['league'].pk}/seasons/",
    "a season": lambda w: w["season"].get_absolute_url(),
    "against expected": lambda w: f"{w['event'].get_absolute_url()}expected/",
}


@pytest.mark.parametrize("page", sorted(READ))
def test_members_read_the_season_pages_and_nobody_else(world, page):
    for who in WHO:  # a GET writes nothing: one world for every visitor
        response = client_of(world, who).get(READ[page](world))
        if who in ("owner", "scorer", "viewer"):
            assert response.status_code == 200, who
        elif who == "outsider":
            assert response.status_code == 404, who
        else:
            assert response.status_code == 302 and "/login/" in response["Location"], who


WRITE = {
    "start a season": (
        lambda w: f"/leagues/{w['league'].pk}/seasons/new/",
        {"name": "Next", "starts_on": "2031-01-01", "ends_on": "2031-06-30", "counts": "all",
         "best_nights": "", "min_nights": "0", "min_games": "0"},
    ),
    "change a season": (
        lambda w: f"{w['season'].get_absolute_url()}edit/",
        {"name": "Renamed", "starts_on": "2020-01-01", "ends_on": "2030-12-31", "counts": "all",
         "best_nights": "3", "min_nights": "0", "min_games": "0"},
    ),
    "delete a season": (lambda w: f"{w['season'].get_absolute_url()}delete/", {}),
}  # fmt: skip


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("action", sorted(WRITE))
def test_only_the_owner_starts_changes_or_deletes_a_season(world, who, action):
    url, data = WRITE[action]
    before = snapshot()
    response = client_of(world, who).post(url(world), data)
    if who == "owner":
        assert response.status_code == 302
        assert snapshot() != before
        return
    expected = {"scorer": 403, "viewer": 403, "outsider": 404}.get(who)
    if expected is None:
        assert response.status_code == 302 and "/login/" in response["Location"]
    else:
        assert response.status_code == expected
    assert snapshot() == before


PUBLIC = {
    "public season": lambda w: f"/public/{w['league'].share_token}/seasons/{w['season'].pk}/",
    "public against expected": lambda w: f"/public/events/{w['event'].share_token}/expected/",
    "league picture": lambda w: f"/public/{w['league'].share_token}/picture/?v=1&lang=en",
    "club night picture": lambda w: f"/public/events/{w['event'].share_token}/picture/?v=1&lang=en",
    "embed": lambda w: f"/embed/{w['league'].share_token}/",
    "feed": lambda w: f"/public/{w['league'].share_token}/feed.json",
}


@pytest.mark.parametrize("page", sorted(PUBLIC))
def test_anyone_with_the_public_link_reads_the_public_pages(world, page):
    for who in WHO:
        assert client_of(world, who).get(PUBLIC[page](world)).status_code == 200, who


@pytest.mark.parametrize("who", WHO)
def test_a_series_picture_follows_who_may_see_the_series(world, who):
    series = world["league"].series.filter(event_table__isnull=True).get()
    response = client_of(world, who).get(f"/pictures/series/{series.pk}/?v=1&lang=en")
    assert response.status_code == (200 if who in ("owner", "scorer", "viewer") else 404)


def test_a_season_of_another_league_is_not_found(world, owner):
    other = league_services.league_create(name="Other", user=owner, ruleset=None)
    url = f"/leagues/{other.pk}/seasons/{world['season'].pk}/"
    assert logged_in(owner).get(url).status_code == 404


def test_an_archived_league_takes_no_new_season(world, owner):
    league_services.league_archive(league=world["league"], user=owner)
    url, data = WRITE["start a season"]
    before = snapshot()
    response = logged_in(owner).post(url(world), data)
    assert response.status_code == 403
    assert snapshot() == before
