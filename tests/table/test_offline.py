"""The board as data for the phone (#board-data): replayed by the JavaScript engine in Node, it
gives what the server shows: totals, eggs, multiplier, goat and the next dealer."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scoring import rules
from scoring.models import Deal
from scoring.table.offline import board_data
from scoring.table.scoreboard import build
from scoring.table.selectors import series_with_seats
from tests.helpers import THREE, client_with_link, creator_client, play_deals, start_series

pytestmark = pytest.mark.django_db

ENGINE = Path(__file__).resolve().parents[2] / "static" / "js" / "kozel-rules.js"
REPLAY = """
import { Deal, Series, rulesFrom, dealerSeat } from "%s";
const board = JSON.parse(process.argv[1]);
const series = new Series(board.sides, rulesFrom(board.rules));
board.deals.forEach(([points, tricks]) => series.add(new Deal(points, tricks)));
const state = series.state;
const seat = state.finished ? null : dealerSeat(board.firstDealer, board.seatSides, state);
const dealer = seat === null ? null : board.seats[seat];
console.log(JSON.stringify({ totals: state.totals, eggs: state.eggs, multiplier: state.multiplier,
  goats: state.goats, out: state.out, dealer }));
"""


def on_the_phone(data: dict) -> dict:
    node = shutil.which("node")
    assert node, "Node is needed to run the JavaScript engine (make rules-js)"
    run = subprocess.run(
        [node, "--input-type=module", "-e", REPLAY % ENGINE.as_uri(), json.dumps(data)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(run.stdout)


def board_of(series):
    series = series_with_seats(series.pk)
    return build(series, list(Deal.objects.filter(series=series).order_by("number")))


@pytest.mark.parametrize(
    ("mode", "names", "ruleset", "deals"),
    [
        (
            "teams",
            None,
            rules.PRESETS["eggs-double"],
            [(60, 60), (40, 80), ((0, 120), (False, True)), (60, 60)],
        ),
        # Three players, one goes out: the others play on with two sides' points.
        (
            "three",
            THREE,
            rules.PRESETS["classic"],
            [((0, 60, 60), (False, True, True))] * 2 + [(30, 90)],
        ),
    ],
)
def test_the_phone_replays_the_board_as_the_server_shows_it(mode, names, ruleset, deals):
    series = start_series(mode=mode, ruleset=ruleset, **({"names": names} if names else {}))
    play_deals(series, deals)
    board = board_of(series)
    phone = on_the_phone(board_data(board, proposals=[], club_night=False))
    assert phone["totals"] == list(board.state.totals)
    assert phone["eggs"] == board.state.eggs
    assert phone["multiplier"] == board.state.multiplier
    assert phone["out"] == list(board.state.out)
    assert phone["goats"] == list(board.state.goats)
    assert phone["dealer"] == board.dealer


def test_the_scoring_page_carries_the_board_and_the_words_a_watcher_does_not(quick_series):
    page = creator_client(quick_series).get(quick_series.get_absolute_url()).content.decode()
    assert '<div id="board-data" hidden>{&quot;series&quot;: ' in page
    assert 'id="offline-words"' in page
    assert "js/offline.js" in page
    watching = client_with_link(quick_series, quick_series.table.watch_token)
    page = watching.get(quick_series.get_absolute_url()).content.decode()
    assert "Anna &amp; Vera" in page
    assert "board-data" not in page and "offline-words" not in page


def test_a_finished_series_still_carries_the_board_for_the_scoring_phone():
    """Deals still waiting on a phone when another ended the series are shown against the final
    board, to be dropped (offline.js): the scorer's page keeps the data, a watcher's has none."""
    series = play_deals(start_series(), [(100, 20)] * 3)
    series.refresh_from_db()
    assert series.finished
    page = creator_client(series).get(series.get_absolute_url()).content.decode()
    assert 'name="entry_key"' not in page  # no deal form: the series takes no deal
    assert '<div id="board-data" hidden>' in page and 'id="offline-words"' in page
    watching = client_with_link(series, series.table.watch_token)
    assert "board-data" not in watching.get(series.get_absolute_url()).content.decode()


@pytest.mark.parametrize("limit", [None, 3])
def test_the_phone_knows_a_rounds_deal_limit(limit):
    """A club night's round of N deals: the phone takes no deal past it, offline too."""
    series = start_series(deal_limit=limit)
    series = series_with_seats(series.pk)
    data = board_data(
        build(series, list(Deal.objects.filter(series=series))), proposals=[], club_night=False
    )
    assert data["limit"] == limit
