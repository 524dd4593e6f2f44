"""History pages through their views: access, filters, score sheet, player page, downloads, and
a constant number of queries whatever the history's size."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from scoring.models import Player, Series
from scoring.table import deals
from tests.helpers import (
    client_with_link,
    export_downloaded,
    finished_series,
    html,
    logged_in,
    long_series,
    play_deals,
    query_count,
    score_lines,
    start_series,
    streamed,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
LEAGUE_NAMES = ("Lena", "Misha", "Nina", "Pavel")


# --- The history list ---------------------------------------------------------------------------


def test_a_member_sees_the_league_series_and_an_outsider_does_not(league, viewer, outsider):
    series = finished_series(league=league, names=LEAGUE_NAMES)
    page = logged_in(viewer).get("/history/")
    assert page.status_code == 200
    assert f'href="/series/{series.pk}/sheet/"' in html(page)
    assert "Lena &amp; Nina: the goat" in html(page)
    assert f"/series/{series.pk}/" not in html(logged_in(outsider).get("/history/"))


def test_a_browser_sees_the_quick_games_it_holds_a_link_for(quick_series):
    other = start_series(names=("Ira", "Kolya", "Lida", "Masha"))
    page = html(client_with_link(quick_series, quick_series.table.watch_token).get("/history/"))
    assert f'href="/series/{quick_series.pk}/"' in page  # in progress: its scoreboard
    assert f"/series/{other.pk}/" not in page
    assert "No series yet" in html(Client().get("/history/"))


def test_each_row_shows_the_score_side_against_side_and_marks_the_goat(league, viewer):
    finished_series(league=league, names=LEAGUE_NAMES)  # Lena & Nina lose six deals by 2
    duel = start_series(mode="duel", names=("Lena", "Oleg"), league=league)
    play_deals(duel, [(40, 80)])
    three = start_series(mode="three", names=("Lena", "Oleg", "Pavel"), league=league)
    play_deals(three, [(20, 40, 60)])
    lines = score_lines(html(logged_in(viewer).get("/history/")))
    assert lines == [
        "Lena 4 · Oleg 2 · Pavel 0",
        "Lena 2 : 0 Oleg",
        "[goat] Lena & Nina 12 : 0 Misha & Pavel",
    ]


def test_a_row_opens_the_scoreboard_while_the_game_is_on_and_the_sheet_once_it_is_over(
    league, viewer, quick_series
):
    over = finished_series(league=league, names=LEAGUE_NAMES)
    on = start_series(league=league, names=LEAGUE_NAMES)
    client = logged_in(viewer)
    page = html(client.get("/history/"))
    assert f'href="/series/{on.pk}/"' in page and f"/series/{on.pk}/sheet/" not in page
    assert f'href="/series/{over.pk}/sheet/"' in page and f'href="/series/{over.pk}/"' not in page
    assert client.get(f"/series/{on.pk}/").status_code == 200  # a viewer may watch it
    # A phone holding only the watch link of a quick game: its row opens the board it may see.
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    assert f'href="/series/{quick_series.pk}/"' in html(watcher.get("/history/"))
    assert watcher.get(f"/series/{quick_series.pk}/").status_code == 200
    assert f"/series/{on.pk}/" not in html(watcher.get("/history/"))


def test_the_league_page_lists_its_series_with_the_score_and_the_goat(league, viewer):
    finished_series(goat=1, league=league, names=LEAGUE_NAMES)
    on = start_series(league=league, names=LEAGUE_NAMES)
    play_deals(on, [(40, 80), (100, 20)])
    lines = score_lines(html(logged_in(viewer).get(f"/leagues/{league.pk}/")))
    assert lines == ["Lena & Nina 2 : 4 Misha & Pavel", "Lena & Nina 0 : 12 [goat] Misha & Pavel"]
    league.share_token = "public-token"
    league.save(update_fields=["share_token"])
    public = score_lines(html(Client().get("/public/public-token/history/")))
    assert public == lines


def test_the_league_filter_is_for_members_only(league, viewer, outsider):
    finished_series(league=league, names=LEAGUE_NAMES)
    assert logged_in(viewer).get(f"/history/?league={league.pk}").status_code == 200
    assert logged_in(outsider).get(f"/history/?league={league.pk}").status_code == 404
    assert Client().get(f"/history/?league={league.pk}").status_code == 404


def test_a_malformed_filter_is_answered_422_with_a_reason(league, viewer):
    client = logged_in(viewer)
    for query in ("start=yesterday", "mode=poker", "player=abc", "before=x", "status=maybe",
                  "start=2025-05-02&end=2025-05-01", "before=99999", "end=9999-12-31",
                  "start=0001-01-01", "before=99999999999999999999999", "after=-3"):  # fmt: skip
        response = client.get(f"/history/?{query}")
        assert response.status_code == 422, query
        assert 'role="alert"' in html(response)


def test_filters_narrow_the_list_and_keep_working_without_javascript(league, viewer):
    teams = finished_series(league=league, names=LEAGUE_NAMES)
    duel = start_series(mode="duel", names=("Lena", "Oleg"), league=league)
    client = logged_in(viewer)
    page = html(client.get("/history/?mode=duel"))
    assert f'href="/series/{duel.pk}/"' in page and f"/series/{teams.pk}/" not in page
    lena = Player.objects.get(name="Lena")
    page = html(client.get(f"/history/?player={lena.pk}&status=finished"))
    assert f"/series/{teams.pk}/sheet/" in page and f"/series/{duel.pk}/sheet/" not in page
    assert 'method="get" action="/history/"' in page  # a plain form too


def test_an_htmx_request_with_a_bad_filter_is_told_why_in_the_results(league, viewer):
    response = logged_in(viewer).get("/history/?start=2025-05-02&end=2025-05-01", headers=HTMX)
    assert response.status_code == 422
    assert "To: The end date comes before the start date." in html(response)


def test_an_htmx_request_gets_only_the_results(league, viewer):
    finished_series(league=league, names=LEAGUE_NAMES)
    fragment = html(logged_in(viewer).get("/history/?status=finished", headers=HTMX))
    assert fragment.lstrip().startswith('<section id="results"')
    assert "<html" not in fragment


def test_older_and_newer_links_walk_the_whole_history(league, viewer):
    series = [start_series(league=league, names=LEAGUE_NAMES) for _ in range(25)]
    client = logged_in(viewer)
    first = html(client.get("/history/"))
    assert f'href="/series/{series[-1].pk}/"' in first
    assert f"?before={series[5].pk}" in first
    second = html(client.get(f"/history/?before={series[5].pk}"))
    assert f'href="/series/{series[0].pk}/"' in second
    assert f"?after={series[4].pk}" in second


# --- The score sheet ----------------------------------------------------------------------------


def test_the_sheet_is_for_whoever_may_see_the_series(league, viewer, outsider, quick_series):
    series = finished_series(league=league, names=LEAGUE_NAMES)
    assert logged_in(viewer).get(f"/series/{series.pk}/sheet/").status_code == 200
    assert logged_in(outsider).get(f"/series/{series.pk}/sheet/").status_code == 404
    url = f"/series/{quick_series.pk}/sheet/"
    assert (
        client_with_link(quick_series, quick_series.table.watch_token).get(url).status_code == 200
    )
    assert Client().get(url).status_code == 404
    assert Client().get("/series/98765/sheet/").status_code == 404


def test_the_sheet_shows_deals_chart_and_the_audit_trail(league, scorer, viewer):
    series = start_series(league=league, names=LEAGUE_NAMES)
    play_deals(series, [(60, 60), ((0, 120), (False, True)), (40, 80)])
    deals.deal_edit(series_id=series.pk, number=3, version=series.version,
                       points=(45, 75), tricks=None, user=scorer, via="account")  # fmt: skip
    play_deals(series, [(90, 30)])
    deals.deal_undo(series_id=series.pk, number=4, version=series.version,
                       via="score link")  # fmt: skip
    page = html(logged_in(viewer).get(f"/series/{series.pk}/sheet/"))
    assert '<svg class="chart"' in page and 'role="img"' in page
    assert page.count("<polyline") == 2
    assert '<table class="sheet-deals">' in page
    assert 'class="is-eggs"' in page
    assert 'class="tag naked"' in page
    assert "Deal 3 edited" in page and "by sergei" in page
    assert "Before:</span> Lena &amp; Nina 40 · Misha &amp; Pavel 80" in page
    assert "After:</span> Lena &amp; Nina 45 · Misha &amp; Pavel 75" in page
    assert "Deal 4 removed" in page and "by score link" in page
    assert "Lena &amp; Nina 0 (no trick)" in page
    assert 'href="/static/css/sheet.css"' in page
    assert f'href="/series/{series.pk}/export.csv"' in page


def test_the_sheet_links_to_each_player(league, viewer):
    series = finished_series(league=league, names=LEAGUE_NAMES)
    page = html(logged_in(viewer).get(f"/series/{series.pk}/sheet/"))
    for seat in series.seats.all():
        assert f'href="/players/{seat.player_id}/"' in page


# --- The player page ----------------------------------------------------------------------------


def test_the_player_page_is_for_members_and_link_holders(league, viewer, outsider, quick_series):
    finished_series(league=league, names=LEAGUE_NAMES)
    lena = Player.objects.get(name="Lena")
    assert logged_in(viewer).get(f"/players/{lena.pk}/").status_code == 200
    assert logged_in(outsider).get(f"/players/{lena.pk}/").status_code == 404
    quick_player = quick_series.seats.first().player
    url = f"/players/{quick_player.pk}/"
    assert client_with_link(quick_series).get(url).status_code == 200
    assert Client().get(url).status_code == 404
    assert Client().get("/players/98765/").status_code == 404


def test_the_player_page_shows_the_record_and_the_chart(league, viewer):
    finished_series(league=league, names=LEAGUE_NAMES)
    finished_series(goat=1, league=league, names=LEAGUE_NAMES, eggs=True)
    lena = Player.objects.get(name="Lena")
    page = html(logged_in(viewer).get(f"/players/{lena.pk}/"))
    assert '<h1 class="player-heading">Lena</h1>' in page
    assert "Times the goat</dt><dd>1</dd>" in page
    assert "Narrow saves</dt><dd>6</dd>" in page  # six deals lost with exactly 31
    assert "Best partner" in page and "Nina" in page
    assert 'aria-labelledby="results-chart-title results-chart-desc"' in page
    assert f'href="/history/?player={lena.pk}"' in page


def test_the_best_partner_shows_from_the_first_series_together_with_how_many(league, viewer):
    finished_series(league=league, names=LEAGUE_NAMES)  # Lena & Nina lose
    finished_series(league=league, names=LEAGUE_NAMES)
    lena = Player.objects.get(name="Lena")
    page = html(logged_in(viewer).get(f"/players/{lena.pk}/"))
    partner = Player.objects.get(name="Nina")
    assert f'<a class="chip" href="/players/{partner.pk}/">Nina</a>' in page
    assert "2 series together, 0 won" in page
    assert "No partner yet" not in page


def test_without_a_team_game_the_page_says_why_there_is_no_partner(league, viewer):
    finished_series(league=league, names=("Lena", "Oleg"))  # two players: Lena the goat
    lena = Player.objects.get(name="Lena")
    page = html(logged_in(viewer).get(f"/players/{lena.pk}/"))
    assert "Best partner" in page and 'class="chip"' in page  # the toughest opponent only
    assert "No partner yet: partners sit side by side only in a game of two teams of two" in page
    oleg = Player.objects.get(name="Oleg")
    never_goat = html(logged_in(viewer).get(f"/players/{oleg.pk}/"))
    assert "Nobody yet: never the goat so far." in never_goat


def test_the_sheets_chart_draws_the_goat_red_and_the_winner_green(league, viewer):
    over = finished_series(goat=1, league=league, names=LEAGUE_NAMES)
    page = html(logged_in(viewer).get(f"/series/{over.pk}/sheet/"))
    assert 'class="line side-0 is-winner"' in page and 'class="line side-1 is-goat"' in page
    assert 'class="swatch side-1 is-goat"' in page
    on = long_series(3, league=league)
    playing = html(logged_in(viewer).get(f"/series/{on.pk}/sheet/"))
    assert 'class="line side-0"' in playing and 'class="line side-1"' in playing
    assert "is-goat" not in playing and "is-winner" not in playing


# --- Downloads ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_downloads_hold_only_visible_series_and_never_links(
    league, viewer, outsider, quick_series, exports_storage
):
    series = finished_series(league=league, names=LEAGUE_NAMES)
    response = export_downloaded(logged_in(viewer), "/history/export.json")
    assert response["Content-Disposition"] == 'attachment; filename="kozel-history.json"'
    text = streamed(response)
    data = json.loads(text)
    assert [item["id"] for item in data["series"]] == [series.pk]
    assert data["secrets"] is False and series.table.score_token not in text
    nothing = export_downloaded(logged_in(outsider), "/history/export.json")
    assert json.loads(streamed(nothing))["series"] == []
    rows = streamed(export_downloaded(logged_in(viewer), "/history/export.csv")).splitlines()
    assert len(rows) == 3 and rows[1].startswith(f"{series.pk},")
    assert rows[2] == "# end of export: 1 series"


def test_a_series_downloads_as_csv_and_json(league, viewer, outsider):
    series = finished_series(league=league, names=LEAGUE_NAMES)
    client = logged_in(viewer)
    csv_response = client.get(f"/series/{series.pk}/export.csv")
    assert csv_response["Content-Type"] == "text/csv; charset=utf-8"
    assert len(streamed(csv_response).splitlines()) == 1 + series.deal_count
    data = json.loads(streamed(client.get(f"/series/{series.pk}/export.json")))
    assert [item["id"] for item in data["series"]] == [series.pk]
    assert logged_in(outsider).get(f"/series/{series.pk}/export.csv").status_code == 404
    assert logged_in(outsider).get(f"/series/{series.pk}/export.json").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_downloads_honour_the_filters_and_refuse_bad_ones(league, viewer, exports_storage):
    finished_series(league=league, names=LEAGUE_NAMES)
    duel = start_series(mode="duel", names=("Lena", "Oleg"), league=league)
    client = logged_in(viewer)
    data = json.loads(streamed(export_downloaded(client, "/history/export.json?mode=duel")))
    assert [item["id"] for item in data["series"]] == [duel.pk]
    assert client.get("/history/export.csv?start=never").status_code == 422
    assert client.post("/history/export.json?end=9999-12-31").status_code == 422


# --- A constant number of queries ----------------------------------------------------------------


def test_the_history_page_costs_the_same_queries_for_10_or_60_series(
    league, viewer, django_assert_max_num_queries
):
    for _ in range(10):
        start_series(league=league, names=LEAGUE_NAMES)
    client = logged_in(viewer)
    small = query_count(client, "/history/")
    filtered = query_count(client, f"/history/?league={league.pk}&mode=teams&status=playing")
    for _ in range(50):
        start_series(league=league, names=LEAGUE_NAMES)
    oldest = Series.objects.order_by("created_at", "pk")[5].pk
    with django_assert_max_num_queries(small):
        client.get("/history/")
    with django_assert_max_num_queries(small + 1):  # the cursor's date
        client.get(f"/history/?before={oldest}")
    with django_assert_max_num_queries(filtered):
        client.get(f"/history/?league={league.pk}&mode=teams&status=playing")


def test_the_sheet_costs_the_same_queries_for_5_or_60_deals(
    league, viewer, django_assert_max_num_queries
):
    client = logged_in(viewer)
    short = long_series(5, league=league)
    small = query_count(client, f"/series/{short.pk}/sheet/")
    longer = long_series(60, league=league)
    with django_assert_max_num_queries(small):
        response = client.get(f"/series/{longer.pk}/sheet/")
    assert "Deal 60 recorded" in html(response)


def test_the_player_page_costs_the_same_queries_for_2_or_30_series(
    league, viewer, django_assert_max_num_queries
):
    client = logged_in(viewer)
    for goat in (0, 1):
        finished_series(goat=goat, league=league, names=LEAGUE_NAMES)
    lena = Player.objects.get(name="Lena")
    small = query_count(client, f"/players/{lena.pk}/")
    for index in range(28):
        finished_series(goat=index % 2, league=league, names=LEAGUE_NAMES)
    with django_assert_max_num_queries(small):
        response = client.get(f"/players/{lena.pk}/")
    assert "Played</dt><dd>30</dd>" in html(response)


def test_the_series_download_costs_the_same_queries_for_5_or_60_deals(league, viewer):
    client = logged_in(viewer)
    short = long_series(5, league=league)
    small = query_count(client, f"/series/{short.pk}/export.json")
    longer = long_series(60, league=league)
    assert query_count(client, f"/series/{longer.pk}/export.json") <= small
