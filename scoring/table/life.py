"""A game's life, decided in one place: whether it takes a deal, an edit, an undo, a put-back or
a rematch, and from whom; how it ended; its result and what that result counts for.

Every kind of game answers here alike (a quick game, a league game, a club night's table). The
services (``table.deals``, ``table.services``) ask under the series' lock and enforce the answer;
the board, the club night's screens and leaderboard, the league's running totals, the exports
and the phone's offline data only read it, from the series' stored fields. RULES.md, "A game
that ends before the goat", is the rule; its result is ``rules.result_winner``.

What a result counts for: everything, once the series has ended, whatever way
(``Series.finished``, with ``ending`` and ``winner_side`` stored by ``services.series_refresh``),
with a deal played (``models.counted``: a game closed before its first deal was never played
and counts nowhere): the league's standings and ratings (``standings.running_totals`` folds
those series), head to head, the evening's leaderboard (which counts a game once it has a
deal), a player's record, the history and the exports. While its club night's round is open the
result is ``provisional`` (the organiser may still correct it), and every screen says so alike.
docs/RULES-LEAGUES.md says it in words.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Protocol

from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import MAX_DEALS, Ending

__all__ = [
    "CORRECTION",
    "Ending",
    "Phase",
    "Stop",
    "changes_refusal",
    "closes_after",
    "deal_refusal",
    "ending_of",
    "phase_of",
    "proposal_refusal",
    "provisional",
    "rematch_refusal",
    "result_winner",
    "takes_undo",
]


#: How an organiser's change to a closed series is kept in the change log (``DealEvent.via``): a
#: deal it adds is not the table's, so not the deal that was in play when the time ran out.
CORRECTION = "correction"


class Stop(enum.StrEnum):
    """Why a series takes no deal now (``deal_refusal``)."""

    OVER = "over"  # it has ended with its goat
    FULL = "full"  # it holds MAX_DEALS deals
    LIMIT = "limit"  # it holds its ``deal_limit`` deals (a club night's round of N deals)
    CLOSED = "closed"  # closed: its round's time, or the organiser's finish


class _Stands(Protocol):
    """What a series' life is read from: its stored fields (a model, or a row of them)."""

    @property
    def finished(self) -> bool: ...
    @property
    def ending(self) -> str: ...
    @property
    def deal_count(self) -> int: ...
    @property
    def deal_limit(self) -> int | None: ...
    @property
    def closes_at(self) -> datetime | None: ...
    @property
    def closed_at(self) -> datetime | None: ...


class _Closing(Protocol):
    """A series' limits and closing (a ``Series``)."""

    @property
    def deal_limit(self) -> int | None: ...
    @property
    def closes_at(self) -> datetime | None: ...
    @property
    def closed_at(self) -> datetime | None: ...


def ending_of(
    series: _Closing, state: rules.SeriesState, *, last_deal_at: datetime | None
) -> Ending:
    """How ``series`` has ended with these deals (``state``; ``last_deal_at``: when the table's
    last deal was recorded, leaving out deals the organiser added after the close): by its goat,
    else, once closed, at its number of deals, at its time (its last deal recorded once the time
    was up), or cut short by the organiser's finishing the round before either."""
    if state.finished:
        return Ending.GOAT
    if series.closed_at is None:
        return Ending.NONE
    if series.deal_limit is not None and len(state.deals) >= series.deal_limit:
        return Ending.DEALS
    closes_at = series.closes_at
    if closes_at is not None and last_deal_at is not None and last_deal_at >= closes_at:
        return Ending.TIME
    return Ending.CUT_SHORT


def result_winner(state: rules.SeriesState, ending: str) -> int | None:
    """The side that won a series that ended so (None: not ended yet, or a tie)."""
    return rules.result_winner(state, closed=Ending(ending).closed)


def deal_refusal(series: _Stands, *, correction: bool = False) -> Stop | None:
    """Why ``series`` takes no next deal (None: it takes one). ``correction``: an organiser's
    adding a deal to a closed series (a deal missing from the round), which its closing does not
    stop; a series over with its goat, or full, takes none from anyone."""
    if series.ending == Ending.GOAT:
        return Stop.OVER
    if series.deal_count >= MAX_DEALS:
        return Stop.FULL
    if correction:
        return None
    if series.deal_limit is not None and series.deal_count >= series.deal_limit:
        return Stop.LIMIT
    if series.closed_at is not None:
        return Stop.CLOSED
    return None


def closes_after(series: _Stands, *, deal_count: int, now: datetime) -> bool:
    """Whether the deal just recorded closes the series: its round's last deal (the deal limit),
    or the deal that was being played when the round's time ran out."""
    if series.closed_at is not None:
        return False
    if series.deal_limit is not None and deal_count >= series.deal_limit:
        return True
    return series.closes_at is not None and now >= series.closes_at


def changes_refusal(series: _Stands, *, organiser: bool) -> str | None:
    """Why the deals of ``series`` cannot be changed by this person, in words (None: they can).
    An open series: by whoever may score it (edit, undo, put back). A closed one: only by an
    organiser, and only as a correction (edit a deal, add a missing one), on the record."""
    if series.closed_at is None:
        return None
    if organiser:
        return None
    return _("This round is over at this table: only the organiser can correct its deals.")


def takes_undo(series: _Stands) -> bool:
    """Whether the last deal can be undone (and put back): while the series is open. A closed
    series is corrected deal by deal instead (``changes_refusal``)."""
    return series.closed_at is None


def rematch_refusal(series: _Stands, *, club_night: bool) -> str | None:
    """Why no rematch of ``series`` can start, in words (None: it can). A club night's table is
    seated by the evening's plan, round by round: no rematch of it by anyone."""
    if club_night:
        return _(
            "A club night's game has no rematch: the organiser starts the next round, which "
            "seats every table again."
        )
    if not series.finished or series.ending != Ending.GOAT:
        return _("This series is still being played: finish it first, or start a new game.")
    return None


def proposal_refusal(series: _Stands, *, club_night: bool) -> str | None:
    """Why a deal kept on a phone cannot go to an organiser as a proposal, in words (None: it
    can). Only a club night's game has an organiser to decide it, and only once it closed (its
    deals, or its time, or the organiser's finish) with room for a correction; a game over with
    its goat, or full, takes no deal from anyone, and a quick game's deals past its limit can
    only be dropped."""
    if not club_night:
        return _("This game takes no more deals; no organiser can add one.")
    stop = deal_refusal(series)
    if stop is None:
        return _("This game still takes deals: record the deal as usual.")
    if stop not in (Stop.LIMIT, Stop.CLOSED):
        return _("This game is over; no deal can be added.")
    return None


class Phase(enum.StrEnum):
    """Where a game stands, as every screen says it: the table's board, the organiser's screen,
    the big screen and the leaderboard."""

    WAITING = "waiting"  # no deal yet
    PLAYING = "playing"
    LAST_DEAL = "last deal"  # the round's time is up: the deal in play is the table's last
    CLOSED = "closed"  # at its limit (its deals, or its time): its result stands
    OVER = "over"  # a side is the goat
    CUT_SHORT = "cut short"  # the organiser finished the round first: standing defeat points

    @property
    def playing(self) -> bool:
        """Whether finishing the round now cuts the game short."""
        return self in (Phase.WAITING, Phase.PLAYING, Phase.LAST_DEAL)


def phase_of(series: _Stands, *, now: datetime) -> Phase:
    """Where ``series`` stands now, from its stored fields."""
    if series.ending == Ending.GOAT:
        return Phase.OVER
    if series.ending == Ending.CUT_SHORT:
        return Phase.CUT_SHORT
    if series.ending:
        return Phase.CLOSED
    if series.closes_at is not None and now >= series.closes_at:
        return Phase.LAST_DEAL
    return Phase.PLAYING if series.deal_count else Phase.WAITING


def provisional(series: _Stands, *, round_open: bool) -> bool:
    """Whether the result of ``series`` is provisional: ended, while its club night's round is
    still open (said on the table, the big screen and the leaderboard alike)."""
    return bool(series.ending) and round_open
