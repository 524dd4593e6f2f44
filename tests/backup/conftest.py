"""Fixtures of the backup tests: a league's evening to export and import."""

from __future__ import annotations

import pytest

from scoring import rules
from scoring.table import deals, services
from tests.helpers import finished_series, play_deals, start_series


@pytest.fixture
def history(league, scorer):
    """A league evening with an edit, an undo and a rematch, and a quick three-player game."""
    series = finished_series(league=league, names=("Lena", "Misha", "Nina", "Pavel"), eggs=True)
    rematch = services.series_rematch(series=series, user=scorer)
    play_deals(rematch, [(40, 80), (90, 30)])
    deals.deal_edit(series_id=rematch.pk, number=1, version=rematch.version,
                       points=(45, 75), tricks=None, user=scorer, via="account")  # fmt: skip
    play_deals(rematch, [(100, 20)])
    deals.deal_undo(series_id=rematch.pk, number=3, version=rematch.version,
                       via="score link")  # fmt: skip
    three = start_series(mode="three", names=("Ira", "Kolya", "Lida"),
                         ruleset=rules.PRESETS["tie-penalty"])  # fmt: skip
    play_deals(three, [(21, 50, 49), ((0, 60, 60), (False, True, True))])
    return series, rematch, three
