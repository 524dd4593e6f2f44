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


def as_version(document: dict, version: int) -> dict:
    """``document`` (this site's export) as a site of ``version`` < 4 wrote it: no series says
    how it closed, so a closed series has no result stored (its seats no winner), and a round's
    tables that its end scored say "adjudicated" (with the standing winner)."""
    document["version"] = version
    closed = {}
    for series in document["series"]:
        derived = series["derived"]
        ending = derived.pop("ending")
        closed[series["id"]] = series.pop("closed_at") is not None and ending != "goat"
        del series["closes_at"]
        if closed[series["id"]]:
            winner = derived["winner_side"]
            derived.update(finished=False, winner_side=None)
            for seat in series["seats"]:
                seat["is_winner"] = False
            series["finished_at"] = None
            series["_winner"] = winner
    by_id = {series["id"]: series for series in document["series"]}
    for event in document.get("events", []):
        for played in event["played_rounds"]:
            for table in played["tables"]:
                adjudicated = closed[table["series"]] and played["finished_at"] is not None
                table["adjudicated"] = adjudicated
                table["adjudicated_winner"] = (
                    by_id[table["series"]].get("_winner") if adjudicated else None
                )
    for series in document["series"]:
        series.pop("_winner", None)
    return document
