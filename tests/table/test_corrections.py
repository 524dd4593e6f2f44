"""An organiser's correction of a closed club-night game (issue #36, "nothing typed is lost at a
close"): a deal missing from the round added through the game's own deal form, any deal changed,
each kept in the change log as a correction, the evening's leaderboard and the league's
standings following; the table's phone corrects nothing; a corrected game past its round's deal
limit survives a backup; no rematch of a club night's game, even one made before they were
refused."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from django.test import Client

from scoring.backup.json_export import export_json
from scoring.backup.json_import import history_import
from scoring.events import leaderboard
from scoring.events import services as event_services
from scoring.models import DealEvent, EventTable, RunningTotal, Series
from scoring.table import deals
from tests.helpers import deal_data, edit_data, html, logged_in, make_event, record, wipe

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _round_of_two(league):
    """Table 1's game of a club night of rounds of 2 deals, played to its limit, level (2 : 2):
    nobody has won it."""
    event = make_event(league, 8, length="deals", length_value=2)
    series = EventTable.objects.get(round__event=event, number=1).series
    record(series, (40, 80))
    series = record(series, (80, 40))
    assert series.closed_at is not None and series.winner_side is None
    return event, series


def _winners(event) -> set[str]:
    return {line.name for line in leaderboard.build(event).lines if line.won}


def _side(series: Series, side: int) -> set[str]:
    return set(series.seats.filter(side=side).values_list("player__name", flat=True))


def test_the_organiser_adds_a_missing_deal_through_the_games_own_form(league, owner):
    event, series = _round_of_two(league)
    organiser = logged_in(owner)
    board = organiser.get(series.get_absolute_url(), headers=HTMX)
    page = html(board)
    assert "add a deal that is missing" in page  # the board says what the organiser may do
    assert 'name="number" value="3"' in page  # the form for deal 3, past the round's 2
    answer = organiser.post(
        f"/series/{series.pk}/deals/", deal_data(board, points_0="80", points_1="40"), headers=HTMX
    )
    assert answer.status_code == 200 and answer["X-Kozel-Recorded"] == "3"
    series.refresh_from_db()
    assert (series.deal_count, series.totals[:2], series.winner_side) == (3, [2, 4], 0)
    added = series.events.get(number=3, action=DealEvent.Action.RECORDED)
    assert added.via == deals.CORRECTION and added.actor == owner
    # The evening's leaderboard follows at once; the league's standings once the round is over.
    assert _winners(event) == _side(series, 0)
    event_services.round_finish(event=event)
    counted = RunningTotal.objects.filter(series=series, won=1)
    assert set(counted.values_list("player__name", flat=True)) == _side(series, 0)


def _phone_data(page: str) -> dict:
    found = re.search(r'<div id="board-data" hidden>(.*?)</div>', page, re.S)
    assert found, "the board carries no data for the phone's engine"
    return json.loads(unescape(found.group(1)))


def test_the_phones_engine_hears_that_the_organisers_form_takes_a_deal(league, owner):
    """The page's offline engine hid the organiser's form once they typed into it: it read the
    round's deal limit as "no more deals" for everyone (``offline.board_data``)."""
    event, series = _round_of_two(league)
    organiser = _phone_data(html(logged_in(owner).get(series.get_absolute_url())))
    assert (organiser["stop"], organiser["limit"]) == ("", None)
    phone = Client()
    phone.post(event.tables.get(number=1).get_absolute_url())
    table = _phone_data(html(phone.get(series.get_absolute_url())))
    assert (table["stop"], table["limit"]) == ("limit", 2) and table["proposeUrl"]


def test_the_organiser_changes_any_deal_of_a_closed_game(league, owner):
    event, series = _round_of_two(league)
    organiser = logged_in(owner)
    form = organiser.get(f"/series/{series.pk}/deals/1/edit/")
    assert form.status_code == 200
    saved = organiser.post(
        f"/series/{series.pk}/deals/1/edit/", edit_data(form, points_0="80", points_1="40")
    )
    assert saved.status_code == 302
    series.refresh_from_db()
    assert series.totals[:2] == [0, 4] and series.winner_side == 0
    assert series.events.order_by("-pk").first().via == deals.CORRECTION
    assert _winners(event) == _side(series, 0)


def test_the_tables_phone_adds_or_changes_nothing_in_a_closed_game(league):
    event, series = _round_of_two(league)
    phone = Client()
    phone.post(event.tables.get(number=1).get_absolute_url())
    page = html(phone.get(series.get_absolute_url()))
    assert 'id="deal-form"' not in page and "/deals/1/edit/" not in page
    assert "the organiser corrects it" in page
    refused = phone.post(
        f"/series/{series.pk}/deals/",
        {"number": 3, "entry_key": "", "points_0": "80", "points_1": ""},
        headers=HTMX,
    )
    assert refused.status_code == 422
    assert phone.post(f"/series/{series.pk}/deals/1/edit/", {"version": "1"}).status_code == 409
    series.refresh_from_db()
    assert series.deal_count == 2 and series.totals[:2] == [2, 2]


def test_a_game_corrected_past_its_rounds_deal_limit_comes_back_from_a_backup(league, owner):
    """Issue #36's corrections hold more deals than the round's limit: the import took that for
    a damaged file and refused the whole backup."""
    _event, series = _round_of_two(league)
    organiser = logged_in(owner)
    board = organiser.get(series.get_absolute_url(), headers=HTMX)
    organiser.post(
        f"/series/{series.pk}/deals/", deal_data(board, points_0="80", points_1="40"), headers=HTMX
    )
    document = "".join(export_json(Series.objects.all(), secrets=True))
    wipe()
    history_import(json.loads(document))
    restored = Series.objects.get(pk=series.pk)
    assert (restored.deal_count, restored.deal_limit, restored.winner_side) == (3, 2, 0)
    assert "".join(export_json(Series.objects.all(), secrets=True)) == document


def test_a_backup_with_a_deal_past_the_limit_that_no_organiser_added_is_refused(league, owner):
    from scoring.backup.json_import import ImportRefused

    _event, series = _round_of_two(league)
    organiser = logged_in(owner)
    board = organiser.get(series.get_absolute_url(), headers=HTMX)
    organiser.post(
        f"/series/{series.pk}/deals/", deal_data(board, points_0="80", points_1="40"), headers=HTMX
    )
    spoiled = json.loads("".join(export_json(Series.objects.all(), secrets=True)))
    (game,) = [item for item in spoiled["series"] if item["id"] == series.pk]
    for event in game["events"]:
        event["via"] = "score link"  # as if the table's phone had recorded deal 3
    wipe()
    with pytest.raises(ImportRefused, match="more deals than its round allows"):
        history_import(spoiled)
    assert not Series.objects.exists()


def test_a_rematch_made_before_they_were_refused_is_not_handed_to_anyone(league, owner):
    """A club night's game that got a rematch through the old hole: a table's phone tapping
    "rematch" again is refused in words, not sent to that league game to score it."""
    event = make_event(league, 8)
    series = EventTable.objects.get(round__event=event, number=1).series
    Series.objects.create(league=league, mode=series.mode, rematch_of=series)  # the old hole
    phone = Client()
    phone.post(event.tables.get(number=1).get_absolute_url())
    answer = phone.post(f"/series/{series.pk}/rematch/", headers=HTMX)
    assert answer.status_code == 409
    assert "has no rematch" in html(answer)
    assert "HX-Redirect" not in answer


def test_a_correction_after_the_rounds_time_leaves_a_game_cut_short_cut_short(league, owner):
    """A timed round the organiser finished early: the table was cut short. A deal the organiser
    adds once the round's time has passed is a correction, not the deal "in play when the time
    ran out": the game still says it was cut short (issue #36: "cut short" only for a game that
    was, and for every game that was)."""
    from datetime import timedelta

    from django.utils import timezone

    event = make_event(league, 8, length="minutes", length_value=30)
    series = record(EventTable.objects.get(round__event=event, number=1).series, (40, 80))
    event_services.round_finish(event=event)
    series.refresh_from_db()
    assert series.ending == "cut"
    # Ten minutes ago the table played its deal and the round was finished; its time ran out
    # five minutes ago; now the organiser adds the deal the table's phone missed.
    now = timezone.now()
    series.deals.update(created_at=now - timedelta(minutes=10))
    Series.objects.filter(pk=series.pk).update(
        closed_at=now - timedelta(minutes=10), closes_at=now - timedelta(minutes=5)
    )
    organiser = logged_in(owner)
    board = organiser.get(series.get_absolute_url(), headers=HTMX)
    added = organiser.post(
        f"/series/{series.pk}/deals/", deal_data(board, points_0="80", points_1="40"), headers=HTMX
    )
    assert added.status_code == 200
    series.refresh_from_db()
    assert (series.deal_count, series.ending) == (2, "cut")
    assert "Cut short: the organiser finished the round first." in html(
        organiser.get(series.get_absolute_url())
    )
    # A backup says so too, and comes back (the import works the ending out again).
    document = "".join(export_json(Series.objects.all(), secrets=True))
    wipe()
    history_import(json.loads(document))
    assert Series.objects.get(pk=series.pk).ending == "cut"


def test_a_game_closed_by_its_time_keeps_its_ending_through_a_correction(league, owner):
    from datetime import timedelta

    from django.utils import timezone

    event = make_event(league, 8, length="minutes", length_value=30)
    series = record(EventTable.objects.get(round__event=event, number=1).series, (40, 80))
    Series.objects.filter(pk=series.pk).update(closes_at=timezone.now() - timedelta(minutes=1))
    series = record(Series.objects.get(pk=series.pk), (80, 40))  # in play as the time ran out
    assert (series.ending, series.closed_at is not None) == ("time", True)
    deals.deal_edit(
        series_id=series.pk,
        number=1,
        version=series.version,
        points=(30, 90),
        tricks=None,
        user=owner,
        organiser=True,
    )
    series.refresh_from_db()
    assert series.ending == "time" and series.totals[:2] == [4, 2]
