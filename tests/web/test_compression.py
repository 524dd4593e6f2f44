"""Pages gzipped, but never where BREACH could read a secret out of their length
(``scoring.web.middleware``): a page reached through a secret link, or that shows one, is
compressed only when nothing of the request is reflected in it; a password reset's never."""

from __future__ import annotations

import gzip

from django.test import Client

from scoring.leagues import services as league_services
from tests.helpers import (
    client_with_link,
    creator_client,
    logged_in,
    make_event,
    record,
    start_series,
)


def gzipped(client: Client, path: str, **headers) -> bool:
    response = client.get(path, headers={"Accept-Encoding": "gzip", **headers})
    assert response.status_code == 200, path
    if response.get("Content-Encoding") == "gzip":
        assert b"<" in gzip.decompress(response.content)
        return True
    return False


def test_pages_without_secrets_are_gzipped(db):
    series = record(start_series(), (70, 50))
    client = client_with_link(series)
    assert gzipped(client, "/")
    assert gzipped(client, f"/series/{series.pk}/")


def test_a_page_with_a_secret_link_is_gzipped_only_when_nothing_of_the_request_is_in_it(
    league, owner
):
    """BREACH needs an input the attacker chooses reflected beside the secret: a page that draws
    a share link is compressed (with Django's random padding) only without a query string."""
    series = record(start_series(), (70, 50))
    creator = creator_client(series)
    assert gzipped(creator, f"/series/{series.pk}/")  # the score and watch links, their QR
    assert not gzipped(creator, f"/series/{series.pk}/?guess=abc")  # a reflected input: never
    owner_client = logged_in(owner)
    league_services.invite_renew(league=league)
    league = league_services.share_renew(league=league)
    assert gzipped(owner_client, f"/leagues/{league.pk}/members/")  # the invite link
    assert not gzipped(owner_client, f"/leagues/{league.pk}/members/?next=%2Fabc")
    assert gzipped(owner_client, f"/leagues/{league.pk}/settings/")  # the public link
    assert gzipped(owner_client, f"/leagues/{league.pk}/standings/?season=2025")  # no secret


def test_a_page_reached_through_a_secret_link_is_gzipped_only_without_a_query_string(league):
    """Every phone's table page is reached through its link: compressed, as a page that draws
    one is, unless a query string could reflect an attacker's guess beside the token."""
    series = record(start_series(), (70, 50))
    league = league_services.share_renew(league=league)
    watcher = client_with_link(series, series.table.watch_token)
    assert gzipped(Client(), f"/public/{league.share_token}/")  # the token is in its URL
    assert not gzipped(Client(), f"/public/{league.share_token}/?sort=name")
    assert gzipped(watcher, f"/tables/{series.table.watch_token}/")
    assert not gzipped(watcher, f"/tables/{series.table.watch_token}/?guess=abc")
    table = make_event(league, 4).tables.get(number=1)
    phone = Client()
    phone.post(table.get_absolute_url())
    assert gzipped(phone, table.get_absolute_url())  # a club night's table link
    live = f"{table.get_absolute_url()}live/?version=0"
    assert not gzipped(phone, live, HTTP_HX_REQUEST="true")  # its poll's news: a query string


def test_a_password_resets_page_is_never_gzipped(db):
    response = Client().get(
        "/accounts/password/reset/MQ/set-password/", headers={"Accept-Encoding": "gzip"}
    )
    assert response.get("Content-Encoding") != "gzip"


def test_compressed_pages_are_padded_at_random_against_breach(db):
    """Django's GZipMiddleware writes up to 100 random bytes as the gzip member's file name
    (the FNAME flag in the header): a length no longer tells what the page holds."""
    series = record(start_series(), (70, 50))
    creator = creator_client(series)
    names = set()
    for _ in range(6):
        body = creator.get(f"/series/{series.pk}/", headers={"Accept-Encoding": "gzip"}).content
        assert body[:2] == b"\x1f\x8b" and body[3] & 0x08, "no random file name"
        names.add(body[10 : body.index(b"\0", 10)])
    assert len(names) > 1
