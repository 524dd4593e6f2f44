"""Deals a table's phone kept while its club night's round closed, proposed to the organiser
(``scoring.table.proposals``): sent once however often the phone retries, only where an
organiser decides (a club night's closed game), added as the game's next deal or declined, and
the phone's offline data says which."""

from __future__ import annotations

import uuid

import pytest

from scoring.events import services as event_services
from scoring.models import DealProposal, EventTable, RunningTotal
from scoring.table import proposals
from scoring.table.selectors import proposals_at
from tests.helpers import LONG, logged_in, make_event, play_out, record, start_series

pytestmark = pytest.mark.django_db


def _closed_game(league, *, deals: int = 2):
    """Table 1's game of a club night of rounds of ``deals`` deals, played to its limit: side 0
    took 2, then side 1 (2 : 2, level)."""
    event = make_event(league, 8, length="deals", length_value=deals)
    series = EventTable.objects.get(round__event=event, number=1).series
    record(series, (40, 80))
    series = record(series, (80, 40))
    assert series.closed_at is not None and series.finished
    return event, series


def _send(series, points=(100, 20), *, key=None, number=None) -> DealProposal | None:
    return proposals.proposal_send(
        series_id=series.pk,
        number=number or series.deal_count + 1,
        entry_key=key or uuid.uuid4(),
        points=list(points),
        tricks=None,
        sides=[0, 1],
    )


def test_a_closed_games_kept_deal_is_sent_once_however_often_it_is_retried(league):
    _event, series = _closed_game(league)
    key = uuid.uuid4()
    first = _send(series, key=key)
    again = _send(series, key=key)
    assert first is not None and again is not None and again.pk == first.pk
    assert DealProposal.objects.filter(series=series).count() == 1
    assert first.points[:2] == [100, 20] and first.state == DealProposal.State.PENDING
    assert series.deals.count() == 2  # nothing added until the organiser says so


@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("open", "still takes deals"),
        ("goat", "This game is over"),
        ("quick", "no organiser can add one"),
    ],
)
def test_a_proposal_is_refused_where_no_organiser_can_add_it(league, where, words):
    if where == "quick":  # a kitchen table's game of 2 deals, played: nobody to decide
        series = record(record(start_series(ruleset=LONG, deal_limit=2), (30, 90)), (90, 30))
    else:
        event = make_event(league, 8)
        series = EventTable.objects.get(round__event=event, number=1).series
        if where == "goat":
            series = play_out(series, loser=0)
    with pytest.raises(proposals.ProposalRefused, match=words):
        _send(series)
    assert not DealProposal.objects.exists()


def test_card_points_the_rules_refuse_are_refused_in_words(league):
    _event, series = _closed_game(league)
    with pytest.raises(proposals.ProposalRefused) as refused:
        _send(series, points=(100, 100))
    assert "120" in refused.value.message
    assert not DealProposal.objects.exists()


def test_an_added_proposal_is_the_games_next_deal_and_changes_its_result(league, owner):
    event, series = _closed_game(league)
    assert series.totals[:2] == [2, 2] and series.winner_side is None  # level: nobody
    proposal = _send(series, points=(80, 40))  # side 1 loses this one: 2 : 4
    deal = proposals.proposal_accept(proposal_id=proposal.pk, event_id=event.pk)
    series.refresh_from_db()
    assert deal.number == 3 and series.deal_count == 3
    assert series.totals[:2] == [2, 4] and series.winner_side == 0
    # The league's standings count the corrected result.
    event_services.round_finish(event=event)
    winners = set(
        RunningTotal.objects.filter(league=league, won=1).values_list("player__name", flat=True)
    )
    assert winners == {seat.player.name for seat in series.seats.filter(side=0)}
    # Decided once: a second tap is refused in words and adds nothing.
    with pytest.raises(proposals.ProposalRefused, match="decided already"):
        proposals.proposal_accept(proposal_id=proposal.pk, event_id=event.pk)
    assert series.deals.count() == 3
    # The phone learns it was added, as which deal.
    (said,) = proposals_at(event_id=event.pk, table=1)
    assert said == {"key": str(proposal.entry_key), "number": 3, "state": "accepted", "deal": 3}


def test_a_declined_proposal_leaves_the_game_as_it_was(league):
    event, series = _closed_game(league)
    proposal = _send(series)
    before = series.version
    proposals.proposal_decline(proposal_id=proposal.pk, event_id=event.pk)
    series.refresh_from_db()
    assert series.deal_count == 2 and series.totals[:2] == [2, 2]
    assert series.version > before  # every phone of the table hears of it
    (said,) = proposals_at(event_id=event.pk, table=1)
    assert said["state"] == "declined" and said["deal"] is None


def test_another_evenings_organiser_cannot_decide_it(league):
    _event, series = _closed_game(league)
    other = make_event(league, 8, names=[f"Guest {n}" for n in range(8)])
    proposal = _send(series)
    with pytest.raises(proposals.ProposalRefused, match="no such proposed deal"):
        proposals.proposal_accept(proposal_id=proposal.pk, event_id=other.pk)
    assert series.deals.count() == 2


def test_the_organisers_screen_lists_it_and_decides_it_in_one_tap(league, owner):
    event, series = _closed_game(league)
    proposal = _send(series)
    organiser = logged_in(owner)
    page = organiser.get(event.get_absolute_url()).content.decode()
    assert f'id="proposal-{proposal.pk}"' in page and "Round 1, table 1: deal 3" in page
    url = f"{event.get_absolute_url()}proposals/{proposal.pk}/"
    unsure = organiser.post(url, {"decision": "maybe"}, follow=True).content.decode()
    assert "Choose to add the deal to its game or to decline it." in unsure
    proposal.refresh_from_db()
    assert proposal.state == DealProposal.State.PENDING  # bad input decides nothing
    done = organiser.post(url, {"decision": "accept"}, follow=True).content.decode()
    assert "Added as deal 3 of its game." in done
    assert f'id="proposal-{proposal.pk}"' not in done
    assert series.deals.count() == 3
