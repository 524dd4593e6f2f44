"""A league with a season across three club nights, a late joiner among them."""

from __future__ import annotations

from datetime import date

import pytest

from scoring.models import Season
from tests.seasons.nights import night, refold

#: Eight players on the first night; Zoya joins on the second, in Ilya's place.
FIRST = ["Anna", "Boris", "Vera", "Gleb", "Dina", "Egor", "Zhenya", "Ilya"]
LATER = [*FIRST[:7], "Zoya"]
DAYS = (date(2025, 5, 12), date(2025, 5, 26), date(2025, 6, 9))


@pytest.fixture
def nights(league):
    """Three club nights of a season (12 May, 26 May, 9 June), the running totals folded."""
    played = [night(league, FIRST, DAYS[0]), night(league, LATER, DAYS[1])]
    played.append(night(league, LATER, DAYS[2], losers=[1, 1]))
    refold(league)
    return played


@pytest.fixture
def season(league, nights):
    """Spring 2025: the best two nights count, three nights to be ranked."""
    return Season.objects.create(
        league=league,
        name="Spring 2025",
        starts_on=date(2025, 5, 1),
        ends_on=date(2025, 6, 30),
        best_nights=2,
        min_nights=3,
    )
