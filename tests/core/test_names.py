"""One rule for "the same name", wherever a name is matched, held by the database too."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction

from scoring.backup.json_export import export_json
from scoring.backup.json_import import history_import
from scoring.core import names
from scoring.leagues import services as league_services
from scoring.models import League, Player, Series, Table
from scoring.table import services
from tests.helpers import client_with_link, start_series

pytestmark = pytest.mark.django_db

#: Names typed differently that are one player.
SAME = [
    ("Анна", "анна"),
    ("Анна", "АННА"),
    ("Straße", "STRASSE"),
    ("Straße", "straße"),
    ("Straße", "STRAẞE"),
    ("İlker", "ilker"),
    ("İlker", "ILKER"),
    ("Işık", "IŞIK"),
    ("ハナ", "ﾊﾅ"),
    ("ANNA", "ＡＮＮＡ"),
    ("Anna  Petrova", " anna petrova "),
]
#: Names that look alike and are two players.
DIFFERENT = [("ハナ", "はな"), ("Анна", "Анна-Мария"), ("Алёна", "Алена"), ("Anna", "Anna2")]


@pytest.mark.parametrize(("typed", "again"), SAME)
def test_names_that_differ_in_case_width_or_spacing_have_one_key(typed, again):
    assert names.name_key(typed) == names.name_key(again)


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_names_that_only_look_alike_have_two_keys(first, second):
    assert names.name_key(first) != names.name_key(second)


def test_a_key_never_holds_what_keeps_colliding_players_apart():
    assert names.KEPT_APART not in names.name_key("Anna\t#5")
    assert names.name_key("Anna\t#5") != names.kept_apart(names.name_key("Anna"), 5)


@pytest.mark.parametrize(("typed", "again"), SAME)
def test_a_league_holds_one_player_per_name_whatever_its_case(league, typed, again):
    Player.objects.create(name=typed, league=league)
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(name=again, league=league)
    Player.objects.create(name=again)  # quick games may share a name: one Anna per browser
    Player.objects.create(name=again, league=League.objects.create(name="Attic"))


def test_the_key_is_stored_whichever_way_a_player_is_written(league):
    created = Player.objects.create(name="  STRAẞE ", league=league)
    bulk = Player.objects.bulk_create([Player(name="ﾊﾅ", league=league)])[0]
    assert Player.objects.get(pk=created.pk).name_key == "strasse"
    assert Player.objects.get(pk=bulk.pk).name_key == "ハナ"


def test_saving_a_player_kept_apart_keeps_its_key(league):
    Player.objects.create(name="Anna", league=league)
    apart = Player(name="ANNA", league=league, name_key=names.kept_apart("anna", 99))
    apart.save()
    apart.save()
    assert Player.objects.get(pk=apart.pk).name_key == "anna\t#99"


@pytest.mark.parametrize(("typed", "again"), SAME)
def test_a_new_game_in_a_league_finds_the_player_however_the_name_is_typed(league, typed, again):
    known = services.players_resolve(names=[typed], league=league)[0]
    found = services.players_resolve(names=[again, "Boris"], league=league)
    assert found[0] == known
    assert Player.objects.filter(league=league).count() == 2


@pytest.mark.parametrize(("first", "second"), DIFFERENT)
def test_a_new_game_keeps_look_alike_names_apart(league, first, second):
    found = services.players_resolve(names=[first, second], league=league)
    assert found[0] != found[1]


def test_a_quick_game_finds_a_player_this_phone_played_with_whatever_the_case(db):
    series = start_series(names=("Анна", "Straße", "İlker", "ハナ"))
    known = Player.objects.filter(seats__series=series)
    found = services.players_resolve(
        names=["АННА", "STRASSE", "ilker", "ﾊﾅ"], league=None, known=known
    )
    assert [p.pk for p in found] == [seat.player_id for seat in series.seats.order_by("position")]


def test_a_player_created_meanwhile_by_another_request_is_the_one_returned(league):
    other = Player.objects.create(name="Анна", league=league)
    assert services.player_create(name="АННА", league=league) == other


def test_the_new_game_page_finds_the_league_player_whatever_the_case(league, scorer):
    from django.test import Client

    anna = Player.objects.create(name="Анна", league=league)
    client = Client()
    client.force_login(scorer)
    form = {
        "mode": "duel",
        "player_0": "АННА",
        "player_1": "STRAẞE",
        "first_dealer": "0",
        "preset": "classic",
        "league": league.pk,
    }
    assert client.post(f"/new/?league={league.pk}", form).status_code == 302
    seats = Series.objects.get().seats.order_by("position")
    assert seats[0].player == anna
    assert (
        client.post(f"/new/?league={league.pk}", {**form, "player_1": "straße"}).status_code == 302
    )
    assert Player.objects.filter(league=league).count() == 2


def test_the_names_a_new_game_suggests_hold_each_player_once(db):
    first = start_series(names=("Анна", "Boris", "Vera", "Gleb"))
    second = start_series(names=("АННА", "boris", "Vera", "Gleb"))  # another browser's table
    client = client_with_link(first)
    assert client.post(f"/tables/{second.table.score_token}/").status_code == 302
    page = client.get("/new/").content.decode()
    assert page.count('<option value="Анна">') + page.count('<option value="АННА">') == 1
    assert page.count('<option value="Boris">') + page.count('<option value="boris">') == 1


def test_moving_a_game_into_a_league_matches_names_by_their_key(league, scorer):
    anna = Player.objects.create(name="анна", league=league)
    strasse = Player.objects.create(name="STRASSE", league=league)
    ilker = Player.objects.create(name="ilker", league=league)
    hana = Player.objects.create(name="ハナ", league=league)
    quick = start_series(names=("АННА", "Straße", "İLKER", "ﾊﾅ"))
    league_services.series_move_to_league(series=quick, league=league, user=scorer)
    seats = quick.seats.order_by("position")
    assert [seat.player for seat in seats] == [anna, strasse, ilker, hana]
    assert Player.objects.filter(league=league).count() == 4


def test_a_game_seating_one_name_twice_is_not_moved(league, scorer):
    """Games started before names had keys may seat "ハナ" beside "ﾊﾅ": refused, not a 500."""
    players = [Player.objects.create(name=name) for name in ("ハナ", "ﾊﾅ")]
    quick = services.series_start(
        mode="duel", players=players, first_dealer=0, ruleset=services.rules.Ruleset()
    )
    with pytest.raises(league_services.LeagueError, match="both"):
        league_services.series_move_to_league(series=quick, league=league, user=scorer)
    quick.refresh_from_db()
    assert quick.league is None
    assert not Player.objects.filter(league=league).exists()


def test_an_import_keeps_colliding_players_of_a_league_apart_as_the_migration_did(league):
    start_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"))
    document = json.loads("".join(export_json(Series.objects.all(), secrets=True)))
    lena = next(p for p in document["players"] if p["name"] == "Lena")
    # Stored before keys existed, with a later id (ids differ between databases: relative).
    later = {**lena, "id": lena["id"] + 1000, "name": "LENA"}
    document["players"].append(later)
    Table.objects.all().delete()
    Series.objects.all().delete()
    Player.objects.all().delete()
    League.objects.all().delete()
    history_import(document)
    assert Player.objects.get(pk=lena["id"]).name_key == "lena"
    assert Player.objects.get(pk=later["id"]).name_key == names.kept_apart("lena", later["id"])
    assert services.players_resolve(names=["lena"], league=league)[0].pk == lena["id"]
