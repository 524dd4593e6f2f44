"""Deals a phone kept while its game closed, proposed to the organiser (``DealProposal``).

A club night's round can end while a table's phone still holds deals (typed offline, or typed
but not sent when the round closed): the game then takes no deal from the table
(``life.deal_refusal``), so the phone sends each as a proposal. The organiser adds it to the game
as a correction (``deals.deal_record`` with ``organiser``: the next deal, on the record) or
declines it; the phone learns which by the deal form's one-time key (``offline.board_data``).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import Deal, DealProposal, EventTable, Series
from scoring.table import deals, life
from scoring.table.forms import engine_message
from scoring.table.services import account_of, series_locked


class ProposalRefused(Exception):
    """The proposal cannot be sent, added or declined; ``message`` says why, in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _per_side(values: Sequence, sides: Sequence[int]) -> list:
    """Values given for ``sides``, as stored: per original side, None for a side not given."""
    stored: list = [None] * rules.MAX_SIDES
    for index, side in enumerate(sides):
        stored[side] = values[index]
    return stored


@transaction.atomic
def proposal_send(
    *,
    series_id: int,
    number: int,
    entry_key: uuid.UUID,
    points: Sequence[int],
    tricks: Sequence[bool] | None,
    sides: Sequence[int],
) -> DealProposal | None:
    """Propose a deal to the organiser of a closed game (None: this form's deal is recorded
    already, its answer lost on the way). Sent again, the same proposal comes back. Refused with
    words for a game that still takes deals (record it as usual), one over with its goat, and
    card points the rules refuse."""
    series = series_locked(series_id)
    found = DealProposal.objects.filter(entry_key=entry_key).first()
    if found is not None:
        if found.series_id != series.pk:
            raise ProposalRefused(_("This form belongs to another game."))
        return found
    if Deal.objects.filter(entry_key=entry_key, series=series).exists():
        return None
    club_night = EventTable.objects.filter(series=series).exists()
    refusal = life.proposal_refusal(series, club_night=club_night)
    if refusal is not None:
        raise ProposalRefused(refusal)
    try:
        rules.Deal(tuple(points), None if tricks is None else tuple(tricks))
    except rules.InvalidDeal as error:
        raise ProposalRefused(engine_message(error)) from None
    proposal = DealProposal.objects.create(
        series=series,
        entry_key=entry_key,
        number=number,
        points=_per_side(points, sides),
        tricks=_per_side(tricks if tricks is not None else [p > 0 for p in points], sides),
    )
    _bump(series)
    return proposal


def _bump(series: Series) -> None:
    """Every phone of the game, and the organiser's screen, see the change."""
    series.version += 1
    series.save(update_fields=["version", "updated_at"])


def _pending(proposal_id: int, event_id: int) -> DealProposal:
    """The proposal, locked, of a game of the club night ``event_id`` (whose organiser decides);
    refused once it was decided."""
    found = (
        DealProposal.objects.select_for_update(of=("self",))
        .filter(pk=proposal_id, series__event_table__round__event_id=event_id)
        .first()
    )
    if found is None:
        raise ProposalRefused(_("There is no such proposed deal."))
    if found.state != DealProposal.State.PENDING:
        raise ProposalRefused(_("This proposed deal has been decided already."))
    return found


@transaction.atomic
def proposal_accept(*, proposal_id: int, event_id: int, user: User | None = None) -> Deal:
    """Add a proposed deal to its game as the organiser's correction: its next deal, on the
    record, scored with the rest (the league's standings and the evening follow)."""
    proposal = _pending(proposal_id, event_id)
    sides = [side for side, value in enumerate(proposal.points) if value is not None]
    series = Series.objects.only("deal_count").get(pk=proposal.series_id)
    outcome = deals.deal_record(
        series_id=proposal.series_id,
        number=series.deal_count + 1,
        points=[proposal.points[side] for side in sides],
        tricks=[bool(proposal.tricks[side]) for side in sides],
        sides=sides,
        entry_key=proposal.entry_key,
        user=user,
        organiser=True,
    )
    if not outcome.recorded or outcome.deal is None:
        if outcome.error is not None:
            raise ProposalRefused(engine_message(outcome.error))
        if outcome.entry is deals.Entry.STALE:
            raise ProposalRefused(
                _("This deal no longer fits the game (a player is out since): decline it.")
            )
        raise ProposalRefused(_("This game is over; no deal can be added."))
    proposal.state = DealProposal.State.ACCEPTED
    proposal.deal = outcome.deal
    proposal.decided_at = timezone.now()
    proposal.decided_by = account_of(user)
    proposal.save(update_fields=["state", "deal", "decided_at", "decided_by"])
    return outcome.deal


@transaction.atomic
def proposal_decline(*, proposal_id: int, event_id: int, user: User | None = None) -> DealProposal:
    """Decline a proposed deal: the game stays as it is; its phone says so."""
    proposal = _pending(proposal_id, event_id)
    series = series_locked(proposal.series_id)
    proposal.state = DealProposal.State.DECLINED
    proposal.decided_at = timezone.now()
    proposal.decided_by = account_of(user)
    proposal.save(update_fields=["state", "decided_at", "decided_by"])
    _bump(series)
    return proposal
