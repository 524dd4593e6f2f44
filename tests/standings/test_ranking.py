"""Ranking the standings' rows: series won, then fewer goats, then the rating; the sorts a reader
may pick, the shared places, and the rating shown as one number."""

from __future__ import annotations

import pytest

from scoring.standings import ranking
from scoring.standings.ratings import MODEL_MU, MODEL_SIGMA, Rating
from scoring.standings.rows import PlayerRow


def row(pid: int, name: str, *, played: int, won: int, goats: int, mu=None, sigma=2.0):
    rating = Rating(mu=mu, sigma=sigma, series=played) if mu is not None else None
    return PlayerRow(
        player_id=pid, name=name, played=played, won=won, goats=goats,
        defeat=0, eggs=0, naked=0, rating=rating,
    )  # fmt: skip


# Boris won most; Anna and Vera won as many, Anna with fewer goats; Vera and Gleb are level on
# series and goats, so the rating decides; Dasha has the best rating but the fewest wins.
ROWS = [
    row(1, "Vera", played=6, won=2, goats=3, mu=24.0),
    row(2, "Anna", played=3, won=2, goats=1, mu=20.0),
    row(3, "Gleb", played=6, won=2, goats=3, mu=26.0),
    row(4, "boris", played=8, won=5, goats=2, mu=22.0),
    row(5, "Dasha", played=2, won=1, goats=0, mu=30.0),
]


def names(result: ranking.Ranking) -> list[str]:
    return [entry.row.name for entry in result.rows]


def test_players_are_ranked_by_series_won_then_fewer_goats_then_the_rating():
    result = ranking.ranking(ROWS, sort="won", count=5, limit=None)
    assert names(result) == ["boris", "Anna", "Gleb", "Vera", "Dasha"]
    assert [entry.place for entry in result.rows] == [1, 2, 3, 4, 5]
    assert result.hidden == 0 and result.direction == "descending"


@pytest.mark.parametrize(
    ("sort", "order", "direction"),
    [
        ("goats", ["Dasha", "Anna", "boris", "Gleb", "Vera"], "ascending"),
        ("rate", ["Anna", "boris", "Dasha", "Gleb", "Vera"], "descending"),
        ("rating", ["Dasha", "Gleb", "Vera", "boris", "Anna"], "descending"),
        ("played", ["boris", "Gleb", "Vera", "Anna", "Dasha"], "descending"),
        ("name", ["Anna", "boris", "Dasha", "Gleb", "Vera"], "ascending"),
    ],
)
def test_each_sort_orders_by_its_column_and_keeps_the_rank_beside_each_name(sort, order, direction):
    result = ranking.ranking(ROWS, sort=sort, count=5, limit=None)
    assert names(result) == order
    assert result.direction == direction
    places = {entry.row.name: entry.place for entry in result.rows}
    assert places == {"boris": 1, "Anna": 2, "Gleb": 3, "Vera": 4, "Dasha": 5}


def test_players_level_on_everything_shown_share_a_place():
    level = [
        row(1, "Ira", played=2, won=1, goats=1, mu=25.0),
        row(2, "Kolya", played=2, won=1, goats=1, mu=25.0),
        row(3, "Lida", played=2, won=0, goats=2, mu=25.0),
    ]
    result = ranking.ranking(level, sort="won", count=3, limit=None)
    assert [(entry.row.name, entry.place) for entry in result.rows] == [
        ("Ira", 1), ("Kolya", 1), ("Lida", 3),
    ]  # fmt: skip


def test_a_player_without_a_rating_comes_after_the_rated_and_shows_none():
    rows = [row(1, "New", played=1, won=1, goats=0), row(2, "Old", played=1, won=1, goats=0, mu=5)]
    result = ranking.ranking(rows, sort="rating", count=2, limit=None)
    assert names(result) == ["Old", "New"]
    assert result.rows[1].rating is None
    assert names(ranking.ranking(rows, sort="won", count=2, limit=None)) == ["Old", "New"]


def test_the_limit_keeps_the_first_of_the_sort_and_counts_the_rest_as_hidden():
    result = ranking.ranking(ROWS, sort="rating", count=30, limit=2)
    assert names(result) == ["Dasha", "Gleb"]
    assert result.hidden == 28


def test_the_rating_is_one_whole_number_that_starts_at_1000():
    assert ranking.rating_points(MODEL_MU, MODEL_SIGMA) == 1000
    assert ranking.rating_points(25.0, 2.0) == 1000 + 25 * 19
    assert isinstance(ranking.rating_points(21.3, 1.7), int)


@pytest.mark.parametrize(
    "value", [None, "", "WON", "bogus", "rating ", "-rating", "\x00", "é" * 90]
)
def test_an_unknown_sort_is_the_default(value):
    assert ranking.sort_param(value) == "won"


@pytest.mark.parametrize("value", sorted(ranking.SORTS))
def test_every_known_sort_is_taken(value):
    assert ranking.sort_param(value) == value
