"""The scoreboard and deal entry through the views: a series played to the goat, bad input,
two phones and double taps."""

from __future__ import annotations

import re

import pytest

from scoring import rules
from scoring.models import Deal, DealEvent, Series
from tests.helpers import (
    THREE,
    assert_stored_matches_replay,
    client_with_link,
    db_snapshot,
    deal_data,
    entry_key,
    html,
    play,
    record,
    start_series,
    undo_data,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CONFLICT_NOTICE = "Deal 1 was just recorded on another phone; your points are kept"


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


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
    assert rematch["Location"] == f"/tables/{series.table.score_token}/"  # the same table
    assert new.table_id == series.table_id and new.table.series_id == new.pk
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
