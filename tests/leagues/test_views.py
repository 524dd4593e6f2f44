"""League pages: list, new league, series, members, invites, players, settings, public
standings, moving a quick game; and constant queries per page (the standings' own pages:
tests/standings/test_views.py)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.leagues import services as league_services
from scoring.models import League, Membership, Player, Role, Series
from tests.helpers import (
    client_with_link,
    creator_client,
    finished,
    grow,
    html,
    league_snapshot,
    logged_in,
    query_count,
    start_series,
)

HTMX = {"HX-Request": "true"}


# The league list and a new league -------------------------------------------------------------


def test_the_league_list_shows_the_users_leagues_with_their_role(league, viewer, outsider):
    league_services.league_create(name="Elsewhere", user=outsider)
    page = html(logged_in(viewer).get("/leagues/"))
    assert "Kitchen table" in page and "Viewer" in page
    assert "Elsewhere" not in page


def test_the_league_list_wants_a_login(db):
    response = Client().get("/leagues/")
    assert response["Location"] == "/accounts/login/?next=/leagues/"


def test_creating_a_league(owner):
    client = logged_in(owner)
    assert client.get("/leagues/new/").status_code == 200
    response = client.post("/leagues/new/", {"name": "Dacha", "preset": "tie-penalty"})
    league = League.objects.get(name="Dacha")
    assert response["Location"] == f"/leagues/{league.pk}/"
    assert league.rules["eggs"] == "both-two"
    assert Membership.objects.get(league=league).role == Role.OWNER


def test_a_league_can_start_with_custom_rules(owner):
    data = {
        "name": "Long nights",
        "preset": "custom",
        "target": "21",
        "save_line": "31",
        "save_line_three": "21",
        "naked": "points",
        "eggs": "stacking",
        "ending": "first-out",
    }
    logged_in(owner).post("/leagues/new/", data)
    rules = League.objects.get(name="Long nights").rules
    assert (rules["target"], rules["naked"], rules["eggs"]) == (21, "points", "stacking")


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "preset": "classic"},
        {"name": "   ", "preset": "classic"},
        {"name": "X", "preset": "nonsense"},
        {"name": "X", "preset": "custom", "target": "0"},
        {"name": "X" * 81, "preset": "classic"},
    ],
)
def test_a_refused_new_league_says_why_and_creates_nothing(owner, data):
    response = logged_in(owner).post("/leagues/new/", data)
    assert response.status_code == 422
    assert 'class="error"' in html(response)
    assert not League.objects.exists()


def test_a_new_league_can_send_the_user_back_where_they_were(owner):
    response = logged_in(owner).post(
        "/leagues/new/", {"name": "Dacha", "preset": "classic", "next": "/series/1/move/"}
    )
    assert response["Location"] == "/series/1/move/"


def test_a_next_that_is_not_a_path_sends_the_new_league_to_its_page(owner):
    response = logged_in(owner).post(
        "/leagues/new/", {"name": "Dacha", "preset": "classic", "next": "²"}
    )
    assert response["Location"] == League.objects.get(name="Dacha").get_absolute_url()


# A league's series page ----------------------------------------------------------------------


def test_the_league_page_lists_its_series_and_links_to_a_new_one_for_scorers(league, scorer):
    finished(league)
    page = html(logged_in(scorer).get(f"/leagues/{league.pk}/"))
    assert "Anna" in page and "finished" in page
    assert f'href="/new/?league={league.pk}"' in page


def test_a_viewer_is_not_offered_a_new_series(league, viewer):
    page = html(logged_in(viewer).get(f"/leagues/{league.pk}/"))
    assert "/new/?league=" not in page
    assert "/settings/" not in page


def test_the_owner_sees_the_settings_tab(league, owner):
    assert f"/leagues/{league.pk}/settings/" in html(logged_in(owner).get(f"/leagues/{league.pk}/"))


def test_the_series_list_pages_with_htmx_getting_only_the_list(league, owner):
    for _ in range(12):
        start_series(league=league)
    client = logged_in(owner)
    assert "Older" in html(client.get(f"/leagues/{league.pk}/"))
    fragment = html(client.get(f"/leagues/{league.pk}/?page=2", headers=HTMX))
    assert fragment.lstrip().startswith('<div id="series-list">')
    assert "Page 2 of 2" in fragment
    assert client.get(f"/leagues/{league.pk}/?page=junk").status_code == 200


@pytest.mark.parametrize("page", ["", "standings/", "head-to-head/", "members/", "players/"])
def test_outsiders_get_404_on_every_league_page(league, outsider, page):
    assert logged_in(outsider).get(f"/leagues/{league.pk}/{page}").status_code == 404


def test_a_league_that_does_not_exist_is_404(owner):
    assert logged_in(owner).get("/leagues/999/").status_code == 404


def test_only_the_owner_opens_the_settings(league, scorer, viewer):
    assert logged_in(scorer).get(f"/leagues/{league.pk}/settings/").status_code == 403
    assert logged_in(viewer).get(f"/leagues/{league.pk}/settings/").status_code == 403


# Members, invites, ownership -----------------------------------------------------------------


def test_the_members_page_lists_members_and_only_the_owner_can_manage(league, owner, viewer):
    as_viewer = html(logged_in(viewer).get(f"/leagues/{league.pk}/members/"))
    assert "olga" in as_viewer and "sergei" in as_viewer
    assert "/role/" not in as_viewer and "Invite by link" not in as_viewer
    as_owner = html(logged_in(owner).get(f"/leagues/{league.pk}/members/"))
    assert "/role/" in as_owner and "Invite by link" in as_owner


def test_the_owner_makes_an_invite_link_and_someone_joins_through_it(league, owner, outsider):
    logged_in(owner).post(f"/leagues/{league.pk}/invite/", {"role": "viewer"})
    league.refresh_from_db()
    invite = f"/invite/{league.invite_token}/"
    assert invite in html(logged_in(owner).get(f"/leagues/{league.pk}/members/"))
    newcomer = logged_in(outsider)
    assert "You will join as: Viewer." in html(newcomer.get(invite))
    response = newcomer.post(invite)
    assert response["Location"] == f"/leagues/{league.pk}/"
    assert Membership.objects.get(league=league, user=outsider).role == Role.VIEWER


def test_the_first_invite_link_says_it_is_ready_and_a_new_one_that_the_old_one_is_off(
    league, owner
):
    client = logged_in(owner)
    first = html(client.post(f"/leagues/{league.pk}/invite/", {"role": "scorer"}, follow=True))
    assert "The invite link is ready: send it to whoever should join." in first
    assert "old one" not in first
    again = html(client.post(f"/leagues/{league.pk}/invite/", {"role": "scorer"}, follow=True))
    assert "A new invite link is ready; the old one no longer works." in again
    client.post(f"/leagues/{league.pk}/invite/revoke/")
    after_revoke = client.post(f"/leagues/{league.pk}/invite/", {"role": "viewer"}, follow=True)
    assert "old one" not in html(after_revoke)


def test_an_anonymous_visitor_with_an_invite_is_asked_to_sign_up_or_log_in(league):
    league = league_services.invite_renew(league=league)
    invite = f"/invite/{league.invite_token}/"
    page = html(Client().get(invite))
    assert f'href="/accounts/signup/?next={invite}"' in page
    response = Client().post(invite)
    assert response["Location"].startswith("/accounts/login/")


def test_a_revoked_invite_link_is_404(league, owner, outsider):
    token = league_services.invite_renew(league=league).invite_token
    logged_in(owner).post(f"/leagues/{league.pk}/invite/revoke/")
    assert logged_in(outsider).get(f"/invite/{token}/").status_code == 404
    assert logged_in(outsider).post(f"/invite/{token}/").status_code == 404
    assert not Membership.objects.filter(user=outsider).exists()


def test_a_member_following_the_invite_again_is_told_so(league, scorer):
    league = league_services.invite_renew(league=league, role=Role.VIEWER)
    assert "already a member" in html(logged_in(scorer).get(f"/invite/{league.invite_token}/"))


def test_the_owner_cannot_demote_themselves_as_the_last_owner(league, owner):
    mine = Membership.objects.get(league=league, user=owner)
    before = league_snapshot(league)
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/members/{mine.pk}/role/", {"role": "viewer"}
    )
    assert response.status_code == 422
    assert "make someone else owner first" in html(response)
    assert league_snapshot(league) == before


def test_a_bad_role_is_422(league, owner, viewer):
    theirs = Membership.objects.get(league=league, user=viewer)
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/members/{theirs.pk}/role/", {"role": "king"}
    )
    assert response.status_code == 422


def test_a_membership_of_another_league_is_refused(league, owner, outsider):
    other = league_services.league_create(name="Other", user=outsider)
    theirs = Membership.objects.get(league=other, user=outsider)
    before = league_snapshot(other)
    response = logged_in(owner).post(f"/leagues/{league.pk}/members/{theirs.pk}/remove/")
    assert response.status_code == 422
    assert league_snapshot(other) == before


def test_an_owner_who_removes_themselves_lands_on_the_league_list(league, owner, scorer):
    Membership.objects.filter(league=league, user=scorer).update(role=Role.OWNER)
    mine = Membership.objects.get(league=league, user=owner)
    response = logged_in(owner).post(f"/leagues/{league.pk}/members/{mine.pk}/remove/")
    assert response["Location"] == "/leagues/"


def test_transferring_ownership_from_the_members_page(league, owner, viewer):
    theirs = Membership.objects.get(league=league, user=viewer)
    response = logged_in(owner).post(f"/leagues/{league.pk}/transfer/", {"membership": theirs.pk})
    assert response.status_code == 302
    assert Membership.objects.get(league=league, user=viewer).role == Role.OWNER
    assert Membership.objects.get(league=league, user=owner).role == Role.SCORER


def test_a_transfer_to_nobody_in_particular_is_422(league, owner):
    response = logged_in(owner).post(f"/leagues/{league.pk}/transfer/", {"membership": "x"})
    assert response.status_code == 422


def test_the_last_owner_leaving_is_told_to_transfer_first(league, owner):
    response = logged_in(owner).post(f"/leagues/{league.pk}/leave/")
    assert response.status_code == 422
    assert "Transfer ownership" in html(response)


# Players -----------------------------------------------------------------------------------


def test_the_owner_links_a_player_to_a_members_account(league, owner, scorer):
    player = Player.objects.create(name="Seryozha", league=league)
    client = logged_in(owner)
    assert f'id="account-{player.pk}"' in html(client.get(f"/leagues/{league.pk}/players/"))
    client.post(f"/leagues/{league.pk}/players/{player.pk}/link/", {"user": scorer.pk})
    player.refresh_from_db()
    assert player.user == scorer
    viewer_page = html(logged_in(scorer).get(f"/leagues/{league.pk}/players/"))
    assert "sergei" in viewer_page and f'id="account-{player.pk}"' not in viewer_page


@pytest.mark.parametrize("user", ["x", "999999"])
def test_linking_a_player_to_someone_outside_is_422(league, owner, user):
    player = Player.objects.create(name="Seryozha", league=league)
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/players/{player.pk}/link/", {"user": user}
    )
    assert response.status_code == 422
    player.refresh_from_db()
    assert player.user is None


def test_linking_a_player_of_another_league_is_422(league, owner, outsider):
    other = league_services.league_create(name="Other", user=outsider)
    stranger = Player.objects.create(name="Stranger", league=other)
    response = logged_in(owner).post(
        f"/leagues/{league.pk}/players/{stranger.pk}/link/", {"user": ""}
    )
    assert response.status_code == 422


# Settings and public standings --------------------------------------------------------------


def test_the_owner_changes_the_name_and_the_house_rules(league, owner):
    client = logged_in(owner)
    assert 'value="Kitchen table"' in html(client.get(f"/leagues/{league.pk}/settings/"))
    response = client.post(
        f"/leagues/{league.pk}/settings/", {"name": "Big kitchen", "preset": "eggs-stacking"}
    )
    assert response.status_code == 302
    league.refresh_from_db()
    assert (league.name, league.rules["eggs"]) == ("Big kitchen", "stacking")
    new_game = html(client.get(f"/new/?league={league.pk}"))
    assert re.search(r'value="eggs-stacking"[^>]*checked', new_game)


def test_bad_settings_change_nothing(league, owner):
    before = league_snapshot(league)
    response = logged_in(owner).post(f"/leagues/{league.pk}/settings/", {"name": ""})
    assert response.status_code == 422
    assert league_snapshot(league) == before


def test_public_standings_need_no_account_and_have_link_previews(league, owner):
    finished(league, loser=0)
    logged_in(owner).post(f"/leagues/{league.pk}/share/")
    league.refresh_from_db()
    response = Client().get(f"/public/{league.share_token}/")
    page = html(response)
    assert response.status_code == 200
    assert '<meta property="og:title" content="Kitchen table: Kozel standings">' in page
    description = re.search(r'<meta property="og:description" content="([^"]+)">', page)
    assert description and description.group(1).startswith("1 series played. Top: ")
    assert '<meta name="robots" content="noindex">' in page
    assert "Boris" in page
    assert "/members/" not in page and "head-to-head" not in page


def test_the_public_history_lists_the_series_without_links_to_them(league):
    finished(league)
    league = league_services.share_renew(league=league)
    page = html(Client().get(f"/public/{league.share_token}/history/"))
    assert "Anna" in page and "og:title" in page
    assert "/series/" not in page


def test_a_revoked_or_renewed_share_link_is_404(league, owner):
    old = league_services.share_renew(league=league).share_token
    client = logged_in(owner)
    client.post(f"/leagues/{league.pk}/share/")
    assert Client().get(f"/public/{old}/").status_code == 404
    league.refresh_from_db()
    assert Client().get(f"/public/{league.share_token}/").status_code == 200
    client.post(f"/leagues/{league.pk}/share/revoke/")
    assert Client().get(f"/public/{league.share_token}/").status_code == 404
    assert Client().get(f"/public/{league.share_token}/history/").status_code == 404


def test_sharing_the_standings_says_they_are_public_and_a_new_link_that_the_old_one_is_off(
    league, owner
):
    client = logged_in(owner)
    first = html(client.post(f"/leagues/{league.pk}/share/", follow=True))
    assert "The standings are public: anyone with the link sees them." in first
    assert "old one" not in first
    again = html(client.post(f"/leagues/{league.pk}/share/", follow=True))
    assert "The standings have a new public link; the old one is off." in again


def test_a_made_up_share_link_is_404(db):
    assert Client().get("/public/guess/").status_code == 404


# Moving a quick game into a league ---------------------------------------------------------


def test_the_creator_moves_the_game_after_logging_in(league, scorer):
    quick = start_series()
    client = creator_client(quick)
    client.force_login(scorer)
    page = html(client.get(f"/series/{quick.pk}/move/"))
    assert "Kitchen table" in page
    response = client.post(f"/series/{quick.pk}/move/", {"league": league.pk})
    assert response["Location"] == f"/series/{quick.pk}/"
    quick.refresh_from_db()
    assert quick.league == league
    assert client.get(f"/series/{quick.pk}/").status_code == 200  # as a member now


def test_after_the_move_the_quick_games_old_links_stop_working(league, owner):
    quick = start_series()
    old_score, old_watch = quick.table.score_token, quick.table.watch_token
    creator = creator_client(quick)
    scorer_phone = client_with_link(quick)
    watcher = client_with_link(quick, old_watch)
    creator.force_login(owner)
    assert creator.post(f"/series/{quick.pk}/move/", {"league": league.pk}).status_code == 302
    for phone, token in ((scorer_phone, old_score), (watcher, old_watch)):
        assert phone.get(f"/series/{quick.pk}/").status_code == 410  # told what happened
        live = phone.get(f"/tables/{token}/live/?version=0", headers={"HX-Request": "true"})
        assert live.status_code == 286 and "This link no longer works" in html(live)
    for token in (old_score, old_watch):
        assert Client().get(f"/tables/{token}/").status_code == 404


def test_moving_asks_an_anonymous_holder_to_log_in(quick_series):
    response = client_with_link(quick_series).get(f"/series/{quick_series.pk}/move/")
    assert response["Location"].startswith("/accounts/login/?next=")


def test_a_watcher_cannot_move_the_game(quick_series, scorer, league):
    client = client_with_link(quick_series, quick_series.table.watch_token)
    client.force_login(scorer)
    assert client.get(f"/series/{quick_series.pk}/move/").status_code == 403
    assert client.post(f"/series/{quick_series.pk}/move/", {"league": league.pk}).status_code == 403
    assert Series.objects.get(pk=quick_series.pk).league is None


def test_a_score_link_holder_cannot_move_the_game(quick_series, scorer, league):
    client = client_with_link(quick_series)
    client.force_login(scorer)
    assert "/move/" not in html(client.get(f"/series/{quick_series.pk}/"))
    assert client.get(f"/series/{quick_series.pk}/move/").status_code == 403
    assert client.post(f"/series/{quick_series.pk}/move/", {"league": league.pk}).status_code == 403
    assert Series.objects.get(pk=quick_series.pk).league is None


def test_someone_without_the_link_gets_404(quick_series, scorer):
    assert logged_in(scorer).get(f"/series/{quick_series.pk}/move/").status_code == 404


def test_only_leagues_where_the_user_scores_are_offered(quick_series, league, viewer):
    client = creator_client(quick_series)
    client.force_login(viewer)
    page = html(client.get(f"/series/{quick_series.pk}/move/"))
    assert "You score in no league yet" in page
    response = client.post(f"/series/{quick_series.pk}/move/", {"league": league.pk})
    assert response.status_code == 422
    assert Series.objects.get(pk=quick_series.pk).league is None


# Constant queries, whatever the league's size ----------------------------------------------


PAGES = [
    "/leagues/{pk}/",
    "/leagues/{pk}/standings/",
    "/leagues/{pk}/standings/?date_from=2000-01-01&date_to=2099-12-31&rules=classic",
    "/leagues/{pk}/head-to-head/?first={a}&second={b}",
    "/leagues/{pk}/members/",
    "/leagues/{pk}/players/",
    "/public/{token}/",
    "/public/{token}/history/",
    "/leagues/",
]


@pytest.mark.parametrize("page", PAGES)
def test_a_league_page_costs_the_same_queries_at_two_sizes(
    league, owner, page, django_assert_max_num_queries
):
    league = league_services.share_renew(league=league)
    finished(league)
    anna, boris = Player.objects.filter(league=league).order_by("pk")[:2]
    url = page.format(pk=league.pk, token=league.share_token, a=anna.pk, b=boris.pk)
    client = logged_in(owner)
    client.get(url)  # the standings' snapshot is stored
    small = query_count(client, url)
    grow(league, 12)
    client.get(url)
    with django_assert_max_num_queries(small):
        assert client.get(url).status_code == 200


@pytest.mark.parametrize("sort", ["name", "rating"])
def test_sorted_standings_cost_the_same_queries_at_two_sizes(
    league, viewer, sort, django_assert_max_num_queries
):
    grow(league, 6)  # more players than the table shows at first
    client = logged_in(viewer)
    url = f"/leagues/{league.pk}/standings/?sort={sort}"
    client.get(url)
    small = query_count(client, url)
    grow(league, 12, start=6)
    client.get(url)
    with django_assert_max_num_queries(small):
        assert client.get(url).status_code == 200


def test_the_standings_after_a_series_ended_only_read(league, owner):
    """The deal that ended the series folded it into the running totals: the league's pages
    that show them write nothing and lock nothing."""
    league = league_services.share_renew(league=league)
    finished(league)
    client = logged_in(owner)
    client.get(f"/leagues/{league.pk}/standings/")
    finished(league, loser=1)
    anna, boris = Player.objects.filter(league=league).order_by("pk")[:2]
    for url in (
        f"/leagues/{league.pk}/standings/",
        f"/leagues/{league.pk}/standings/?rules=classic&date_from=2000-01-01",
        f"/public/{league.share_token}/",
        f"/leagues/{league.pk}/head-to-head/?first={anna.pk}&second={boris.pk}",
    ):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        writes = [q["sql"] for q in queries if WRITES.search(q["sql"])]
        assert writes == [], url
    assert "2 finished series" in html(client.get(f"/leagues/{league.pk}/standings/"))


#: SQL that changes or locks rows (the session's own rows are the session middleware's).
WRITES = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b|\bFOR UPDATE\b", re.IGNORECASE)


def described_by_missing(page: str) -> set[str]:
    """Ids that aria-describedby points at but the page does not have."""
    wanted = {i for ids in re.findall(r'aria-describedby="([^"]+)"', page) for i in ids.split()}
    return {i for i in wanted if f'id="{i}"' not in page}


def test_a_refused_choice_points_at_its_message(league, viewer):
    finished(league, loser=0)
    anna = Player.objects.get(league=league, name="Anna")
    client = logged_in(viewer)
    pages = [
        client.get(f"/leagues/{league.pk}/head-to-head/?first={anna.pk}&second={anna.pk}"),
        client.get(f"/leagues/{league.pk}/standings/?date_from=2025-02-01&date_to=2025-01-01"),
    ]
    for response in pages:
        page = html(response)
        assert response.status_code == 422
        assert 'aria-invalid="true"' in page
        assert "aria-describedby" in page and not described_by_missing(page)
        assert "maxlength" not in re.findall(r"<select[^>]*>", page)[-1]
