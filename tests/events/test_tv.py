"""A TV's way to the big screen without an account (issue #38, item 3): /tv/ and the evening's
six-character code, typed with a remote; made and ended with the evening's public link; wrong
codes limited per network."""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.events import services
from scoring.models import TV_CODE_ALPHABET, TV_CODE_LENGTH, Event
from scoring.web import throttle
from tests.helpers import html, logged_in, make_event


@pytest.fixture
def event(league) -> Event:
    return make_event(league, 8)


def test_a_new_evening_has_a_code_a_remote_can_type(event):
    code = event.tv_code
    assert code is not None and len(code) == TV_CODE_LENGTH
    assert all(c in TV_CODE_ALPHABET for c in code)
    assert not set("01OIL") & set(TV_CODE_ALPHABET)  # nothing that reads as another


def test_the_code_opens_the_public_big_screen_without_a_login(event):
    tv = Client()
    assert tv.get("/tv/").status_code == 200
    response = tv.post("/tv/", {"code": event.tv_code})
    assert response.status_code == 302
    assert response["Location"] == f"/public/events/{event.share_token}/?present=1"
    board = tv.get(response["Location"])
    assert board.status_code == 200 and 'class="board-present' in html(board)


def test_the_code_is_read_as_a_remote_types_it(event):
    typed = " " + "-".join([event.tv_code[:3].lower(), event.tv_code[3:]]) + " "
    response = Client().post("/tv/", {"code": typed})
    assert response.status_code == 302


def test_a_wrong_code_says_so_and_is_counted(event):
    tv = Client()
    wrong = "".join(sorted(set(TV_CODE_ALPHABET) - set(event.tv_code)))[:TV_CODE_LENGTH]
    response = tv.post("/tv/", {"code": wrong})
    assert response.status_code == 422
    assert "No evening has this code" in html(response)
    assert throttle.count("tv-codes:address", "127.0.0.1") == 1
    # A code of the wrong shape is no guess at a real one: said, not counted.
    response = tv.post("/tv/", {"code": "hello world"})
    assert response.status_code == 422 and "6 letters and digits" in html(response)
    assert throttle.count("tv-codes:address", "127.0.0.1") == 1


def test_past_the_limit_not_even_the_right_code_is_tried(event, monkeypatch):
    monkeypatch.setattr(throttle, "TV_CODE_FAILURES_PER_NETWORK", 3)
    tv = Client()
    wrong = "".join(sorted(set(TV_CODE_ALPHABET) - set(event.tv_code)))[:TV_CODE_LENGTH]
    for _ in range(3):
        assert tv.post("/tv/", {"code": wrong}).status_code == 422
    response = tv.post("/tv/", {"code": event.tv_code})
    assert response.status_code == 429
    assert "3 wrong codes were typed from your network" in html(response)


def test_the_code_ends_with_the_public_link_and_comes_back_new(event):
    old = event.tv_code
    services.share_revoke(event=event)
    assert Event.objects.get(pk=event.pk).tv_code is None
    assert Client().post("/tv/", {"code": old}).status_code == 422
    event = services.share_renew(event=Event.objects.get(pk=event.pk))
    assert event.tv_code not in (None, old)
    assert Client().post("/tv/", {"code": event.tv_code}).status_code == 302


def test_ending_every_link_of_the_evening_ends_the_code(event):
    services.evening_links_revoke(event=event)
    assert Event.objects.get(pk=event.pk).tv_code is None


def test_the_organiser_sees_the_code_and_renews_it(event, owner):
    client = logged_in(owner)
    page = html(client.get(event.get_absolute_url()))
    assert "open <strong>testserver/tv/</strong> on it and type the code" in page
    assert event.tv_code in page
    response = client.post(f"{event.get_absolute_url()}tv-code/")
    assert response.status_code == 302
    renewed = Event.objects.get(pk=event.pk).tv_code
    assert renewed != event.tv_code
    assert Client().post("/tv/", {"code": event.tv_code}).status_code == 422


def test_without_a_public_link_there_is_no_code_to_make(event, owner):
    services.share_revoke(event=event)
    response = logged_in(owner).post(f"{event.get_absolute_url()}tv-code/", follow=True)
    assert "Share the leaderboard first" in html(response)
    assert Event.objects.get(pk=event.pk).tv_code is None


@pytest.mark.parametrize(("who", "status"), [("scorer", 302), ("viewer", 403), ("outsider", 404)])
def test_only_an_organiser_renews_the_code(event, request, who, status):
    user = request.getfixturevalue(who)
    response = logged_in(user).post(f"{event.get_absolute_url()}tv-code/")
    assert response.status_code == status
    changed = Event.objects.get(pk=event.pk).tv_code != event.tv_code
    assert changed == (status == 302)


def test_a_viewer_is_not_shown_the_code(event, viewer):
    page = html(logged_in(viewer).get(event.get_absolute_url()))
    assert event.tv_code not in page
