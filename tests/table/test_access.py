"""Who may do what with a game: watchers, strangers, the links, the creator, league roles."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from scoring.models import Deal, Series
from tests.helpers import (
    client_with_link,
    creator_client,
    db_snapshot,
    deal_data,
    html,
    logged_in,
    play,
    record,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CONFLICT_NOTICE = "Deal 1 was just recorded on another phone; your points are kept"


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


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
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    page = html(watcher.get(url(quick_series)))
    assert "Boris &amp; Gleb lost: +2." in page
    assert 'name="entry_key"' not in page and "/edit/" not in page and "Share this game" not in page
    assert f'data-live="/tables/{quick_series.table.watch_token}/live/"' in page
    before = db_snapshot()
    for address, data in scoring_posts(quick_series):
        assert watcher.post(address, data).status_code == 403, address
    assert watcher.get(url(quick_series, "deals/1/edit/")).status_code == 403
    assert db_snapshot() == before


def test_a_stranger_without_a_link_finds_nothing(quick_series, client):
    record(quick_series, (80, 40))
    before = db_snapshot()
    assert client.get(url(quick_series)).status_code == 404
    assert client.get(url(quick_series, "deals/1/edit/")).status_code == 404
    for address, data in scoring_posts(quick_series):
        assert client.post(address, data).status_code == 404, address
    assert client.get("/tables/not-a-token/").status_code == 404
    assert db_snapshot() == before


def test_revoking_the_scoring_link_locks_out_whoever_holds_it(quick_series):
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    response = creator.post(url(quick_series, "links/"), {"link": "score"})
    assert response.status_code == 302
    locked_out = friend.get(url(quick_series))
    assert locked_out.status_code == 410  # told what happened, not "no such page"
    assert "Whoever started this game renewed its link" in html(locked_out)
    assert friend.post(f"/tables/{Series.objects.get().table.score_token}/").status_code == 302
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


def test_a_renewed_link_shuts_its_holders_out_of_every_game_of_the_table(quick_series):
    """A quick game ends and is rematched at the same table; its creator renews both links: the
    phones that held them see neither game any more, and are told why."""
    creator = creator_client(quick_series)
    scorer = client_with_link(quick_series)
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    creator.post(url(quick_series, "rematch/"))
    rematch = Series.objects.get(rematch_of=quick_series)
    for link in ("score", "watch"):
        assert creator.post(url(rematch, "links/"), {"link": link}).status_code == 302
    for phone in (scorer, watcher):
        assert phone.get(url(quick_series)).status_code == 410
        assert phone.get(url(rematch)).status_code == 410
    data = deal_data(creator.get(url(rematch)), points_0="70")
    before = db_snapshot()
    assert scorer.post(url(rematch, "deals/"), data).status_code == 410
    assert db_snapshot() == before


def test_the_tables_link_shows_the_rematch_to_every_phone_that_holds_it(quick_series):
    scorer = client_with_link(quick_series)
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    creator_client(quick_series).post(url(quick_series, "rematch/"))
    rematch = Series.objects.get(rematch_of=quick_series)
    page = html(scorer.get(f"/tables/{quick_series.table.score_token}/"))
    assert f'data-series="{rematch.pk}"' in page and 'name="entry_key"' in page
    assert 'name="entry_key"' in html(scorer.get(url(rematch)))


def test_revoking_the_watching_link_locks_out_the_watchers_only(quick_series):
    creator = creator_client(quick_series)
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
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
    assert response["Location"] == f"/tables/{series.table.score_token}/"
    assert "Share this game" in html(client.get(url(series)))
    assert client.post(url(series, "links/"), {"link": "score"}).status_code == 302
    series.table.refresh_from_db()
    board = html(client.get(f"/tables/{series.table.score_token}/"))
    assert 'name="entry_key"' in board  # the new score link, held


def test_the_account_that_started_a_game_manages_it_from_another_phone(quick_series, owner):
    Series.objects.filter(pk=quick_series.pk).update(created_by=owner)
    phone = client_with_link(quick_series, quick_series.table.watch_token)
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
    token = getattr(quick_series.table, f"{kind}_token")
    client = Client()
    page = client.get(f"/tables/{token}/")
    assert page.status_code == 200
    text = html(page)
    assert "Anna · Boris · Vera · Gleb" in text
    assert f'<form method="post" action="/tables/{token}/">' in text
    assert "csrfmiddlewaretoken" in text
    assert client.get(url(quick_series)).status_code == 404  # the GET remembered nothing
    assert "tables" not in client.session
    response = client.post(f"/tables/{token}/")
    assert response["Location"] == f"/tables/{token}/"
    board = html(client.get(response["Location"]))
    assert ('name="entry_key"' in board) == (kind == "score")


def test_confirming_a_link_needs_the_csrf_token(quick_series):
    client = Client(enforce_csrf_checks=True)
    assert client.post(f"/tables/{quick_series.table.score_token}/").status_code == 403
    assert client.get(url(quick_series)).status_code == 404


def test_a_phone_holding_the_link_goes_straight_in(quick_series):
    scorer = client_with_link(quick_series)
    for token in (quick_series.table.score_token, quick_series.table.watch_token):
        assert f'data-series="{quick_series.pk}"' in html(scorer.get(f"/tables/{token}/"))
    watcher = client_with_link(quick_series, quick_series.table.watch_token)
    board = html(watcher.get(f"/tables/{quick_series.table.watch_token}/"))
    assert f'data-series="{quick_series.pk}"' in board
    asks = html(watcher.get(f"/tables/{quick_series.table.score_token}/"))  # asks first
    assert "Open the game to score" in asks and 'data-series="' not in asks


def test_opening_the_watching_link_keeps_a_scoring_link_this_phone_holds(quick_series):
    client = client_with_link(quick_series)
    client.post(f"/tables/{quick_series.table.watch_token}/")
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
