"""Ids read from a request (scoring.lib.ids): in a path, in a query or form parameter, and the
rows a form's field ticks by id."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse
from django.urls.converters import UUIDConverter

from scoring.lib.ids import MAX_ID, IdConverter, RowsField, id_param
from scoring.models import Player
from scoring.web.middleware import SECRET_ARGUMENTS
from tests.endpoints import endpoints
from tests.helpers import logged_in

TOO_BIG = str(2**63)  # one past MAX_ID: SQLite raises OverflowError on it


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", 1),
        ("007", 7),
        (str(2**63 - 1), 2**63 - 1),
        (str(2**63), None),  # beyond 64 bits: a query would raise
        ("1" * 20, None),
        ("0", None),
        ("-1", None),
        ("+1", None),
        (" 1", None),
        ("1\n", None),
        ("²", None),  # str.isdigit() says yes, int() says no
        ("٣", None),  # int() says 3
        ("１２", None),
        ("1\x00", None),
        ("", None),
        (None, None),
        (["1"], None),
    ],
)
def test_an_id_parameter_is_ascii_digits_within_64_bits(value, expected):
    assert id_param(value) == expected


def test_an_id_parameter_may_have_a_lower_ceiling():
    assert id_param("300", high=300) == 300
    assert id_param("301", high=300) is None


def test_every_id_in_a_path_is_read_by_the_id_converter():
    """A new route with ``<int:pk>`` would take 20 digits to its view: every argument that is no
    secret token is an ``<id:…>``."""
    for endpoint in endpoints():
        for name, converter in endpoint.converters.items():
            # A download's UUID is an id too: its converter takes only the 36 characters of one.
            an_id = type(converter) in (IdConverter, UUIDConverter)
            assert name in SECRET_ARGUMENTS or an_id, (endpoint, name)


def test_an_id_beyond_64_bits_in_the_path_is_not_found(client, db):
    assert client.get(f"/series/{TOO_BIG}/").status_code == 404
    assert client.get(f"/series/{'9' * 30}/sheet/").status_code == 404
    assert client.post(f"/series/{10**30}/deals/", {}).status_code == 404
    assert client.get(f"/series/{MAX_ID}/").status_code == 404  # an id, of nothing


def test_an_id_of_0_names_nothing(client, db):
    assert client.get("/series/0/").status_code == 404
    with pytest.raises(NoReverseMatch):
        reverse("series_detail", kwargs={"pk": "x"})
    assert reverse("series_detail", kwargs={"pk": 7}) == "/series/7/"


def test_the_admins_own_id_paths_do_not_take_huge_ids_either(db):
    operator = get_user_model().objects.create_superuser("root", "root@example.org", "x" * 20)
    client = logged_in(operator)
    client.raise_request_exception = False
    # Not our transfer page: Django's own, which says there is no such league.
    response = client.get(f"/admin/scoring/league/{TOO_BIG}/transfer/", follow=True)
    assert response.status_code < 500
    assert response.resolver_match.url_name != "scoring_league_transfer"


@pytest.mark.parametrize("value", [TOO_BIG, "1" * 40, "-1", "0", "٣", "1\x00", "x"])
def test_ticked_rows_that_are_no_ids_are_a_form_error_not_a_query(league, value):
    field = RowsField(queryset=Player.objects.filter(league=league))
    real = Player.objects.create(name="Zina", league=league)
    with CaptureQueriesContext(connection) as queries, pytest.raises(Exception) as refused:
        field.clean([str(real.pk), value])
    assert refused.value.messages == ["Pick only from the list."]
    assert len(queries) == 0


def test_ticked_rows_that_are_ids_are_found(league):
    real = Player.objects.create(name="Zina", league=league)
    field = RowsField(queryset=Player.objects.filter(league=league))
    assert list(field.clean([str(real.pk)])) == [real]
