"""Stored data: a module per idea, every model imported here.

What is derived from the deals (totals, who is out, the goat, the winner, each seat's deal
figures) is stored on ``Series`` and ``Seat`` only so that lists, standings and records count
without replaying; ``table.services.series_refresh`` rewrites it with every change of a deal.
"""

from scoring.models.accounts import AccountSettings, Export, exports_storage
from scoring.models.events import (
    TV_CODE_ALPHABET,
    TV_CODE_LENGTH,
    Event,
    EventRound,
    EventTable,
)
from scoring.models.leagues import (
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
from scoring.models.seasons import MAX_GAMES, MAX_NIGHTS, Season
from scoring.models.series import (
    MAX_DEALS,
    Deal,
    DealEvent,
    DealProposal,
    Ending,
    Seat,
    Series,
    counted,
)
from scoring.models.standings import PairResult, RunningTotal
from scoring.models.tables import Table
from scoring.models.workers import WorkerPulse
