"""The standings a club frames on its own site and the league's JSON feed: only the embed may
be framed, it sets no cookie and has no form; the feed is versioned, has an ETag (304 when
unchanged) and a rate limit; revoking or renewing the public link ends both."""

from __future__ import annotations

import json

import pytest

from scoring.leagues import services as league_services
from tests.helpers import finished, html, logged_in


@pytest.fixture
def shared(league):
    finished(league, names=("Anna", "Vera", "Boris", "Gleb"), loser=1)
    return league_services.share_renew(league=league)


def test_the_embed_may_be_framed_by_any_site_and_sets_no_cookie(shared, owner):
    client = logged_in(owner)  # even a member's browser, with its session
    response = client.get(f"/embed/{shared.share_token}/")
    assert response.status_code == 200
    assert "X-Frame-Options" not in response
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert not response.cookies
    page = html(response)
    assert "<form" not in page and "csrf" not in page.lower()
    assert "Anna" in page and "Vera" in page


def test_every_other_page_still_refuses_to_be_framed(shared):
    response = logged_in(None).get(f"/public/{shared.share_token}/")
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_the_embed_speaks_the_language_it_is_asked_for(shared):
    page = html(logged_in(None).get(f"/embed/{shared.share_token}/?lang=ru"))
    assert 'lang="ru"' in page


def test_the_feed_is_versioned_json_with_the_standings_and_recent_results(shared):
    response = logged_in(None).get(f"/public/{shared.share_token}/feed.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    document = json.loads(response.content)
    assert document["version"] == 1
    assert document["league"] == {"name": shared.name}
    assert document["series"] == 1
    assert {row["player"] for row in document["standings"]} == {"Anna", "Vera", "Boris", "Gleb"}
    recent = document["recent"][0]
    assert recent["ending"] == "goat"
    goats = [side for side in recent["sides"] if side["goat"]]
    assert goats[0]["players"] == ["Vera", "Gleb"]


def test_an_unchanged_feed_answers_304_to_its_etag_and_a_new_result_changes_it(shared):
    client = logged_in(None)
    url = f"/public/{shared.share_token}/feed.json"
    etag = client.get(url)["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and not again.content
    finished(shared, names=("Anna", "Vera", "Boris", "Gleb"), loser=0)
    fresh = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200 and fresh["ETag"] != etag


def test_the_feed_is_limited_per_network_and_minute(shared, settings):
    settings.FEED_REQUESTS_PER_MINUTE = 3
    client = logged_in(None)
    url = f"/public/{shared.share_token}/feed.json"
    answers = [client.get(url).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    other = client.get(url, REMOTE_ADDR="198.51.100.7")
    assert other.status_code == 200  # another network has its own count


@pytest.mark.parametrize("change", ["revoke", "renew"])
def test_revoking_or_renewing_the_share_link_ends_the_embed_and_the_feed(shared, change):
    token = shared.share_token
    if change == "revoke":
        league_services.share_revoke(league=shared)
    else:
        league_services.share_renew(league=shared)
    client = logged_in(None)
    assert client.get(f"/embed/{token}/").status_code == 404
    assert client.get(f"/public/{token}/feed.json").status_code == 404


def test_the_owner_finds_the_iframe_snippet_beside_the_public_link(shared, owner):
    page = html(logged_in(owner).get(f"/leagues/{shared.pk}/settings/"))
    assert f"/embed/{shared.share_token}/" in page
    assert "&lt;iframe" in page
    assert f"/public/{shared.share_token}/feed.json" in page
