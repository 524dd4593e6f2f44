"""The standings' pages: the table under filters and sorts, a big league's top players, head to
head."""

from __future__ import annotations

import itertools
import re

import pytest
from django.test import Client

from scoring.leagues import services as league_services
from scoring.models import Player
from tests.helpers import (
    finished,
    grow,
    html,
    logged_in,
)

HTMX = {"HX-Request": "true"}


# Standings and head to head ------------------------------------------------------------------


#: A row of the players' table: place, name, series won, goats, rating, played.
PLAYER_ROW = re.compile(
    r'<th scope="row" class="name"><span class="place">(\d+)</span> ([^<]+)</th>\s*'
    r"<td>(\d+)</td>\s*<td>(\d+)</td>\s*<td class=\"rating\">(\d+|—)</td>\s*<td>(\d+)</td>"
)


def player_rows(page: str) -> list[tuple[int, str, int, int, int | None, int]]:
    return [
        (int(place), name, int(won), int(goats), None if rating == "—" else int(rating), int(n))
        for place, name, won, goats, rating, n in PLAYER_ROW.findall(page)
    ]


def sorted_by(page: str) -> list[str]:
    """The keys of the columns marked as sorting the table (aria-sort), with the direction."""
    return re.findall(r'aria-sort="(\w+)"><a class="sort" id="sort-(\w+)"', page)


def test_the_standings_show_players_ratings_and_partnerships(league, viewer):
    finished(league, loser=0)
    finished(league, loser=0)
    finished(league, loser=1)
    page = html(logged_in(viewer).get(f"/leagues/{league.pk}/standings/"))
    assert "3 finished series." in page
    rows = player_rows(page)
    assert {name for _place, name, *_rest in rows} == {"Anna", "Boris", "Vera", "Gleb"}
    assert all(rating is not None and 900 < rating < 1600 for *_row, rating, _n in rows)
    assert "μ" not in page and "σ" not in page  # one number, explained in words
    assert "What is the rating?" in page and "everyone starts at 1000" in page
    assert "Anna &amp; Vera" in page  # a partnership


@pytest.fixture
def ranked_league(league):
    """Gleb won twice; Anna and Boris once, with a goat each; Vera and Dasha only lost."""
    finished(league, loser=0)  # Anna & Vera the goats, Boris & Gleb win
    finished(league, names=("Anna", "Boris"), mode="duel", loser=1)
    finished(league, names=("Gleb", "Dasha"), mode="duel", loser=1)
    return league


def test_the_standings_are_ranked_by_series_won_then_fewer_goats_then_the_rating(
    ranked_league, viewer
):
    page = html(logged_in(viewer).get(f"/leagues/{ranked_league.pk}/standings/"))
    rows = player_rows(page)
    assert [name for _place, name, *_rest in rows][:1] == ["Gleb"]
    assert [(won, goats) for _place, _name, won, goats, *_rest in rows] == [
        (2, 0), (1, 1), (1, 1), (0, 1), (0, 1),
    ]  # fmt: skip
    for first, second in itertools.pairwise(rows):
        if first[2:4] == second[2:4]:  # level on series won and goats: the rating decides
            assert first[4] >= second[4]
    assert [place for place, *_rest in rows] == sorted(place for place, *_rest in rows)
    assert sorted_by(page) == [("descending", "won")]
    assert "Ranked by series won, then the fewest times the goat, then the rating." in page


@pytest.mark.parametrize(
    ("sort", "direction"),
    [("goats", "ascending"), ("rate", "descending"), ("rating", "descending"),
     ("played", "descending"), ("name", "ascending"), ("won", "descending")],
)  # fmt: skip
def test_each_column_heading_sorts_the_table_and_says_so(ranked_league, viewer, sort, direction):
    client = logged_in(viewer)
    url = f"/leagues/{ranked_league.pk}/standings/"
    ranked = player_rows(html(client.get(url)))
    response = client.get(f"{url}?sort={sort}")
    assert response.status_code == 200
    page = html(response)
    rows = player_rows(page)
    assert sorted(rows) == sorted(ranked)  # the same rows and places, in another order
    assert sorted_by(page) == [(direction, sort)]
    names = [name for _place, name, *_rest in rows]
    if sort == "name":
        assert names == ["Anna", "Boris", "Dasha", "Gleb", "Vera"]
    elif sort == "goats":
        assert names[0] == "Gleb" and [row[3] for row in rows] == sorted(row[3] for row in rows)
    elif sort == "rating":
        assert [row[4] for row in rows] == sorted((row[4] for row in rows), reverse=True)
    elif sort == "played":
        assert [row[5] for row in rows] == sorted((row[5] for row in rows), reverse=True)
    elif sort == "rate":
        assert names[0] == "Gleb" and set(names[-2:]) == {"Vera", "Dasha"}
    # Every heading links to its sort, the rank's without a parameter; the filter keeps it.
    assert 'href="?sort=name"' in page and 'href="?sort=goats"' in page
    if sort != "won":
        assert 'id="sort-won" href="?"' in page  # back to the rank: no parameter
        assert f'<input type="hidden" name="sort" value="{sort}">' in page


@pytest.mark.parametrize(
    "query", ["sort=", "sort=bogus", "sort=NAME", "sort=%00", "sort=" + "x" * 300, "sort=-won"]
)
def test_an_unknown_sort_shows_the_ranked_table(ranked_league, viewer, query):
    response = logged_in(viewer).get(f"/leagues/{ranked_league.pk}/standings/?{query}")
    assert response.status_code == 200
    page = html(response)
    assert sorted_by(page) == [("descending", "won")]
    assert player_rows(page)[0][1] == "Gleb"


def test_the_sort_is_kept_with_a_filter_and_with_everyone(ranked_league, viewer):
    client = logged_in(viewer)
    url = f"/leagues/{ranked_league.pk}/standings/?date_from=2000-01-01&sort=name"
    page = html(client.get(url))
    assert player_rows(page)[0][1] == "Anna"
    assert 'href="?date_from=2000-01-01&amp;sort=goats"' in page
    fragment = html(client.get(url, headers=HTMX))
    assert fragment.lstrip().startswith('<div id="standings"')
    assert sorted_by(fragment) == [("ascending", "name")]
    assert 'hx-get="?date_from=2000-01-01&amp;sort=rating" hx-target="#standings"' in fragment


def test_the_public_standings_sort_too_and_outsiders_still_see_nothing(
    ranked_league, owner, outsider
):
    ranked_league = league_services.share_renew(league=ranked_league)
    page = html(Client().get(f"/public/{ranked_league.share_token}/?sort=name"))
    assert [row[1] for row in player_rows(page)] == ["Anna", "Boris", "Dasha", "Gleb", "Vera"]
    assert sorted_by(page) == [("ascending", "name")]
    bad = Client().get(f"/public/{ranked_league.share_token}/?sort=%FF")
    assert bad.status_code == 200
    url = f"/leagues/{ranked_league.pk}/standings/?sort=name"
    assert logged_in(outsider).get(url).status_code == 404
    assert logged_in(owner).get(url).status_code == 200
    assert Client().get(url).status_code == 302  # to log in


def test_a_filtered_standings_request_from_htmx_gets_the_fragment(league, viewer):
    finished(league)
    url = f"/leagues/{league.pk}/standings/?date_from=2000-01-01&date_to=&rules=classic"
    fragment = html(logged_in(viewer).get(url, headers=HTMX))
    assert fragment.lstrip().startswith('<div id="standings"')
    assert "1 finished series." in fragment


@pytest.mark.parametrize(
    "query",
    [
        "date_from=yesterday",
        "date_from=2025-02-01&date_to=2025-01-01",
        "date_to=9999-12-31",
        "date_from=0001-01-01",
        "rules=no-such-rules",
    ],
)
def test_a_bad_filter_says_why_with_422_and_shows_all_series(league, viewer, query):
    finished(league)
    response = logged_in(viewer).get(f"/leagues/{league.pk}/standings/?{query}")
    assert response.status_code == 422
    assert 'class="error"' in html(response)
    assert "1 finished series." in html(response)


def test_a_big_league_shows_the_top_players_and_offers_the_rest(league, viewer):
    grow(league, 6)  # 24 players
    client = logged_in(viewer)
    page = html(client.get(f"/leagues/{league.pk}/standings/"))
    assert page.count('<th scope="row" class="name">') <= 20 + 10
    assert "Show 4 more players" in page
    filtered = html(client.get(f"/leagues/{league.pk}/standings/?date_from=2000-01-01"))
    assert 'href="?date_from=2000-01-01&amp;everyone=1"' in filtered  # the filter is kept
    everyone = html(client.get(f"/leagues/{league.pk}/standings/?everyone=1"))
    assert "Show 4 more" not in everyone
    assert all(f"North {n}" in everyone for n in range(6))
    top, every = player_rows(page), player_rows(everyone)
    assert len(top) == 20 and len(every) == 24 and every[:20] == top  # the same, then the rest


def test_another_sort_picks_its_first_players_from_everyone(league, viewer):
    grow(league, 6)  # 24 players
    client = logged_in(viewer)
    by_name = player_rows(html(client.get(f"/leagues/{league.pk}/standings/?sort=name")))
    everyone = player_rows(html(client.get(f"/leagues/{league.pk}/standings/?everyone=1")))
    assert len(by_name) == 20
    assert [row[1] for row in by_name] == sorted(row[1] for row in everyone)[:20]
    page = html(client.get(f"/leagues/{league.pk}/standings/?sort=name"))
    assert 'href="?sort=name&amp;everyone=1"' in page and "Show 4 more players" in page
    every_by_name = html(client.get(f"/leagues/{league.pk}/standings/?sort=name&everyone=1"))
    assert len(player_rows(every_by_name)) == 24 and "more player" not in every_by_name


def test_head_to_head_compares_two_players(league, viewer):
    finished(league, loser=0)
    anna = Player.objects.get(league=league, name="Anna")
    boris = Player.objects.get(league=league, name="Boris")
    url = f"/leagues/{league.pk}/head-to-head/?first={anna.pk}&second={boris.pk}"
    page = html(logged_in(viewer).get(url))
    assert "Anna — Boris" in page
    assert "Against each other: 1 series." in page
    assert f'<option value="{anna.pk}" selected>Anna</option>' in page
    assert f'<option value="{boris.pk}" selected>Boris</option>' in page


@pytest.mark.parametrize("query", ["first=1&second=1", "first=x&second=2", "first=999999"])
def test_head_to_head_refuses_a_bad_pair(league, viewer, query):
    finished(league)
    if query == "first=1&second=1":
        pk = Player.objects.filter(league=league).first().pk
        query = f"first={pk}&second={pk}"
    response = logged_in(viewer).get(f"/leagues/{league.pk}/head-to-head/?{query}")
    assert response.status_code == 422
