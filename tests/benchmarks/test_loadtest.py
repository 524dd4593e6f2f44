"""``make loadtest``: its phones read and post what a browser does, its search of N, and when a
step holds."""

from __future__ import annotations

from django.test import Client

from scoring.models import Series
from scoring.table.live import live_version
from tests.helpers import client_with_link, creator_client, play_deals

LADDER = [10, 25, 50, 100, 150, 200, 300, 400, 600, 800]
GOAT = [(100, 20)] * 3  # 4 defeat points a deal: 12, the goat


def checked(client: Client) -> Client:
    """The same browser, whose posts are checked for CSRF as a real browser's are."""
    phone = Client(enforce_csrf_checks=True)
    phone.cookies = client.cookies
    return phone


def test_the_deal_read_from_the_board_and_posted_as_htmx_does_is_recorded(wire, quick_series):
    phone = checked(client_with_link(quick_series))
    page = phone.get(quick_series.table.get_absolute_url()).content.decode()
    action, fields, points = wire.deal_form(page)
    fields[points[0]], fields[points[1]] = "70", "50"
    answer = phone.post(action, fields, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    quick_series.refresh_from_db()
    assert quick_series.deal_count == 1
    version = wire.board_version(answer.content.decode())
    assert version == live_version(quick_series.table.score_token)


def test_a_board_whose_game_reached_the_goat_offers_the_rematch_instead_of_a_deal_form(
    wire, quick_series
):
    play_deals(quick_series, GOAT)
    page = checked(client_with_link(quick_series)).get(quick_series.table.get_absolute_url())
    assert wire.deal_form(page.content.decode()) is None
    action, fields = wire.rematch_form(page.content.decode())
    assert action == f"/series/{quick_series.pk}/rematch/"
    assert set(fields) == {"csrfmiddlewaretoken"}


def test_the_rematch_posted_as_a_browser_does_shows_the_new_game_on_the_tables_page(
    wire, quick_series
):
    play_deals(quick_series, GOAT)
    phone = checked(creator_client(quick_series))
    page = phone.get(quick_series.table.get_absolute_url()).content.decode()
    action, fields = wire.rematch_form(page)
    answer = phone.post(action, fields)
    assert answer.status_code == 302
    assert answer["Location"] == quick_series.table.get_absolute_url()
    shown = phone.get(answer["Location"]).content.decode()
    rematch = Series.objects.get(rematch_of=quick_series)
    assert wire.deal_form(shown)[0] == f"/series/{rematch.pk}/deals/"
    assert wire.board_version(shown) == live_version(quick_series.table.score_token)


def test_a_watching_phone_polling_with_the_old_game_gets_the_rematch_whose_version_is_newer(
    wire, quick_series
):
    play_deals(quick_series, GOAT)
    table = quick_series.table
    watcher = client_with_link(quick_series, table.watch_token)
    before = live_version(table.watch_token)
    phone = checked(creator_client(quick_series))
    page = phone.get(table.get_absolute_url()).content.decode()
    phone.post(*wire.rematch_form(page))
    answer = watcher.get(f"/tables/{table.watch_token}/live/", {"version": before})
    assert answer.status_code == 200
    after = wire.board_version(answer.content.decode())
    assert wire.version_key(after) > wire.version_key(before)
    assert wire.deal_form(answer.content.decode()) is None  # a watching phone scores nothing


def test_versions_compare_element_by_element_not_as_text(wire):
    assert wire.version_key("0.10.1") > wire.version_key("0.9.25")
    assert wire.version_key("3.1.1") > wire.version_key("2.40.40")


def test_a_redirect_to_an_address_with_its_origin_is_followed_on_the_same_server(wire):
    answer = wire.parse(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:81/tables/x/\r\n\r\n")
    assert answer.location == "/tables/x/"
    assert wire.parse(b"HTTP/1.1 302 Found\r\nLocation: /tables/y/\r\n\r\n").location == (
        "/tables/y/"
    )


def search(loadtest, limit: int) -> tuple:
    tried: list[int] = []

    def holds(tables: int) -> bool:
        tried.append(tables)
        return tables <= limit

    return (*loadtest.search(LADDER, holds, 100), tried)


def test_the_search_doubles_from_100_then_tries_between_the_last_held_and_the_first_missed(
    loadtest,
):
    assert search(loadtest, 350) == (300, False, [100, 200, 400, 300])


def test_the_search_goes_down_when_100_tables_miss(loadtest):
    assert search(loadtest, 30) == (25, False, [100, 25, 50])


def test_the_search_says_when_even_the_smallest_step_missed(loadtest):
    assert search(loadtest, 5) == (None, False, [100, 25, 10])


def test_the_search_says_when_the_top_step_held(loadtest):
    assert search(loadtest, 10_000) == (800, True, [100, 200, 400, 800])


def test_a_kitchen_step_misses_when_its_rematches_are_slow_and_holds_without_any(phones, plan):
    figures = phones.Figures(10, plan.KITCHEN.sends)
    figures.latencies["live poll"] = [20.0] * 100
    figures.latencies["deal"] = [120.0] * 10
    assert figures.missed() == []  # no game ended in the window: no rematch to measure
    figures.latencies["rematch"] = [150.0, 420.0]
    assert figures.missed() == ["rematch p99 420 ms >= 300"]


def test_kitchen_tables_first_games_are_spread_over_a_game(plan):
    # About one deal in a game's length ends a game in every step, from the first one.
    started = [plan.played_before(table) for table in range(22)]
    lengths = [plan.series_length(table) for table in range(22)]
    assert all(0 <= at < length for at, length in zip(started, lengths, strict=True))
    assert len(set(started)) >= 10


def test_the_summary_says_which_kind_met_the_goal_on_which_database(loadtest, plan, capsys):
    results = {
        ("club", "site on SQLite"): {"n": 300, "top": False, "steps": [(100, True)]},
        ("club", "bare Django"): {"n": 600, "top": False, "steps": [(100, True)]},
        ("kitchen", "site on SQLite"): {"n": 150, "top": False, "steps": [(100, True)]},
        ("kitchen", "bare Django"): {"n": 600, "top": False, "steps": [(100, True)]},
    }
    loadtest.summary(results, [plan.CLUB, plan.KITCHEN], ["site on SQLite"])
    lines = capsys.readouterr().out.splitlines()
    club = next(line for line in lines if "SQLite" in line and "300" in line)
    kitchen = next(line for line in lines if "SQLite" in line and "150" in line)
    assert "50% of bare" in club and "goal met" in club
    assert "25% of bare" in kitchen and "goal not met" in kitchen
