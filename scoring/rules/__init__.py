"""The Kozel scoring engine: pure Python, no Django, the single source of the rules.

Map to ``shared/RULES.md``:

- "The deck and card points"       -> ``cards``   (card multiset, which sums are possible)
- "Bad input is refused"           -> ``deal``    (``Deal`` validation) and ``errors``
- "One deal (two / three sides)"   -> ``scoring`` (``score_deal``, ``base_defeat``)
- "House rules", "Named presets"   -> ``ruleset`` (``Ruleset``, ``PRESETS``)
- "A series and who is the goat"   -> ``series``  (``replay``, ``Series``)
- "A game that ends before the goat" -> ``series`` (``standing_winner``, ``result_winner``)
- deal-level figures per side      -> ``tally``   (``side_tallies``: played, won, naked, ...)
- "At the table"                   -> ``table``   (who deals, who leads)
"""

from .cards import CARD_POINTS, COUNTED_RANKS, DEAL_TOTAL, POSSIBLE_SIDE_POINTS, count_points
from .deal import MAX_SIDES, Deal
from .errors import InvalidDeal, InvalidRuleset
from .ruleset import EGGS_CHOICES, ENDING_CHOICES, NAKED_CHOICES, PRESETS, Ruleset
from .scoring import DealScore, score_deal
from .series import DealOutcome, Series, SeriesState, replay, result_winner, standing_winner
from .table import dealer_seat, first_leader_seat
from .tally import SideTally, side_tallies

__all__ = [
    "CARD_POINTS",
    "COUNTED_RANKS",
    "DEAL_TOTAL",
    "EGGS_CHOICES",
    "ENDING_CHOICES",
    "MAX_SIDES",
    "NAKED_CHOICES",
    "POSSIBLE_SIDE_POINTS",
    "PRESETS",
    "Deal",
    "DealOutcome",
    "DealScore",
    "InvalidDeal",
    "InvalidRuleset",
    "Ruleset",
    "Series",
    "SeriesState",
    "SideTally",
    "count_points",
    "dealer_seat",
    "first_leader_seat",
    "replay",
    "result_winner",
    "score_deal",
    "side_tallies",
    "standing_winner",
]
