"""Phones in step and the flow at the table: every board polls, typed points survive a
conflict, an undo can be put back, links go to other phones (QR, Copy, Share), a renewed link
is explained, a quick game starts in one tap, and the goat moment sums up the evening."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from scoring import rules
from scoring.models import Deal, DealEvent, Player, Series
from scoring.table import deals
from scoring.table.scoreboard import build
from scoring.table.services import series_link_renew
from scoring.templatetags.sharing import qr_svg
from tests.helpers import (
    client_with_link,
    creator_client,
    db_snapshot,
    deal_data,
    html,
    logged_in,
    play_out,
    record,
    start_series,
    undo_data,
)

HTMX = {"HX-Request": "true"}


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


def redo_data(response) -> dict:
    """The POST of the "Put it back" button shown in ``response``."""
    form = re.search(
        r'action="/series/\d+/redo/".*?name="number" value="(\d+)".*?name="version" value="(\d+)"',
        html(response),
        re.DOTALL,
    )
    assert form, "the page offers nothing to put back"
    return {"number": form.group(1), "version": form.group(2)}


# Every open board polls --------------------------------------------------------------------


@pytest.mark.parametrize("holder", ["creator", "score link", "watch link"])
def test_every_open_scoreboard_asks_the_live_view_for_news(quick_series, holder):
    client = {
        "creator": lambda: creator_client(quick_series),
        "score link": lambda: client_with_link(quick_series),
        "watch link": lambda: client_with_link(quick_series, quick_series.watch_token),
    }[holder]()
    quick_series.refresh_from_db()
    page = html(client.get(url(quick_series)))
    assert f'data-version="{quick_series.version}"' in page
    assert f'data-live="/series/{quick_series.pk}/live/" data-every="2"' in page


def test_a_scoring_phone_polls_as_cheaply_as_a_watcher(quick_series, django_assert_max_num_queries):
    scorer = client_with_link(quick_series)
    quick_series.refresh_from_db()
    with django_assert_max_num_queries(3):
        response = scorer.get(
            url(quick_series, f"live/?version={quick_series.version}"), headers=HTMX
        )
    assert response.status_code == 204
    record(quick_series, (70, 50))
    fresh = scorer.get(url(quick_series, f"live/?version={quick_series.version - 1}"), headers=HTMX)
    assert fresh.status_code == 200
    assert 'name="entry_key"' in html(fresh)  # a scorer's board comes with its deal form
    assert 'data-number="2"' in html(fresh)
    assert "Deal 1 was just recorded on another phone; your points are kept" in html(fresh)


# Typed points survive a conflict -----------------------------------------------------------


def test_points_typed_for_a_deal_taken_meanwhile_stay_in_the_form_for_the_next_one(quick_series):
    first, second = client_with_link(quick_series), client_with_link(quick_series)
    stale = second.get(url(quick_series))
    first.post(url(quick_series, "deals/"), deal_data(first.get(url(quick_series)), points_0="70"))
    before = db_snapshot()
    typed = deal_data(stale, points_0="0", tricks_0="no", count_A="1")
    response = second.post(url(quick_series, "deals/"), typed, headers=HTMX)
    assert response.status_code == 409
    assert db_snapshot() == before
    page = html(response)
    assert (
        "Deal 1 was just recorded on another phone; your points are kept: check them and record "
        "them as deal 2." in page
    )
    assert 'name="number" value="2"' in page
    assert 'value="0" data-points' in page
    assert re.search(r'name="tricks_0" value="no"[^>]*checked', page)
    assert (
        'name="count_A" id="id_count_A" min="0" max="4" step="1" inputmode="numeric" value="1"'
        in page
    )
    # The kept points, sent again from the fresh form, record deal 2.
    again = second.post(
        url(quick_series, "deals/"), deal_data(response, points_0="0", tricks_0="no")
    )
    assert again.status_code == 302
    assert list(Deal.objects.values_list("number", "points_0")) == [(1, 70), (2, 0)]


# Undo says what it removed and can be put back ---------------------------------------------


def test_an_undone_deal_is_named_with_its_points_and_can_be_put_back(quick_series):
    record(quick_series, (80, 40))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    undone = client.post(
        url(quick_series, "undo/"), undo_data(client.get(url(quick_series))), headers=HTMX
    )
    assert "Deal 2 undone: Anna &amp; Vera 0, Boris &amp; Gleb 120." in html(undone)
    assert "Put deal 2 back" in html(undone)
    back = client.post(url(quick_series, "redo/"), redo_data(undone), headers=HTMX)
    assert back.status_code == 200
    assert 'id="undone"' not in html(back)  # put back: nothing undone to offer any more
    rows = list(Deal.objects.order_by("number").values_list("points_0", "points_1", "tricks_0"))
    assert rows == [(80, 40, True), (0, 120, False)]
    quick_series.refresh_from_db()
    assert quick_series.totals == [6, 2]  # naked again: the deal exactly as it was
    last = DealEvent.objects.order_by("pk").last()
    assert (last.action, last.number, last.entry_key) == ("recorded", 2, None)


def test_without_htmx_the_undo_page_offers_to_put_the_deal_back(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    response = client.post(url(quick_series, "undo/"), undo_data(client.get(url(quick_series))))
    assert response["Location"] == url(quick_series) + "?undone=1"
    page = client.get(response["Location"])
    assert client.post(url(quick_series, "redo/"), redo_data(page)).status_code == 302
    assert Deal.objects.count() == 1
    assert "Put deal" not in html(client.get(url(quick_series)))  # offered right after the undo


def test_a_deal_is_put_back_only_until_the_next_deal_is_recorded(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    undone = client.post(
        url(quick_series, "undo/"), undo_data(client.get(url(quick_series))), headers=HTMX
    )
    record(quick_series, (30, 90))  # another phone records the next deal meanwhile
    before = db_snapshot()
    response = client.post(url(quick_series, "redo/"), redo_data(undone), headers=HTMX)
    assert response.status_code == 409
    assert "the deal was not put back" in html(response)
    assert db_snapshot() == before
    assert "Put deal" not in html(client.get(url(quick_series, "?undone=1")))


def test_a_redo_twice_puts_the_deal_back_once(quick_series):
    record(quick_series, (80, 40))
    client = client_with_link(quick_series)
    undone = client.post(
        url(quick_series, "undo/"), undo_data(client.get(url(quick_series))), headers=HTMX
    )
    assert client.post(url(quick_series, "redo/"), redo_data(undone)).status_code == 302
    assert client.post(url(quick_series, "redo/"), redo_data(undone)).status_code == 409
    assert Deal.objects.count() == 1


def test_the_service_refuses_a_redo_when_nothing_was_undone(quick_series):
    record(quick_series, (80, 40))
    quick_series.refresh_from_db()
    with pytest.raises(deals.NothingToRedo):
        deals.deal_redo(series_id=quick_series.pk, number=2, version=quick_series.version)


@pytest.mark.parametrize(
    "data", [{}, {"number": "x", "version": "1"}, {"number": "0", "version": "1"}]
)
def test_a_malformed_redo_changes_nothing(quick_series, data):
    before = db_snapshot()
    response = client_with_link(quick_series).post(url(quick_series, "redo/"), data)
    assert response.status_code == 422
    assert db_snapshot() == before


def test_a_watcher_cannot_put_a_deal_back(quick_series):
    record(quick_series, (80, 40))
    scorer = client_with_link(quick_series)
    undone = scorer.post(
        url(quick_series, "undo/"), undo_data(scorer.get(url(quick_series))), headers=HTMX
    )
    watcher = client_with_link(quick_series, quick_series.watch_token)
    assert "Put deal" not in html(watcher.get(url(quick_series, "?undone=1")))
    assert watcher.post(url(quick_series, "redo/"), redo_data(undone)).status_code == 403
    assert Client().post(url(quick_series, "redo/"), redo_data(undone)).status_code == 404
    assert Deal.objects.count() == 0


# Links to other phones ---------------------------------------------------------------------


def test_the_creator_gets_each_game_link_with_copy_share_and_a_qr_code(quick_series):
    page = html(creator_client(quick_series).get(url(quick_series)))
    for name, field, token in (
        ("scoring", "score-link", quick_series.score_token),
        ("watching", "watch-link", quick_series.watch_token),
    ):
        assert f'value="http://testserver/join/{token}/"' in page
        assert f'data-copy="{field}"' in page and f'data-share="{field}"' in page
        assert f'<svg role="img" aria-label="QR code of the {name} link"' in page
    assert page.count("<path") >= 2 and "https://" not in page.split("<svg role")[1][:200]


def test_the_qr_code_holds_the_link_and_is_drawn_here():
    svg = qr_svg("http://testserver/join/abc/", "QR code")
    assert svg.startswith('<svg role="img" aria-label="QR code"')
    assert 'fill="#fff"' in svg and 'stroke="#000"' in svg  # dark on light in any theme
    assert "http" not in svg.split(">", 1)[1]  # no outside image or font, just paths
    assert "style=" not in svg  # the CSP forbids inline styles


def test_league_invite_and_public_links_come_with_copy_share_and_a_qr_code(league, owner):
    client = logged_in(owner)
    client.post(f"/leagues/{league.pk}/invite/", {"role": "viewer"})
    client.post(f"/leagues/{league.pk}/share/")
    members = html(client.get(f"/leagues/{league.pk}/members/"))
    assert (
        'aria-label="QR code of the invite link"' in members
        and 'data-copy="invite-link"' in members
    )
    settings_page = html(client.get(f"/leagues/{league.pk}/settings/"))
    assert 'aria-label="QR code of the public standings link"' in settings_page
    assert 'data-share="share-link"' in settings_page


def test_members_and_outsiders_see_no_invite_qr(league, viewer, outsider):
    assert "QR code of the invite link" not in html(
        logged_in(viewer).get(f"/leagues/{league.pk}/members/")
    )
    assert logged_in(outsider).get(f"/leagues/{league.pk}/members/").status_code == 404


def test_renewing_a_link_is_a_second_deliberate_tap_that_says_who_is_locked_out(quick_series):
    page = html(creator_client(quick_series).get(url(quick_series)))
    assert (
        "Phones that opened the old scoring link will no longer be able to score; "
        "you (the creator) keep access." in page
    )
    assert re.search(r"<details class=\"renew\">\s*<summary>New scoring link…</summary>", page)


# A renewed link is explained ---------------------------------------------------------------


def test_a_phone_whose_link_was_renewed_is_told_what_happened(quick_series):
    friend = client_with_link(quick_series)
    series_link_renew(series=quick_series, link="score")
    response = friend.get(url(quick_series))
    assert response.status_code == 410
    assert "Whoever started this game renewed its link" in html(response)
    assert "No such series" not in html(response)
    # Its board's own requests are sent to that page.
    posted = friend.post(
        url(quick_series, "deals/"), {"number": "1", "points_0": "70"}, headers=HTMX
    )
    assert posted["HX-Redirect"] == url(quick_series)
    assert Deal.objects.count() == 0


def test_an_unknown_link_says_it_may_have_been_renewed(db):
    response = Client().get("/join/no-such-token-at-all/")
    assert response.status_code == 404
    assert "This link may have been renewed by whoever started the game" in html(response)


def test_a_stranger_is_not_told_that_a_series_exists(quick_series):
    assert Client().get(url(quick_series)).status_code == 404


# Quick start -------------------------------------------------------------------------------


def test_a_quick_game_starts_in_one_tap_with_the_seats_for_names(db, client):
    assert 'action="/quick/"' in html(client.get("/"))
    response = client.post("/quick/")
    series = Series.objects.get()
    assert response["Location"] == url(series)
    assert series.mode == "teams" and series.ruleset == rules.PRESETS["classic"]
    names = [seat.player.name for seat in series.seats.order_by("position")]
    assert names == ["North", "East", "South", "West"]
    page = html(client.get(url(series)))
    assert "North &amp; South" in page and 'name="entry_key"' in page
    assert "Change the names" in page  # the creator names the players when the table is ready


def test_a_quick_game_is_counted_like_any_quick_game(db, client, settings):
    settings.QUICK_GAMES_PER_SESSION = 1
    assert client.post("/quick/").status_code == 302
    refused = client.post("/quick/")
    assert refused.status_code == 422
    assert "the most allowed" in html(refused)
    assert Series.objects.count() == 1
    assert client.get("/quick/").status_code == 405


def test_the_creator_names_the_players_later_and_other_games_keep_theirs(db, client):
    client.post("/quick/")
    first = Series.objects.get()
    record(first, (70, 50))
    client.post("/quick/")
    second = Series.objects.exclude(pk=first.pk).get()
    names = {"player_0": "Anna", "player_1": "Boris", "player_2": "Vera", "player_3": "East"}
    version = Series.objects.get(pk=first.pk).version
    assert client.post(url(first, "players/"), names)["Location"] == url(first)
    first.refresh_from_db()
    assert [s.player.name for s in first.seats.order_by("position")] == [
        "Anna",
        "Boris",
        "Vera",
        "East",
    ]
    assert first.version == version + 1  # other phones see the new names at their next poll
    assert first.totals == [0, 2] and first.deal_count == 1
    assert [s.player.name for s in second.seats.order_by("position")] == [
        "North",
        "East",
        "South",
        "West",
    ]
    assert "Anna &amp; Vera" in html(client.get(url(first)))


def test_swapping_two_players_seats_works(db, client):
    client.post("/quick/")
    series = Series.objects.get()
    names = {"player_0": "East", "player_1": "North", "player_2": "South", "player_3": "West"}
    assert client.post(url(series, "players/"), names).status_code == 302
    assert [s.player.name for s in series.seats.order_by("position")] == [
        "East",
        "North",
        "South",
        "West",
    ]
    assert Player.objects.count() == 4


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (
            {"player_0": "Anna", "player_1": "anna", "player_2": "B", "player_3": "C"},
            "already has a seat",
        ),
        ({"player_0": "Anna", "player_1": "", "player_2": "B", "player_3": "C"}, "Enter a name"),
    ],
)
def test_names_with_mistakes_are_shown_again_and_change_nothing(db, client, names, message):
    client.post("/quick/")
    series = Series.objects.get()
    before = db_snapshot()
    response = client.post(url(series, "players/"), names)
    assert response.status_code == 422 and message in html(response)
    assert db_snapshot() == before


def test_only_the_creator_changes_the_names(quick_series, league_series, owner):
    names = {"player_0": "A", "player_1": "B", "player_2": "C", "player_3": "D"}
    before = db_snapshot()
    assert (
        client_with_link(quick_series).post(url(quick_series, "players/"), names).status_code == 403
    )
    watcher = client_with_link(quick_series, quick_series.watch_token)
    assert watcher.post(url(quick_series, "players/"), names).status_code == 403
    assert Client().post(url(quick_series, "players/"), names).status_code == 404
    assert logged_in(owner).post(url(league_series, "players/"), names).status_code == 403
    assert db_snapshot() == before
    assert "Change the names" not in html(client_with_link(quick_series).get(url(quick_series)))


# The goat moment ---------------------------------------------------------------------------


def test_the_goat_screen_has_the_final_score_and_this_line_ups_goats_so_far(quick_series):
    play_out(quick_series, loser=0)
    client = creator_client(quick_series)
    page = html(client.get(url(quick_series)))
    assert '<p class="score-line">Anna &amp; Vera 12 : 0 Boris &amp; Gleb</p>' in page
    assert "Goats in this line-up" not in page  # one game: nothing to tally yet
    rematch = Series.objects.get(
        pk=int(client.post(url(quick_series, "rematch/"))["Location"].split("/")[2])
    )
    play_out(rematch, loser=1)
    second = Series.objects.get(
        pk=int(client.post(url(rematch, "rematch/"))["Location"].split("/")[2])
    )
    play_out(second, loser=0)
    page = html(client.get(url(second)))
    assert "Goats in this line-up's games: Anna &amp; Vera 2 : 1 Boris &amp; Gleb" in page


def test_a_team_is_never_out_only_the_goat(quick_series):
    play_out(quick_series, loser=0)
    board = build(quick_series, list(Deal.objects.filter(series=quick_series).order_by("number")))
    assert "out!" not in board.last.summary
    three = start_series(mode="three", names=("Ira", "Kolya", "Lida"))
    record(three, (0, 60, 60), (False, True, True))
    record(three, (0, 60, 60), (False, True, True))
    board = build(three, list(Deal.objects.filter(series=three).order_by("number")))
    assert "Ira: out!" in board.last.summary


def test_the_new_game_hint_about_north_and_south_is_for_team_games(client):
    page = html(client.get("/new/"))
    assert '<p class="hint" data-for-modes="teams">Partners sit opposite: North and South' in page
    assert '<p class="hint" data-for-modes="duel three" hidden>' in page
