"""The seasons' pages: the list, a new season, its standings and awards, its rules changed,
the public season, a club night against expected; bad input answers 422 with the message."""

from __future__ import annotations

from datetime import date

from scoring.models import Season
from tests.helpers import html, logged_in


def season_data(**fields) -> dict:
    data = {
        "name": "Autumn",
        "starts_on": "2025-09-01",
        "ends_on": "2025-11-30",
        "counts": "nights",
        "best_nights": "5",
        "min_nights": "3",
        "min_games": "0",
    }
    return {**data, **fields}


def test_the_owner_starts_a_season_with_its_ladder_rules(league, owner):
    response = logged_in(owner).post(f"/leagues/{league.pk}/seasons/new/", season_data())
    season = Season.objects.get(league=league)
    assert response.status_code == 302 and response["Location"] == season.get_absolute_url()
    assert (season.name, season.counts, season.best_nights, season.min_nights) == (
        "Autumn",
        "nights",
        5,
        3,
    )
    assert (season.starts_on, season.ends_on) == (date(2025, 9, 1), date(2025, 11, 30))


def test_an_empty_best_nights_means_every_night_counts(league, owner):
    logged_in(owner).post(f"/leagues/{league.pk}/seasons/new/", season_data(best_nights=""))
    assert Season.objects.get(league=league).best_nights is None


def test_dates_reversed_are_refused_with_the_forms_message(league, owner):
    data = season_data(starts_on="2025-12-01", ends_on="2025-11-01")
    response = logged_in(owner).post(f"/leagues/{league.pk}/seasons/new/", data)
    assert response.status_code == 422
    assert "The season cannot end before it starts." in html(response)
    assert not Season.objects.exists()


def test_a_number_of_nights_out_of_range_is_refused(league, owner):
    for best in ("0", "367", "-1", "two"):
        data = season_data(best_nights=best)
        response = logged_in(owner).post(f"/leagues/{league.pk}/seasons/new/", data)
        assert response.status_code == 422, best
    assert not Season.objects.exists()


def test_overlapping_seasons_are_refused_and_named(league, owner):
    client = logged_in(owner)
    client.post(f"/leagues/{league.pk}/seasons/new/", season_data())
    data = season_data(name="Winter", starts_on="2025-11-15", ends_on="2026-02-28")
    response = client.post(f"/leagues/{league.pk}/seasons/new/", data)
    assert response.status_code == 422
    assert "overlap the season “Autumn”" in html(response)
    assert Season.objects.count() == 1


def test_the_season_page_ranks_and_explains_each_line(season, league, viewer):
    response = logged_in(viewer).get(season.get_absolute_url())
    page = html(response)
    assert response.status_code == 200
    assert "Spring 2025" in page
    assert "2 of 3 nights count: May 12, May 26." in page
    assert "Not ranked yet" in page
    assert "Zoya" in page and "1 more night to be ranked." in page
    assert "Most series won" in page


def test_the_owner_changes_the_rules_and_the_standings_follow(season, league, owner):
    client = logged_in(owner)
    data = season_data(
        name="Spring 2025", starts_on="2025-05-01", ends_on="2025-06-30", counts="all",
        best_nights="", min_nights="2",
    )  # fmt: skip
    response = client.post(f"{season.get_absolute_url()}edit/", data)
    assert response.status_code == 302
    season.refresh_from_db()
    assert (season.best_nights, season.min_nights, season.version) == (None, 2, 1)
    page = html(client.get(season.get_absolute_url()))
    assert "2 nights count: May 26, June 9." in page  # Zoya is ranked now


def test_a_change_with_reversed_dates_is_refused_and_changes_nothing(season, owner):
    data = season_data(starts_on="2025-07-01", ends_on="2025-06-01")
    response = logged_in(owner).post(f"{season.get_absolute_url()}edit/", data)
    assert response.status_code == 422
    assert "The season cannot end before it starts." in html(response)
    season.refresh_from_db()
    assert season.version == 0 and season.name == "Spring 2025"


def test_deleting_a_season_keeps_its_games(season, league, owner):
    response = logged_in(owner).post(f"{season.get_absolute_url()}delete/")
    assert response.status_code == 302
    assert not Season.objects.exists()
    assert league.series.filter(finished=True).count() == 6


def test_the_standings_pages_link_the_seasons(season, league, viewer):
    page = html(logged_in(viewer).get(f"/leagues/{league.pk}/standings/"))
    assert season.get_absolute_url() in page


def test_the_public_season_behind_the_share_link(season, league):
    from scoring.leagues import services

    league = services.share_renew(league=league)
    public = html(logged_in(None).get(f"/public/{league.share_token}/"))
    url = f"/public/{league.share_token}/seasons/{season.pk}/"
    assert url in public
    page = html(logged_in(None).get(url))
    assert "2 of 3 nights count" in page
    assert "/series/" not in page  # no links to games the public cannot open


def test_the_club_nights_page_names_who_beat_expectation(nights, league, owner):
    last = nights[-1]
    page = html(logged_in(owner).get(last.get_absolute_url()))
    assert "Tonight against expected" in page
    assert "Beat expectation most" in page
    table = html(logged_in(owner).get(f"{last.get_absolute_url()}expected/"))
    assert "Expected wins" in table
