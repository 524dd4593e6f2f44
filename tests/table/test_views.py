"""The table through its views: new game, scoreboard, deal entry, edit, undo, rematch, links."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scoring import rules
from scoring.models import Deal, DealEvent, Player, Series
from tests.helpers import (
    NEW_GAME,
    THREE,
    assert_stored_matches_replay,
    client_with_link,
    creator_client,
    db_snapshot,
    deal_data,
    edit_data,
    entry_key,
    html,
    logged_in,
    long_series,
    play,
    record,
    score_lines,
    start_series,
    undo_data,
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
    client.post(f"/join/{newest.score_token}/")
    home = html(client.get("/"))
    assert re.search(rf'<a class="button again" href="/series/{newest.pk}/">', home)
    assert "Back to the game" in home and "Same table again" not in home


def test_same_table_again_opens_the_new_game_form_filled_in_from_the_newest_game(db):
    older = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    newest = finished(start_series(first_dealer=3, ruleset=rules.PRESETS["eggs-stacking"]))
    client = client_with_link(older)
    client.post(f"/join/{newest.score_token}/")
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
    assert response.status_code == 302 and response["Location"] == f"/series/{series.pk}/"
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


# The scoreboard


def test_the_scoreboard_shows_sides_totals_bars_and_the_deal_form(quick_series):
    record(quick_series, (100, 20))
    page = html(client_with_link(quick_series).get(url(quick_series)))
    assert '<span class="side-name">Anna &amp; Vera</span>' in page
    assert re.search(r'<progress max="12" value="4"', page)
    assert "8 to go" in page and "12 to go" in page
    assert "Deal 2: card points" in page
    assert "Deal 1:</" not in page and "Boris &amp; Gleb lost: +4." in page
    assert "<html" in page


def test_an_htmx_request_gets_only_the_scoreboard_fragment(quick_series):
    response = client_with_link(quick_series).get(url(quick_series), headers=HTMX)
    page = html(response)
    assert response.status_code == 200
    # The page's title first (htmx puts it on the tab: the score), then the board alone.
    title, board = page.lstrip().split("\n", 1)
    assert title == "<title>Anna &amp; Vera 0 : Boris &amp; Gleb 0 · Kozel</title>"
    assert board.lstrip().startswith('<section id="scoreboard"')
    assert "<html" not in page and "Share this game" not in page
    assert 'name="entry_key"' in page


def test_eggs_count_and_the_multiplier_are_shown(db):
    series = start_series(ruleset=rules.PRESETS["eggs-stacking"])
    record(series, (60, 60))
    record(series, (60, 60))
    page = html(client_with_link(series).get(url(series)))
    assert "2 eggs" in page and 'class="egg"' in page
    assert "Next deal counts ×3" in page
    assert "Leads: whoever took the last trick" in page


# Playing a series through the views


def test_a_two_team_series_is_played_through_to_the_goat_screen(quick_series):
    client = client_with_link(quick_series)
    assert play(client, quick_series, points_0="60").status_code == 302  # eggs
    assert play(client, quick_series, points_0="40").status_code == 302  # Anna & Vera +2
    response = play(client, quick_series, points_0="0", tricks_0="yes")  # +4
    assert response.status_code == 302
    page = html(client.get(url(quick_series)))
    assert "Deal 3: Anna &amp; Vera lost: +4." in page
    assert "6 to go" in page and "1 egg" in page
    response = play(client, quick_series, points_0="20")  # +4 more: 10
    response = play(client, quick_series, points_0="50")  # +2: 12, the goat
    assert response.status_code == 302
    page = html(client.get(response["Location"]))
    assert "Anna &amp; Vera: goat with eggs!" in page
    assert "Boris &amp; Gleb won the series." in page
    assert "Rematch: same seats, next dealer" in page
    assert 'name="entry_key"' not in page  # no more deals
    series = Series.objects.get(pk=quick_series.pk)
    assert (series.finished, series.goat_sides, series.winner_side) == (True, [0], 1)
    assert_stored_matches_replay(series)

    rematch = client.post(url(series, "rematch/"))
    new = Series.objects.get(rematch_of=series)
    assert rematch["Location"] == f"/series/{new.pk}/"
    assert new.first_dealer == 1 and new.ruleset == series.ruleset
    assert "Deals: <strong>Boris</strong>" in html(client.get(rematch["Location"]))


def test_a_three_player_series_plays_on_after_a_player_is_out_until_one_is_left(db):
    series = start_series(mode="three", names=THREE)
    client = client_with_link(series)
    # Ira goes naked twice: out at 12, the goat. (Kolya and Lida share the top: +2 each.)
    for _ in range(2):
        response = play(client, series, htmx=True, points_0="0", points_1="60", tricks_0="no")
        assert response.status_code == 200
    page = html(response)
    assert "Ira: out!" in page
    assert re.search(r'<li class="side out goat">\s*<span class="side-name">Ira', page)
    assert 'name="points_0"' not in page and "the other side gets the rest of 120" in page
    # Two sides left, scored like two sides: Kolya loses until he reaches 12.
    for points in ["20", "20", "40"]:  # +4 (now 8), +4 (12): out
        response = play(client, series, htmx=True, points_1=points)
        if "goat" in html(response) and Series.objects.get(pk=series.pk).finished:
            break
    page = html(response)
    assert "Ira: the goat!" in page
    assert "Lida won the series." in page
    series.refresh_from_db()
    assert (series.finished, series.goat_sides, series.winner_side) == (True, [0], 2)
    assert_stored_matches_replay(series)


def test_without_javascript_the_server_fills_the_other_side(quick_series):
    client = client_with_link(quick_series)
    play(client, quick_series, points_1="70")
    assert Deal.objects.get().points == (50, 70, None)


def test_three_players_type_two_numbers_and_the_third_is_computed(db):
    series = start_series(mode="three", names=THREE)
    play(client_with_link(series), series, points_0="50", points_2="40")
    assert Deal.objects.get().points == (50, 30, 40)


def test_the_card_counter_fills_in_the_first_sides_points(quick_series):
    play(client_with_link(quick_series), quick_series, count_A="4", count_10="4", count_J="2")
    assert Deal.objects.get().points == (88, 32, None)


def test_a_side_with_0_points_is_asked_about_a_trick(quick_series):
    client = client_with_link(quick_series)
    before = db_snapshot()
    response = play(client, quick_series, htmx=True, points_0="0")
    assert response.status_code == 422
    assert "Say whether the side with 0 points took a trick." in html(response)
    assert db_snapshot() == before


# Bad input records nothing


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"points_0": "seventy"}, "Card points are whole numbers."),
        ({"points_0": "12.5"}, "Card points are whole numbers."),
        ({"points_0": "-10"}, "Card points are between 0 and 120."),
        ({"points_0": "121"}, "Card points are between 0 and 120."),
        ({"points_0": "1" * 400}, "Card points are between 0 and 120."),
        ({"points_0": "1"}, "1 is impossible: no set of cards is worth that."),
        ({"points_0": "119"}, "119 is impossible"),
        ({"points_0": "70", "points_1": "70"}, "add up to 140, but every deal has 120"),
        ({"points_0": "", "points_1": ""}, "Enter the card points of this side."),
        ({"points_0": "30", "tricks_0": "no"}, "A side with 30 card points took at least one"),
        ({"points_0": "0"}, "Say whether the side with 0 points took a trick."),
        ({"points_0": "40", "points_1": "40", "points_2": "40"}, "2 sides are in play"),
        ({"points_0": "70", "tricks_0": "maybe"}, "Select a valid choice."),
        ({"points_0": "70", "number": "x"}, "This form is out of date"),
        ({"points_0": "70", "entry_key": "not-a-key"}, "This form is out of date"),
    ],
)
@pytest.mark.parametrize("htmx", [False, True])
def test_bad_input_shows_its_message_and_records_nothing(quick_series, fields, message, htmx):
    client = client_with_link(quick_series)
    record(quick_series, (80, 40))
    before = db_snapshot()
    response = play(client, quick_series, htmx=htmx, **fields)
    assert response.status_code == 422
    assert message in html(response).replace("&#x27;", "'")
    assert db_snapshot() == before


def test_a_deal_after_the_series_is_over_is_refused(quick_series):
    client = client_with_link(quick_series)
    page = client.get(url(quick_series))
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    before = db_snapshot()
    data = deal_data(page, points_0="70") | {"number": "3"}
    response = client.post(url(quick_series, "deals/"), data)
    assert response.status_code == 422
    assert "The series is over; no deal can be added." in html(response)
    assert db_snapshot() == before


# Two phones, double taps


def test_a_replayed_post_with_the_same_entry_key_records_nothing_new(quick_series):
    client = client_with_link(quick_series)
    page = client.get(url(quick_series))
    data = deal_data(page, points_0="70")
    assert client.post(url(quick_series, "deals/"), data).status_code == 302
    again = client.post(url(quick_series, "deals/"), data, headers=HTMX)
    assert again.status_code == 200
    assert Deal.objects.count() == 1 and DealEvent.objects.count() == 1


def test_a_replay_of_the_deal_that_ended_the_series_is_still_a_success(quick_series):
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    data = deal_data(client.get(url(quick_series)), points_0="0", tricks_0="no")
    assert client.post(url(quick_series, "deals/"), data).status_code == 302
    before = db_snapshot()
    assert client.post(url(quick_series, "deals/"), data).status_code == 302
    assert db_snapshot() == before


def test_a_second_form_for_the_same_deal_gets_409_and_the_fresh_score(quick_series):
    first, second = client_with_link(quick_series), client_with_link(quick_series)
    first_page, second_page = first.get(url(quick_series)), second.get(url(quick_series))
    assert entry_key(first_page) != entry_key(second_page)
    first.post(url(quick_series, "deals/"), deal_data(first_page, points_0="70"))
    before = db_snapshot()
    response = second.post(
        url(quick_series, "deals/"), deal_data(second_page, points_0="20"), headers=HTMX
    )
    assert response.status_code == 409
    assert CONFLICT_NOTICE in html(response)
    assert "Deal 2: card points" in html(response)
    assert 'value="20" data-points' in html(response)  # the points typed, kept to check
    assert db_snapshot() == before


def test_a_form_shown_before_an_undo_elsewhere_gets_409(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series))
    client.post(url(quick_series, "undo/"), undo_data(page))
    response = client.post(url(quick_series, "deals/"), deal_data(page, points_0="70"))
    assert response.status_code == 409
    assert "A deal was undone on another phone; your points are kept" in html(response)
    assert 'value="70" data-points' in html(response)
    assert Deal.objects.count() == 0


def test_a_three_player_form_shown_before_someone_went_out_gets_409(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    client = client_with_link(series)
    stale = client.get(url(series))
    record(series, (0, 60, 60), (False, True, True))  # from another phone: Ira is out
    data = deal_data(stale, points_0="40", points_1="40", points_2="40")
    response = client.post(url(series, "deals/"), data)
    assert response.status_code == 409
    assert Deal.objects.count() == 2


# Undo and edit


def edit(client: Client, series: Series, number: int, **fields):
    """Open deal ``number``'s edit page, fill in ``fields`` and save."""
    address = url(series, f"deals/{number}/edit/")
    return client.post(address, edit_data(client.get(address), **fields))


def test_undo_removes_the_last_deal_and_says_so(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series), headers=HTMX)
    response = client.post(url(quick_series, "undo/"), undo_data(page), headers=HTMX)
    assert response.status_code == 200
    assert "Deal 2 undone: Anna &amp; Vera 100, Boris &amp; Gleb 20." in html(response)
    assert_stored_matches_replay(quick_series)
    assert quick_series.totals == [0, 2]
    assert undo_data(response)["number"] == "1"  # the fresh board's button undoes deal 1
    response = client.post(url(quick_series, "undo/"), undo_data(response))
    assert response.status_code == 302
    assert "Deal 1 undone: Anna &amp; Vera 80, Boris &amp; Gleb 40." in html(
        client.get(response["Location"])
    )
    assert Deal.objects.count() == 0


@pytest.mark.parametrize(
    ("number", "version"),
    [(n, "right") for n in ["", "x", "0", "²", "9" * 5000, "-1"]]
    + [("1", v) for v in ["", "x", "-1", "²", "9" * 5000, None]],
)
def test_a_malformed_undo_changes_nothing(quick_series, number, version):
    record(quick_series, (80, 40))
    data = {"number": number, "version": str(quick_series.version)}
    if version is None:
        del data["version"]  # a page from before undo buttons carried a version
    elif version != "right":
        data["version"] = version
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "undo/"), data)
    assert response.status_code == 422
    assert "Nothing to undo." in html(response)
    assert db_snapshot() == before


def test_undo_of_a_deal_that_is_no_longer_the_last_gets_409(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    before = db_snapshot()
    data = {"number": "1", "version": str(quick_series.version)}
    response = client_with_link(quick_series).post(url(quick_series, "undo/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_undo_of_the_last_deal_reopens_a_finished_series(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    client.post(url(quick_series, "undo/"), undo_data(client.get(url(quick_series))))
    page = html(client.get(url(quick_series)))
    assert "the goat!" not in page and "Deal 2: card points" in page


def test_the_edit_form_shows_the_deal_as_recorded(quick_series):
    record(quick_series, (0, 120), (True, True))
    page = html(client_with_link(quick_series).get(url(quick_series, "deals/1/edit/")))
    assert 'name="points_0" id="id_points_0" min="0" max="120"' in page
    assert re.search(r'name="points_0"[^>]*value="0"', page)
    assert re.search(r'name="tricks_0" value="yes"[^>]*checked', page)
    assert 'name="entry_key"' not in page
    quick_series.refresh_from_db()
    assert f'name="version" value="{quick_series.version}"' in page


def test_editing_an_earlier_deal_rescores_everything_after_it(quick_series):
    for points in [(80, 40), (100, 20), (70, 50)]:
        record(quick_series, points)
    client = client_with_link(quick_series)
    response = edit(client, quick_series, 1, points_0="40")
    assert response.status_code == 302
    page = html(client.get(response["Location"]))
    # What changed, from what to what.
    assert "Deal 1 changed: Anna &amp; Vera 80 → 40, Boris &amp; Gleb 40 → 80." in page
    state = assert_stored_matches_replay(quick_series)
    assert [outcome.totals for outcome in state.deals] == [(2, 0), (2, 4), (2, 6)]


def test_an_edit_can_finish_the_series_and_another_can_reopen_it(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    edit(client, quick_series, 2, points_0="0", tricks_0="no")
    assert "Anna &amp; Vera: the goat!" in html(client.get(url(quick_series)))
    edit(client, quick_series, 2, points_0="80")
    page = html(client.get(url(quick_series)))
    assert "the goat!" not in page and "Deal 3: card points" in page
    assert_stored_matches_replay(quick_series)


def test_an_edit_that_makes_later_deals_impossible_is_refused_naming_the_deal(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (80, 40))
    record(quick_series, (80, 40))
    before = db_snapshot()
    client = client_with_link(quick_series)
    response = edit(client, quick_series, 2, points_0="0", tricks_0="no")
    assert response.status_code == 422
    assert "Deal 3: The series is over; no deal can be added." in html(response)
    assert "Undo the deals after it first" in html(response)
    assert db_snapshot() == before


@pytest.mark.parametrize(
    "fields", [{"points_0": "1"}, {"points_0": "abc"}, {}, {"points_0": "0"}, {"points_2": "9"}]
)
def test_a_bad_edit_changes_nothing(quick_series, fields):
    record(quick_series, (80, 40))
    before = db_snapshot()
    response = edit(client_with_link(quick_series), quick_series, 1, **fields)
    assert response.status_code == 422
    assert 'class="errors"' in html(response) or 'class="error"' in html(response)
    assert db_snapshot() == before


def test_editing_a_deal_after_a_player_went_out_asks_only_for_those_in_play(db):
    series = start_series(mode="three", names=THREE)
    record(series, (0, 60, 60), (False, True, True))
    record(series, (0, 60, 60), (False, True, True))  # Ira out
    record(series, (70, 50))
    client = client_with_link(series)
    page = html(client.get(url(series, "deals/3/edit/")))
    assert 'name="points_0"' not in page
    assert re.search(r'name="points_1"[^>]*value="70"', page)
    response = edit(client, series, 3, points_2="90")
    assert response.status_code == 302
    assert Deal.objects.get(number=3).points == (None, 30, 90)
    assert_stored_matches_replay(series)


@pytest.mark.parametrize("number", [0, 2, 99])
def test_editing_a_deal_that_does_not_exist_is_not_found(quick_series, number):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    assert client.get(url(quick_series, f"deals/{number}/edit/")).status_code == 404


# Stale forms: two phones at one table


UNDO_REFUSED = "The score changed on another device since this page was shown; nothing was undone."


@pytest.mark.parametrize("htmx", [False, True])
def test_an_old_undo_button_never_removes_a_deal_recorded_since(quick_series, htmx):
    """Phone A undoes deal 2, phone B records a new deal 2, phone A sends its undo again."""
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    headers = HTMX if htmx else {}
    phone_a, phone_b = client_with_link(quick_series), client_with_link(quick_series)
    undo = undo_data(phone_a.get(url(quick_series)))
    assert phone_a.post(url(quick_series, "undo/"), undo, headers=headers).status_code < 400
    assert play(phone_b, quick_series, points_0="30").status_code == 302
    b_deal = Deal.objects.get(number=2)
    before = db_snapshot()
    response = phone_a.post(url(quick_series, "undo/"), undo, headers=headers)
    assert response.status_code == 409
    assert UNDO_REFUSED in html(response)
    assert ("<html" in html(response)) != htmx  # htmx gets the scoreboard alone
    assert '<span class="pts">30</span>' in html(response)  # B's deal, on the fresh board
    assert undo_data(response) != undo  # and an undo button for it as it is now
    assert db_snapshot() == before
    assert Deal.objects.get(number=2).pk == b_deal.pk


def test_an_undo_sent_twice_removes_one_deal_and_says_so(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    undo = undo_data(client.get(url(quick_series)))
    assert client.post(url(quick_series, "undo/"), undo, headers=HTMX).status_code == 200
    before = db_snapshot()
    response = client.post(url(quick_series, "undo/"), undo, headers=HTMX)
    assert response.status_code == 409 and UNDO_REFUSED in html(response)
    assert db_snapshot() == before
    assert list(Deal.objects.values_list("number", flat=True)) == [1]


@pytest.mark.parametrize("htmx", [False, True])
def test_a_deal_form_sent_again_after_its_deal_was_undone_records_nothing(quick_series, htmx):
    client = client_with_link(quick_series)
    headers = HTMX if htmx else {}
    data = deal_data(client.get(url(quick_series)), points_0="70")
    assert client.post(url(quick_series, "deals/"), data, headers=headers).status_code < 400
    client.post(url(quick_series, "undo/"), undo_data(client.get(url(quick_series))))
    assert not Deal.objects.exists()
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/"), data, headers=headers)
    assert response.status_code == 409
    assert "The deal this form recorded has been undone; it was not recorded again." in html(
        response
    )
    assert "Deal 1: card points" in html(response)  # a fresh form to enter it, if meant
    assert db_snapshot() == before


def test_a_deal_form_of_another_series_is_refused(quick_series):
    client = client_with_link(quick_series)
    data = deal_data(client.get(url(quick_series)), points_0="70")
    client.post(url(quick_series, "deals/"), data)
    other = start_series(names=("Dima", "Egor", "Fima", "Gosha"))
    before = db_snapshot()
    response = client_with_link(other).post(url(other, "deals/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_an_edit_from_a_page_opened_before_another_edit_changes_nothing(quick_series):
    record(quick_series, (80, 40))
    phone_a, phone_b = client_with_link(quick_series), client_with_link(quick_series)
    address = url(quick_series, "deals/1/edit/")
    page_a, page_b = phone_a.get(address), phone_b.get(address)
    assert phone_a.post(address, edit_data(page_a, points_0="40")).status_code == 302
    before = db_snapshot()
    response = phone_b.post(address, edit_data(page_b, points_0="100"))
    assert response.status_code == 409
    assert "nothing was saved. Here is the deal as it is now." in html(response)
    assert re.search(r'name="points_0"[^>]*value="40"', html(response))  # A's edit
    assert db_snapshot() == before
    # From the fresh page, B's edit goes through: it now knows what it replaces.
    assert phone_b.post(address, edit_data(response, points_0="100")).status_code == 302
    assert Deal.objects.get().points[:2] == (100, 20)


def test_an_edit_from_a_page_opened_before_a_new_deal_changes_nothing(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/1/edit/"))
    record(quick_series, (70, 50))  # another phone
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/1/edit/"), edit_data(page, points_0="40"))
    assert response.status_code == 409
    assert db_snapshot() == before


def test_a_stale_edit_with_a_typo_gets_the_fresh_deal_rather_than_errors(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/1/edit/"))
    record(quick_series, (70, 50))
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/1/edit/"), edit_data(page, points_0="abc"))
    assert response.status_code == 409
    assert "Here is the deal as it is now." in html(response)
    assert db_snapshot() == before


@pytest.mark.parametrize("version", [None, "", "x", "-1", "9" * 5000])
def test_an_edit_without_the_version_it_was_shown_at_changes_nothing(quick_series, version):
    record(quick_series, (80, 40))
    data = {"points_0": "40"} if version is None else {"points_0": "40", "version": version}
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "deals/1/edit/"), data)
    assert response.status_code == 409
    assert db_snapshot() == before


def test_an_edit_of_a_deal_undone_meanwhile_gets_the_scoreboard(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (100, 20))
    client = client_with_link(quick_series)
    page = client.get(url(quick_series, "deals/2/edit/"))
    client_with_link(quick_series).post(
        url(quick_series, "undo/"), undo_data(client.get(url(quick_series)))
    )
    before = db_snapshot()
    response = client.post(url(quick_series, "deals/2/edit/"), edit_data(page, points_0="40"))
    assert response.status_code == 409
    assert "That deal was undone from another device; nothing was saved." in html(response)
    assert "Deal 2: card points" in html(response)
    assert db_snapshot() == before


def test_an_edit_saved_twice_is_done_once(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    address = url(quick_series, "deals/1/edit/")
    data = edit_data(client.get(address), points_0="40")
    assert [client.post(address, data).status_code for _tap in range(2)] == [302, 302]
    assert DealEvent.objects.filter(action="edited").count() == 1


def test_a_rematch_before_the_end_is_refused(quick_series):
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "rematch/"))
    assert response.status_code == 409
    assert "finish it first" in html(response)
    assert db_snapshot() == before


def test_a_second_tap_on_rematch_opens_the_same_new_series(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    first = client.post(url(quick_series, "rematch/"))
    second = client.post(url(quick_series, "rematch/"), headers=HTMX)
    assert second["HX-Redirect"] == first["Location"]
    assert Series.objects.count() == 2


# Who may do what


def scoring_posts(series: Series) -> list[tuple[str, dict]]:
    return [
        (url(series, "deals/"), {"number": "2", "points_0": "70"}),
        (url(series, "deals/1/edit/"), {"points_0": "70"}),
        (url(series, "undo/"), {"number": "1"}),
        (url(series, "rematch/"), {}),
        (url(series, "links/"), {"link": "score"}),
    ]


def test_a_watcher_sees_the_score_but_cannot_record_edit_undo_or_rematch(quick_series):
    record(quick_series, (80, 40))
    watcher = client_with_link(quick_series, quick_series.watch_token)
    page = html(watcher.get(url(quick_series)))
    assert "Boris &amp; Gleb lost: +2." in page
    assert 'name="entry_key"' not in page and "/edit/" not in page and "Share this game" not in page
    assert f'data-live="/series/{quick_series.pk}/live/"' in page
    before = db_snapshot()
    for address, data in scoring_posts(quick_series):
        assert watcher.post(address, data).status_code == 403, address
    assert watcher.get(url(quick_series, "deals/1/edit/")).status_code == 403
    assert db_snapshot() == before


def test_a_stranger_without_a_link_finds_nothing(quick_series, client):
    record(quick_series, (80, 40))
    before = db_snapshot()
    assert client.get(url(quick_series)).status_code == 404
    assert client.get(url(quick_series, "live/")).status_code == 404
    assert client.get(url(quick_series, "deals/1/edit/")).status_code == 404
    for address, data in scoring_posts(quick_series):
        assert client.post(address, data).status_code == 404, address
    assert client.get("/join/not-a-token/").status_code == 404
    assert db_snapshot() == before


def test_the_live_view_answers_204_until_something_changes(quick_series):
    watcher = client_with_link(quick_series, quick_series.watch_token)
    quick_series.refresh_from_db()
    live = url(quick_series, "live/")
    assert watcher.get(live, {"version": quick_series.version}, headers=HTMX).status_code == 204
    record(quick_series, (80, 40))
    response = watcher.get(live, {"version": quick_series.version - 1}, headers=HTMX)
    assert response.status_code == 200 and "Boris &amp; Gleb lost: +2." in html(response)


def test_revoking_the_scoring_link_locks_out_whoever_holds_it(quick_series):
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    response = creator.post(url(quick_series, "links/"), {"link": "score"})
    assert response.status_code == 302
    locked_out = friend.get(url(quick_series))
    assert locked_out.status_code == 410  # told what happened, not "no such page"
    assert "Whoever started this game renewed its link" in html(locked_out)
    assert friend.post(f"/join/{Series.objects.get().score_token}/").status_code == 302
    assert creator.get(url(quick_series)).status_code == 200
    assert 'name="entry_key"' in html(creator.get(url(quick_series)))


def test_a_deal_sent_through_a_renewed_link_is_not_recorded_and_not_said_to_be(quick_series):
    """A phone's waiting deal sent after its score link was renewed: 410 with the way to the
    page that says why, never a 200 that the phone would take for "recorded" (issue #25)."""
    friend = client_with_link(quick_series)
    data = deal_data(friend.get(url(quick_series)), points_0="70")
    creator_client(quick_series).post(url(quick_series, "links/"), {"link": "score"})
    before = db_snapshot()
    response = friend.post(url(quick_series, "deals/"), data, headers=HTMX)
    assert response.status_code == 410
    assert response["HX-Redirect"] == url(quick_series)
    assert "X-Kozel-Recorded" not in response
    assert db_snapshot() == before


def test_only_an_answer_whose_deal_is_on_the_record_says_so(quick_series):
    client = client_with_link(quick_series)
    data = deal_data(client.get(url(quick_series)), points_0="70")
    first = client.post(url(quick_series, "deals/"), data, headers=HTMX)
    again = client.post(url(quick_series, "deals/"), data, headers=HTMX)  # a lost answer
    assert first["X-Kozel-Recorded"] == again["X-Kozel-Recorded"] == "1"
    late = deal_data(client.get(url(quick_series)), points_0="200")
    refused = client.post(url(quick_series, "deals/"), late, headers=HTMX)
    assert refused.status_code == 422 and "X-Kozel-Recorded" not in refused
    stale = {**data, "entry_key": str(uuid.uuid4())}  # a form for deal 1, taken
    conflict = client.post(url(quick_series, "deals/"), stale, headers=HTMX)
    assert conflict.status_code == 409 and "X-Kozel-Recorded" not in conflict


@pytest.mark.parametrize("htmx", [False, True])
def test_a_form_sent_again_with_other_points_is_told_what_its_key_recorded(quick_series, htmx):
    """The same one-time key with other card points: the first deal stands, and the phone is
    told so, with what differs (issue #25)."""
    client = client_with_link(quick_series)
    page = client.get(url(quick_series))
    client.post(url(quick_series, "deals/"), deal_data(page, points_0="70"))
    before = db_snapshot()
    response = client.post(
        url(quick_series, "deals/"),
        deal_data(page, points_0="60"),
        headers=HTMX if htmx else {},
        follow=not htmx,
    )
    assert response.status_code == 200
    told = (
        "Deal 1 was already recorded from this form as Anna &amp; Vera 70, Boris &amp; Gleb 50; "
        "what was sent again (Anna &amp; Vera 60, Boris &amp; Gleb 60) was not recorded."
    )
    assert told in html(response)
    assert db_snapshot() == before


def test_a_renewed_rematch_link_is_not_handed_to_the_old_games_phones(quick_series):
    """A quick game ends and is rematched; its creator renews both of the rematch's links; a
    phone that held the old game's links opens it: it is handed no link of the rematch."""
    creator = creator_client(quick_series)
    scorer = client_with_link(quick_series)
    watcher = client_with_link(quick_series, quick_series.watch_token)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    rematch_url = creator.post(url(quick_series, "rematch/"))["Location"]
    rematch = Series.objects.get(rematch_of=quick_series)
    for link in ("score", "watch"):
        assert creator.post(url(rematch, "links/"), {"link": link}).status_code == 302
    for phone in (scorer, watcher):
        assert phone.get(url(quick_series)).status_code == 200  # the old game, still theirs
        assert phone.get(rematch_url).status_code == 404
    data = deal_data(creator.get(url(rematch)), points_0="70")
    before = db_snapshot()
    assert scorer.post(url(rematch, "deals/"), data).status_code == 404
    assert db_snapshot() == before


def test_an_unrenewed_rematch_link_still_follows_the_table(quick_series):
    scorer = client_with_link(quick_series)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    rematch_url = creator_client(quick_series).post(url(quick_series, "rematch/"))["Location"]
    scorer.get(url(quick_series))
    assert 'name="entry_key"' in html(scorer.get(rematch_url))


def test_revoking_the_watching_link_locks_out_the_watchers_only(quick_series):
    creator = creator_client(quick_series)
    watcher = client_with_link(quick_series, quick_series.watch_token)
    creator.post(url(quick_series, "links/"), {"link": "watch"})
    assert watcher.get(url(quick_series)).status_code == 410
    assert creator.get(url(quick_series)).status_code == 200


def test_a_malformed_link_choice_changes_nothing(quick_series):
    before = db_snapshot()
    response = creator_client(quick_series).post(url(quick_series, "links/"), {"link": "both"})
    assert response.status_code == 422
    assert db_snapshot() == before


def test_the_score_link_scores_but_cannot_renew_the_links(quick_series):
    """A shared score link is no master key: it records deals, the links stay the creator's."""
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    page = html(friend.get(url(quick_series)))
    assert 'name="entry_key"' in page
    assert "Share this game" not in page and "/links/" not in page and "/move/" not in page
    assert "Share this game" in html(creator.get(url(quick_series)))
    before = db_snapshot()
    for link in ("score", "watch"):
        assert friend.post(url(quick_series, "links/"), {"link": link}).status_code == 403
    assert db_snapshot() == before
    assert creator.get(url(quick_series)).status_code == 200
    assert play(friend, quick_series, points_0="70").status_code == 302


def test_the_browser_that_starts_a_game_manages_it(db):
    client = Client()
    response = client.post(
        "/new/",
        {"mode": "duel", "player_0": "Anna", "player_1": "Boris", "first_dealer": "0"}
        | {"preset": "classic"},
    )
    series = Series.objects.get()
    assert response["Location"] == url(series)
    assert "Share this game" in html(client.get(url(series)))
    assert client.post(url(series, "links/"), {"link": "score"}).status_code == 302
    assert 'name="entry_key"' in html(client.get(url(series)))  # the new score link, remembered


def test_the_account_that_started_a_game_manages_it_from_another_phone(quick_series, owner):
    Series.objects.filter(pk=quick_series.pk).update(created_by=owner)
    phone = client_with_link(quick_series, quick_series.watch_token)
    assert "Share this game" not in html(phone.get(url(quick_series)))
    phone.force_login(owner)
    assert "Share this game" in html(phone.get(url(quick_series)))
    assert phone.post(url(quick_series, "links/"), {"link": "watch"}).status_code == 302


def test_the_creator_is_never_locked_out_by_a_renewal_elsewhere(quick_series, owner):
    Series.objects.filter(pk=quick_series.pk).update(created_by=owner)
    phone = creator_client(quick_series)
    laptop = logged_in(owner)  # the same account, no link at all
    assert laptop.post(url(quick_series, "links/"), {"link": "score"}).status_code == 302
    assert 'name="entry_key"' in html(phone.get(url(quick_series)))  # the old link, but its own
    assert f'href="/series/{quick_series.pk}/"' in html(phone.get("/"))
    assert Client().get(url(quick_series)).status_code == 404


def test_a_rematch_keeps_its_creator_whoever_taps_it(quick_series, owner, scorer):
    Series.objects.filter(pk=quick_series.pk).update(created_by=owner)
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    friend.force_login(scorer)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    rematch_url = friend.post(url(quick_series, "rematch/"))["Location"]
    rematch = Series.objects.get(rematch_of=quick_series)
    assert rematch.created_by == owner  # not the friend who tapped
    assert "Share this game" not in html(friend.get(rematch_url))
    assert friend.post(url(rematch, "links/"), {"link": "score"}).status_code == 403
    creator.get(url(quick_series))  # the creator's phone follows the table to the rematch
    assert "Share this game" in html(creator.get(rematch_url))
    assert creator.post(url(rematch, "links/"), {"link": "score"}).status_code == 302


def test_a_creator_who_taps_rematch_manages_the_rematch(quick_series):
    creator = creator_client(quick_series)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    rematch_url = creator.post(url(quick_series, "rematch/"))["Location"]
    assert "Share this game" in html(creator.get(rematch_url))


@pytest.mark.parametrize("kind", ["score", "watch"])
def test_opening_a_link_asks_first_and_changes_nothing(quick_series, kind):
    token = getattr(quick_series, f"{kind}_token")
    client = Client()
    page = client.get(f"/join/{token}/")
    assert page.status_code == 200
    text = html(page)
    assert "Anna · Boris · Vera · Gleb" in text
    assert f'<form method="post" action="/join/{token}/">' in text
    assert "csrfmiddlewaretoken" in text
    assert client.get(url(quick_series)).status_code == 404  # the GET remembered nothing
    assert "series_links" not in client.session
    response = client.post(f"/join/{token}/")
    assert response["Location"] == url(quick_series)
    board = html(client.get(url(quick_series)))
    assert ('name="entry_key"' in board) == (kind == "score")


def test_confirming_a_link_needs_the_csrf_token(quick_series):
    client = Client(enforce_csrf_checks=True)
    assert client.post(f"/join/{quick_series.score_token}/").status_code == 403
    assert client.get(url(quick_series)).status_code == 404


def test_a_phone_holding_the_link_goes_straight_in(quick_series):
    scorer = client_with_link(quick_series)
    for token in (quick_series.score_token, quick_series.watch_token):
        assert scorer.get(f"/join/{token}/")["Location"] == url(quick_series)
    watcher = client_with_link(quick_series, quick_series.watch_token)
    assert watcher.get(f"/join/{quick_series.watch_token}/")["Location"] == url(quick_series)
    assert watcher.get(f"/join/{quick_series.score_token}/").status_code == 200  # asks first


def test_opening_the_watching_link_keeps_a_scoring_link_this_phone_holds(quick_series):
    client = client_with_link(quick_series)
    client.post(f"/join/{quick_series.watch_token}/")
    assert 'name="entry_key"' in html(client.get(url(quick_series)))


def test_league_members_score_or_watch_by_role_and_outsiders_find_nothing(
    league, league_series, owner, scorer, viewer, outsider
):
    address = url(league_series, "deals/")
    for user, can_score in [(owner, True), (scorer, True), (viewer, False)]:
        client = logged_in(user)
        page = client.get(url(league_series))
        assert page.status_code == 200
        assert ('name="entry_key"' in html(page)) == can_score
    viewer_post = logged_in(viewer).post(address, {"number": "1", "points_0": "70"})
    assert viewer_post.status_code == 403
    assert logged_in(outsider).get(url(league_series)).status_code == 404
    client = logged_in(scorer)
    assert play(client, league_series, points_0="70").status_code == 302
    assert Deal.objects.get().recorded_by == scorer


# A constant number of queries, however long the series


#: A scoreboard request: the session, the series, its seats with players, its deals, and the
#: kept board looked for in Django's cache and kept (the database's cache: a read, and a write
#: of five queries: its count, a savepoint, the key, the row, the savepoint's release).
SCOREBOARD_QUERIES = 10
#: A scoreboard another phone was shown at this version: the session, the series with its
#: seats, the cache.
KEPT_SCOREBOARD_QUERIES = 4
#: A recorded deal: the board it was typed on, the locked write with its savepoints, the key's
#: use, the fresh scoreboard of the series the write left (its seats and deals; kept, as above).
RECORD_QUERIES = 23


@pytest.mark.parametrize("deals", [1, 40])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_scoreboard_takes_the_same_few_queries_at_1_and_at_40_deals(
    django_assert_max_num_queries, deals, htmx
):
    series = long_series(deals)
    client = client_with_link(series)
    with django_assert_max_num_queries(SCOREBOARD_QUERIES):
        response = client.get(url(series), headers=HTMX if htmx else {})
    assert response.status_code == 200
    assert f"Deal {deals + 1}: card points" in html(response)


@pytest.mark.parametrize("deals", [1, 40])
def test_recording_a_deal_takes_the_same_queries_at_1_and_at_40_deals(
    django_assert_max_num_queries, deals
):
    series = long_series(deals)
    client = client_with_link(series)
    page = client.get(url(series), headers=HTMX)
    with django_assert_max_num_queries(RECORD_QUERIES):
        response = client.post(url(series, "deals/"), deal_data(page, points_0="70"), headers=HTMX)
    assert response.status_code == 200
    assert Deal.objects.filter(series=series).count() == deals + 1


@pytest.mark.parametrize("deals", [1, 40])
def test_a_scoreboard_shown_at_this_version_is_kept_for_the_next_phone(
    django_assert_num_queries, deals
):
    series = long_series(deals)
    first, second = client_with_link(series), client_with_link(series)
    shown = first.get(url(series), headers=HTMX)
    with django_assert_num_queries(KEPT_SCOREBOARD_QUERIES):
        kept = second.get(url(series), headers=HTMX)
    assert f"Deal {deals + 1}: card points" in html(kept)
    assert entry_key(kept) != entry_key(shown)  # each answer's key is its own


def test_the_scoreboard_costs_exactly_as_many_queries_at_40_deals_as_at_1():
    counts = []
    for deals in (1, 40):
        series = long_series(deals)
        client = client_with_link(series)
        with CaptureQueriesContext(connection) as queries:
            client.get(url(series))
        counts.append(len(queries))
    assert counts[0] == counts[1] <= SCOREBOARD_QUERIES


# Random input never breaks anything

TEXT = st.one_of(
    st.sampled_from(["", "0", "1", "60", "120", "121", "-1", "1e3", "٣٠", "²", "9" * 5000]),
    st.integers(-(10**20), 10**20).map(str),
    st.text(max_size=30),
)
DEAL_FIELDS = [
    "number",
    "entry_key",
    "points_0",
    "points_1",
    "points_2",
    "tricks_0",
    "tricks_1",
    "tricks_2",
    "count_A",
    "count_10",
    "count_J",
]
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def random_post(draw_fields, names):
    return st.dictionaries(st.sampled_from(names), draw_fields, max_size=len(names))


def without_nul(data: dict) -> dict:
    # The test client cannot even send a NUL in a form field; a browser never does either.
    return {key: value.replace("\x00", "") for key, value in data.items()}


def fuzz(address, data: dict, *, htmx: bool = False, prepare=None) -> None:
    """POST ``data`` after ``prepare()`` (which returns the client), all rolled back afterwards."""
    with transaction.atomic():
        client = prepare() if prepare else Client()
        before = db_snapshot()
        response = client.post(address, without_nul(data), headers=HTMX if htmx else {})
        event(f"status {response.status_code}")
        assert response.status_code < 500
        if 400 <= response.status_code < 500:
            assert db_snapshot() == before
        transaction.set_rollback(True)


@pytest.mark.slow
@FUZZ
@given(
    data=random_post(TEXT, DEAL_FIELDS),
    htmx=st.booleans(),
    number=st.sampled_from([None, "1", "2", "2", "2", "3"]),
    base=st.sampled_from([{}, {"points_0": "70"}, {"points_1": "0", "tricks_1": "no"}]),
)
def test_random_deal_posts_never_fail_and_refusals_change_nothing(
    quick_series, data, htmx, number, base
):
    data = {**base, **data}  # sometimes a good deal with a few fields spoilt
    if number is not None:  # mostly the right next deal, so that some posts get through
        data["number"] = number
    if data.get("entry_key") == "":
        data["entry_key"] = str(uuid.uuid4())

    def prepare():
        record(quick_series, (80, 40))
        return client_with_link(quick_series)

    fuzz(url(quick_series, "deals/"), data, htmx=htmx, prepare=prepare)


@pytest.mark.slow
@FUZZ
@given(
    data=random_post(TEXT, [*DEAL_FIELDS, "version"]), deal=st.integers(1, 2), shown=st.booleans()
)
def test_random_edit_posts_never_fail_and_refusals_change_nothing(quick_series, data, deal, shown):
    def prepare():
        record(quick_series, (0, 120), (False, True))
        record(quick_series, (80, 40))
        if shown:  # the version the page showed, so that some edits get through
            data["version"] = str(quick_series.version)
        return client_with_link(quick_series)

    fuzz(url(quick_series, f"deals/{deal}/edit/"), data, prepare=prepare)


@pytest.mark.slow
@FUZZ
@given(data=random_post(TEXT, ["number", "version"]), htmx=st.booleans(), shown=st.booleans())
def test_random_undo_posts_never_fail_and_refusals_change_nothing(quick_series, data, htmx, shown):
    def prepare():
        record(quick_series, (80, 40))
        if shown:  # the version the page showed, so that some undos get through
            data["version"] = str(quick_series.version)
        return client_with_link(quick_series)

    fuzz(url(quick_series, "undo/"), data, htmx=htmx, prepare=prepare)


NEW_GAME_FIELDS = [
    "mode",
    "player_0",
    "player_1",
    "player_2",
    "player_3",
    "first_dealer",
    "preset",
    "target",
    "save_line",
    "save_line_three",
    "naked",
    "eggs",
    "ending",
    "league",
]
NEW_GAME_TEXT = st.one_of(
    TEXT,
    st.sampled_from(
        ["teams", "duel", "three", "classic", "custom", "tie-penalty", "stacking", "first-out"]
    ),
)


@pytest.mark.slow
@FUZZ
@given(data=random_post(NEW_GAME_TEXT, NEW_GAME_FIELDS), keep=st.booleans())
def test_random_new_games_never_fail_and_refusals_create_nothing(db, data, keep):
    # Half of the time a valid game with some fields spoilt, else only random fields.
    fuzz("/new/", {**NEW_GAME, **data} if keep else data)


def test_a_finished_series_refuses_any_post_to_record(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    before = db_snapshot()
    for data in [{}, {"number": "3", "points_0": "70"}, {"points_0": "x"}]:
        response = client.post(url(quick_series, "deals/"), data)
        assert 400 <= response.status_code < 500
    assert db_snapshot() == before


def test_a_fresh_form_autofocuses_its_first_side_in_the_page_and_in_htmx_alike(quick_series):
    # One board for both, kept once (board.context); app.js drops the attribute from a board
    # htmx swaps in, which htmx would focus when settling, after the player had typed on.
    client = client_with_link(quick_series)
    page = client.get(f"/series/{quick_series.pk}/")
    fragment = client.get(f"/series/{quick_series.pk}/", headers={"HX-Request": "true"})
    for answer in (page.content.decode(), fragment.content.decode()):
        assert answer.count(" autofocus") == 1
        assert re.search(r'name="points_0"[^>]* autofocus', answer)
    refused = client.post(f"/series/{quick_series.pk}/deals/", deal_data(page, points_0="200"))
    assert refused.status_code == 422
    assert " autofocus" not in refused.content.decode()  # a form as typed, with its errors


def test_the_change_log_names_the_creators_phone_and_a_shared_link_apart(quick_series):
    """A deal typed on the phone that started the game is the creator's, not "score link"."""
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    assert play(creator, quick_series, points_0="70").status_code == 302
    assert play(friend, quick_series, points_0="40").status_code == 302
    events = list(quick_series.events.order_by("pk").values_list("via", flat=True))
    assert events == ["creator", "score link"]
    sheet = html(creator.get(url(quick_series, "sheet/")))
    assert "the game&#x27;s creator" in sheet and "score link" in sheet


def test_every_board_carries_a_one_time_key_of_its_own(quick_series):
    """Two phones, or one phone asking twice, never get the same deal form key: each form's deal
    is recorded once, whichever is sent first."""
    client = client_with_link(quick_series)
    pages = [client.get(url(quick_series)), client.get(url(quick_series), headers=HTMX)]
    keys = {entry_key(page) for page in pages}
    assert len(keys) == 2
    for page in pages:
        posted = client.post(url(quick_series, "deals/"), deal_data(page, points_0="70"))
        assert posted.status_code in (302, 409)
    assert Deal.objects.filter(series=quick_series).count() == 1
