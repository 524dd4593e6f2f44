"""Home and a new game: the games this phone plays, the new-game form, a league's games."""

from __future__ import annotations

import re

import pytest

from scoring import rules
from scoring.models import Player, Series
from tests.helpers import (
    client_with_link,
    db_snapshot,
    html,
    logged_in,
    record,
    score_lines,
    start_series,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CONFLICT_NOTICE = "Deal 1 was just recorded on another phone; your points are kept"


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


# Home and a new game


def test_home_without_games_invites_to_start_one(client):
    response = client.get("/")
    assert response.status_code == 200
    assert "No games yet on this phone" in html(response)
    assert "Same table again" not in html(response)


def test_home_lists_the_games_this_phone_holds_a_link_for(quick_series):
    other = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    client = client_with_link(quick_series)
    page = html(client.get("/"))
    assert score_lines(page) == ["Anna & Vera 0 : 0 Boris & Gleb"]
    assert "Dima" not in page
    assert other.pk  # a game this phone has no link for stays hidden


def finished(series: Series) -> Series:
    for _ in range(2):
        record(series, (0, 120), (False, True))
    assert series.finished
    return series


def test_home_offers_to_go_back_to_the_newest_game_while_it_is_on(db):
    older = finished(start_series(names=("Dima", "Egor", "Fima", "Gosha")))
    newest = start_series()
    client = client_with_link(older)
    client.post(f"/tables/{newest.table.score_token}/")
    home = html(client.get("/"))
    assert re.search(rf'<a class="button again" href="/series/{newest.pk}/">', home)
    assert "Back to the game" in home and "Same table again" not in home


def test_same_table_again_opens_the_new_game_form_filled_in_from_the_newest_game(db):
    older = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    newest = finished(start_series(first_dealer=3, ruleset=rules.PRESETS["eggs-stacking"]))
    client = client_with_link(older)
    client.post(f"/tables/{newest.table.score_token}/")
    home = html(client.get("/"))
    link = re.search(r'href="(/new/\?again=\d+)"', home)
    assert link and link.group(1) == f"/new/?again={newest.pk}"
    assert "Anna, Boris, Vera, Gleb" in home

    form = client.get(link.group(1))
    assert form.status_code == 200
    page = html(form)
    for position, name in enumerate(["Anna", "Boris", "Vera", "Gleb"]):
        assert f'name="player_{position}" id="id_player_{position}" value="{name}"' in page
    assert re.search(r'name="first_dealer" value="0"[^>]*checked', page)  # after West: North
    assert re.search(r'name="preset" value="eggs-stacking"[^>]*checked', page)
    assert "Same seats and house rules as last time, and Anna deals first." in page
    # The game still on first, then the finished one with its goat marked.
    assert score_lines(home) == [
        "Dima & Fima 0 : 0 Egor & Gosha",
        "[goat] Anna & Vera 12 : 0 Boris & Gleb",
    ]


def test_same_table_again_is_one_tap_on_start_away_from_a_new_series(quick_series):
    client = client_with_link(quick_series)
    page = html(client.get(f"/new/?again={quick_series.pk}"))
    fields = dict(re.findall(r'name="(player_\d)" id="[^"]+" value="([^"]*)"', page))
    response = client.post(
        "/new/", {"mode": "teams", "first_dealer": "1", "preset": "classic", **fields}
    )
    assert response.status_code == 302
    new = Series.objects.exclude(pk=quick_series.pk).get()
    assert [seat.player_id for seat in new.seats.order_by("position")] == [
        seat.player_id for seat in quick_series.seats.order_by("position")
    ]


def test_same_table_again_from_a_game_this_phone_cannot_see_is_not_found(quick_series, client):
    assert client.get(f"/new/?again={quick_series.pk}").status_code == 404


def test_same_table_again_stays_in_the_league_for_those_who_may_start_games_there(
    league, league_series, scorer, viewer
):
    again = f"/new/?again={league_series.pk}"
    league_field = f'<input type="hidden" name="league" value="{league.pk}">'
    assert league_field in html(logged_in(scorer).get(again))
    as_viewer = logged_in(viewer).get(again)
    assert as_viewer.status_code == 200
    assert league_field not in html(as_viewer)  # a viewer starts a quick game instead


def test_a_new_game_starts_and_this_phone_may_score_it(client):
    response = client.post(
        "/new/",
        {
            "mode": "three",
            "player_0": "Ira",
            "player_1": "Kolya",
            "player_2": "Lida",
            "first_dealer": "2",
            "preset": "custom",
            "target": "21",
            "naked": "points",
            "eggs": "none",
            "ending": "first-out",
        },
    )
    series = Series.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{series.table.score_token}/"  # its table's page
    assert series.ruleset == rules.Ruleset(target=21, naked="points", ending="first-out")
    assert series.first_dealer == 2
    page = client.get(response["Location"])
    assert 'name="entry_key"' in html(page)
    assert "Deals: <strong>Lida</strong>" in html(page)
    assert "Leads: <strong>Ira</strong>" in html(page)


def test_a_new_game_form_offers_known_players_to_pick(quick_series):
    client = client_with_link(quick_series)
    page = html(client.get("/new/"))
    assert '<datalist id="known-players">' in page
    assert '<option value="Anna"></option>' in page


def test_a_new_game_picked_from_known_players_reuses_them(quick_series):
    client = client_with_link(quick_series)
    client.post(
        "/new/",
        {"mode": "duel", "player_0": "anna", "player_1": "Zoya", "first_dealer": "0"}
        | {"preset": "classic"},
    )
    assert Player.objects.filter(name__iexact="anna").count() == 1
    assert Player.objects.filter(name="Zoya").count() == 1


def test_a_new_game_with_mistakes_is_shown_again_and_creates_nothing(client):
    before = db_snapshot()
    response = client.post("/new/", {"mode": "teams", "player_0": "Anna", "first_dealer": "0"})
    assert response.status_code == 422
    assert "Enter a name for this seat." in html(response)
    assert db_snapshot() == before


def test_a_league_game_is_for_owners_and_scorers(league, owner, scorer, viewer, outsider):
    data = {"mode": "duel", "player_0": "Lena", "player_1": "Misha", "first_dealer": "0"}
    data |= {"preset": "classic", "league": str(league.pk)}
    assert logged_in(outsider).get(f"/new/?league={league.pk}").status_code == 404
    assert logged_in(viewer).post("/new/", data).status_code == 403
    assert logged_in(owner).get(f"/new/?league={league.pk}").status_code == 200
    assert logged_in(scorer).post("/new/", data).status_code == 302
    assert Series.objects.get().league == league


@pytest.mark.parametrize("league_id", ["abc", "²", "9" * 30, "-1"])
def test_a_malformed_league_is_not_found(client, league_id):
    assert client.get("/new/", {"league": league_id}).status_code == 404
