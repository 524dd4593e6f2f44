"""Stored data: leagues and their members, players, series with their seats, deals and events.

What is derived from the deals (totals, who is out, the goat, the winner, each seat's deal
figures) is decided by the engine's ``replay`` and stored on ``Series`` and ``Seat`` only so that
list pages, standings and player records can filter and count without replaying;
``services.series_refresh`` rewrites it in the same transaction as every change of a deal, so it
never disagrees with a replay.
"""

from scoring.models.accounts import AccountSettings, Export, exports_storage
from scoring.models.events import Event, EventRound, EventTable, EventTableLink
from scoring.models.leagues import (
    MAX_ID,
    MAX_LEAGUE_NAME,
    MAX_NAME,
    League,
    LeagueEvent,
    Membership,
    NameKeyField,
    Player,
    Role,
    classic_rules,
    is_token,
    new_token,
)
from scoring.models.series import MAX_DEALS, Deal, DealEvent, Seat, Series
from scoring.models.standings import PairResult, RunningTotal
