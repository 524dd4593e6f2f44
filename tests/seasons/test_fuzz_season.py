"""The season form fuzzed: any body an owner's browser could send starts a season or answers
422 with the form's message, never a server error, and a refused one changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.models import Season
from tests.helpers import logged_in

pytestmark = pytest.mark.slow

DATES = st.one_of(
    st.dates().map(str),
    st.sampled_from(["", "2025-02-30", "0000-01-01", "9999-12-31", "1899-12-31", "2101-01-01"]),
    st.text(max_size=12),
)
COUNTS = st.one_of(
    st.integers(-5, 400).map(str),
    st.sampled_from(["", "1e3", "٣", "２", " 3 ", "10000", "9" * 30]),
    st.text(max_size=6),
)
BODIES = st.fixed_dictionaries(
    {
        "name": st.one_of(st.text(max_size=90), st.just("Spring")),
        "starts_on": DATES,
        "ends_on": DATES,
        "counts": st.sampled_from(["all", "nights", "", "some", "\x00"]),
        "best_nights": COUNTS,
        "min_nights": COUNTS,
        "min_games": COUNTS,
    }
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=BODIES)
def test_any_season_form_starts_a_season_or_says_why(league, owner, body):
    client = logged_in(owner)
    before = list(Season.objects.values_list("pk", flat=True))
    response = client.post(f"/leagues/{league.pk}/seasons/new/", body)
    assert response.status_code in (302, 422), response.status_code
    if response.status_code == 422:
        assert list(Season.objects.values_list("pk", flat=True)) == before
        assert b'class="error' in response.content or b'class="errors' in response.content
    else:
        season = Season.objects.latest("pk")
        assert season.starts_on <= season.ends_on
        assert season.best_nights is None or 1 <= season.best_nights <= 366
        season.delete()  # the next example starts afresh (seasons may not overlap)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=BODIES)
def test_any_change_of_a_season_saves_it_or_says_why(league, owner, body):
    season, _ = Season.objects.get_or_create(
        league=league, name="Spring", defaults={"starts_on": "2025-03-01", "ends_on": "2025-05-31"}
    )
    season.refresh_from_db()
    response = logged_in(owner).post(f"{season.get_absolute_url()}edit/", body)
    assert response.status_code in (302, 422), response.status_code
    if response.status_code == 422:
        kept = Season.objects.get(pk=season.pk)
        assert (kept.name, kept.version) == (season.name, season.version)
