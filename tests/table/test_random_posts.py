"""Random input to the table's views never breaks anything, and refusals change nothing."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scoring.models import Deal, Series
from tests.helpers import (
    NEW_GAME,
    client_with_link,
    creator_client,
    db_snapshot,
    deal_data,
    entry_key,
    html,
    play,
    record,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CONFLICT_NOTICE = "Deal 1 was just recorded on another phone; your points are kept"


def url(series: Series, rest: str = "") -> str:
    return f"/series/{series.pk}/{rest}"


# Random input never breaks anything

TEXT = st.one_of(
    st.sampled_from(["", "0", "1", "60", "120", "121", "-1", "1e3", "٣٠", "²", "9" * 5000]),
    st.integers(-(10**20), 10**20).map(str),
    st.text(max_size=30),
)
DEAL_FIELDS = [
    "number",
    "entry_key",
    "points_0",
    "points_1",
    "points_2",
    "tricks_0",
    "tricks_1",
    "tricks_2",
    "count_A",
    "count_10",
    "count_J",
]
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def random_post(draw_fields, names):
    return st.dictionaries(st.sampled_from(names), draw_fields, max_size=len(names))


def without_nul(data: dict) -> dict:
    # The test client cannot even send a NUL in a form field; a browser never does either.
    return {key: value.replace("\x00", "") for key, value in data.items()}


def fuzz(address, data: dict, *, htmx: bool = False, prepare=None) -> None:
    """POST ``data`` after ``prepare()`` (which returns the client), all rolled back afterwards."""
    with transaction.atomic():
        client = prepare() if prepare else Client()
        before = db_snapshot()
        response = client.post(address, without_nul(data), headers=HTMX if htmx else {})
        event(f"status {response.status_code}")
        assert response.status_code < 500
        if 400 <= response.status_code < 500:
            assert db_snapshot() == before
        transaction.set_rollback(True)


@pytest.mark.slow
@FUZZ
@given(
    data=random_post(TEXT, DEAL_FIELDS),
    htmx=st.booleans(),
    number=st.sampled_from([None, "1", "2", "2", "2", "3"]),
    base=st.sampled_from([{}, {"points_0": "70"}, {"points_1": "0", "tricks_1": "no"}]),
)
def test_random_deal_posts_never_fail_and_refusals_change_nothing(
    quick_series, data, htmx, number, base
):
    data = {**base, **data}  # sometimes a good deal with a few fields spoilt
    if number is not None:  # mostly the right next deal, so that some posts get through
        data["number"] = number
    if data.get("entry_key") == "":
        data["entry_key"] = str(uuid.uuid4())

    def prepare():
        record(quick_series, (80, 40))
        return client_with_link(quick_series)

    fuzz(url(quick_series, "deals/"), data, htmx=htmx, prepare=prepare)


@pytest.mark.slow
@FUZZ
@given(
    data=random_post(TEXT, [*DEAL_FIELDS, "version"]), deal=st.integers(1, 2), shown=st.booleans()
)
def test_random_edit_posts_never_fail_and_refusals_change_nothing(quick_series, data, deal, shown):
    def prepare():
        record(quick_series, (0, 120), (False, True))
        record(quick_series, (80, 40))
        if shown:  # the version the page showed, so that some edits get through
            data["version"] = str(quick_series.version)
        return client_with_link(quick_series)

    fuzz(url(quick_series, f"deals/{deal}/edit/"), data, prepare=prepare)


@pytest.mark.slow
@FUZZ
@given(data=random_post(TEXT, ["number", "version"]), htmx=st.booleans(), shown=st.booleans())
def test_random_undo_posts_never_fail_and_refusals_change_nothing(quick_series, data, htmx, shown):
    def prepare():
        record(quick_series, (80, 40))
        if shown:  # the version the page showed, so that some undos get through
            data["version"] = str(quick_series.version)
        return client_with_link(quick_series)

    fuzz(url(quick_series, "undo/"), data, htmx=htmx, prepare=prepare)


NEW_GAME_FIELDS = [
    "mode",
    "player_0",
    "player_1",
    "player_2",
    "player_3",
    "first_dealer",
    "preset",
    "target",
    "save_line",
    "save_line_three",
    "naked",
    "eggs",
    "ending",
    "league",
]
NEW_GAME_TEXT = st.one_of(
    TEXT,
    st.sampled_from(
        ["teams", "duel", "three", "classic", "custom", "tie-penalty", "stacking", "first-out"]
    ),
)


@pytest.mark.slow
@FUZZ
@given(data=random_post(NEW_GAME_TEXT, NEW_GAME_FIELDS), keep=st.booleans())
def test_random_new_games_never_fail_and_refusals_create_nothing(db, data, keep):
    # Half of the time a valid game with some fields spoilt, else only random fields.
    fuzz("/new/", {**NEW_GAME, **data} if keep else data)


def test_a_finished_series_refuses_any_post_to_record(quick_series):
    record(quick_series, (0, 120), (False, True))
    record(quick_series, (0, 120), (False, True))
    client = client_with_link(quick_series)
    before = db_snapshot()
    for data in [{}, {"number": "3", "points_0": "70"}, {"points_0": "x"}]:
        response = client.post(url(quick_series, "deals/"), data)
        assert 400 <= response.status_code < 500
    assert db_snapshot() == before


def test_a_fresh_form_autofocuses_its_first_side_in_the_page_and_in_htmx_alike(quick_series):
    # One board for both, kept once (board.context); app.js drops the attribute from a board
    # htmx swaps in, which htmx would focus when settling, after the player had typed on.
    client = client_with_link(quick_series)
    page = client.get(f"/series/{quick_series.pk}/")
    fragment = client.get(f"/series/{quick_series.pk}/", headers={"HX-Request": "true"})
    for answer in (page.content.decode(), fragment.content.decode()):
        assert answer.count(" autofocus") == 1
        assert re.search(r'name="points_0"[^>]* autofocus', answer)
    refused = client.post(f"/series/{quick_series.pk}/deals/", deal_data(page, points_0="200"))
    assert refused.status_code == 422
    assert " autofocus" not in refused.content.decode()  # a form as typed, with its errors


def test_the_change_log_names_the_creators_phone_and_a_shared_link_apart(quick_series):
    """A deal typed on the phone that started the game is the creator's, not "score link"."""
    creator, friend = creator_client(quick_series), client_with_link(quick_series)
    assert play(creator, quick_series, points_0="70").status_code == 302
    assert play(friend, quick_series, points_0="40").status_code == 302
    events = list(quick_series.events.order_by("pk").values_list("via", flat=True))
    assert events == ["creator", "score link"]
    sheet = html(creator.get(url(quick_series, "sheet/")))
    assert "the game&#x27;s creator" in sheet and "score link" in sheet


def test_every_board_carries_a_one_time_key_of_its_own(quick_series):
    """Two phones, or one phone asking twice, never get the same deal form key: each form's deal
    is recorded once, whichever is sent first."""
    client = client_with_link(quick_series)
    pages = [client.get(url(quick_series)), client.get(url(quick_series), headers=HTMX)]
    keys = {entry_key(page) for page in pages}
    assert len(keys) == 2
    for page in pages:
        posted = client.post(url(quick_series, "deals/"), deal_data(page, points_0="70"))
        assert posted.status_code in (302, 409)
    assert Deal.objects.filter(series=quick_series).count() == 1
