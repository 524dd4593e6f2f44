"""The organiser's hold on the evening's links: renew or revoke one table's link, or every
table's, or end every link of the evening (the tables' and the public one). Whoever holds an
old link is locked out, also from the game they scored with it; bad input is said in words and
changes nothing."""

from __future__ import annotations

from django.test import Client

from scoring.models import EventTable, Table
from tests.helpers import logged_in, make_event, record

HTMX = {"HX-Request": "true"}


def _table_phone(link: Table) -> Client:
    """A phone that opened the table's link and became the table's."""
    phone = Client()
    assert phone.post(link.get_absolute_url()).status_code == 302
    assert phone.get(link.get_absolute_url()).status_code == 200
    return phone


def _post(client: Client, event, data: dict):
    return client.post(f"{event.get_absolute_url()}links/", data, follow=True)


def _tokens(event) -> dict[int, str | None]:
    return dict(event.tables.values_list("number", "score_token"))


def test_a_renewed_table_link_locks_out_the_old_one_and_the_new_one_works(league, owner):
    event = make_event(league, 8)
    old = event.tables.get(number=1)
    held = _table_phone(old)
    game = EventTable.objects.get(round__event=event, number=1).series
    others = {n: t for n, t in _tokens(event).items() if n != 1}

    answer = _post(logged_in(owner), event, {"change": "renew", "table": "1"})
    assert "New link: print the table" in answer.content.decode()

    new = event.tables.get(number=1)
    assert new.score_token != old.score_token
    assert {n: t for n, t in _tokens(event).items() if n != 1} == others  # the rest stay
    assert held.get(f"/tables/{old.score_token}/").status_code == 410  # told what happened
    # Its board's poll stops, saying whose doing it was and what to do.
    gone = held.get(f"/tables/{old.score_token}/live/", headers=HTMX)
    assert gone.status_code == 286
    assert "the organiser renewed or revoked it" in gone.content.decode()
    # The old link's phone scores the game no more, through any URL.
    refused = held.post(
        f"/series/{game.pk}/deals/", {"number": 1, "points_0": "70", "points_1": ""}, headers=HTMX
    )
    assert refused.status_code == 410 and game.deals.count() == 0
    # The new link's phone scores it.
    phone = _table_phone(new)
    page = phone.get(new.get_absolute_url()).content.decode()
    assert "Record deal" in page


def test_a_revoked_table_link_works_for_nobody_until_it_is_renewed(league, owner):
    event = make_event(league, 8)
    link = event.tables.get(number=2)
    token = link.score_token
    _table_phone(link)

    answer = _post(logged_in(owner), event, {"change": "revoke", "table": "2"})
    assert "The link no longer works" in answer.content.decode()
    assert _tokens(event)[2] is None and _tokens(event)[1] is not None
    assert Client().get(f"/tables/{token}/").status_code == 404

    _post(logged_in(owner), event, {"change": "renew", "table": "2"})
    renewed = event.tables.get(number=2)
    assert renewed.score_token not in (None, token)
    _table_phone(renewed)


def test_ending_every_link_ends_the_tables_and_the_public_one(league, owner):
    event = make_event(league, 8)
    tokens = _tokens(event)
    share = event.share_token

    answer = _post(logged_in(owner), event, {"change": "end"})
    assert "Every link of this evening has ended" in answer.content.decode()
    event.refresh_from_db()
    assert event.share_token is None
    assert set(_tokens(event).values()) == {None}
    for token in tokens.values():
        assert Client().get(f"/tables/{token}/").status_code == 404
    assert Client().get(f"/public/events/{share}/").status_code == 404
    # The organiser's own screen stays.
    assert logged_in(owner).get(event.get_absolute_url()).status_code == 200


def test_bad_input_is_said_in_words_and_changes_no_link(league, owner):
    event = make_event(league, 8)
    before = _tokens(event)
    for data, words in (
        ({}, "Choose what to do with the links."),
        ({"change": "shred"}, "Choose what to do with the links."),
        ({"change": "renew", "table": "99"}, "There is no such table this evening."),
        ({"change": "revoke", "table": "x"}, "There is no such table this evening."),
    ):
        answer = _post(logged_in(owner), event, data)
        assert answer.status_code == 200
        assert words in answer.content.decode(), data
    assert _tokens(event) == before


def test_only_an_organiser_changes_the_links(league, owner, viewer):
    event = make_event(league, 8)
    before = _tokens(event)
    answer = logged_in(viewer).post(f"{event.get_absolute_url()}links/", {"change": "end"})
    assert answer.status_code in (403, 404)
    link = event.tables.get(number=1)
    phone = _table_phone(link)
    game = EventTable.objects.get(round__event=event, number=1).series
    record(game, (70, 50))
    assert phone.post(f"{event.get_absolute_url()}links/", {"change": "end"}).status_code in (
        302,
        403,
        404,
    )
    assert _tokens(event) == before
