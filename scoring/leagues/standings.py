"""Standings of a league: per player, per partnership, head to head, and ratings.

Everything is counted from what ``services.series_refresh`` stored on each finished series and
its seats (``total``, ``is_goat``, ``is_winner``, ``Series.eggs`` and the seats' deal tallies
such as ``deals_naked``), folded series by series into a ``ledger.Ledger`` (ratings
depend on the order). The table shown is kept in a ``StandingsSnapshot`` row with the tally it
came from, and is valid while the league's ``results_version`` stays what it was: every write
that changes a finished series bumps it. When it has moved, the stored tally takes in only the
series finished since, unless a finished series was changed otherwise since the tally was made
(``results_rewritten``); then everything is folded again.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import date, datetime

from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone
from django.utils.formats import get_format

from scoring import rules
from scoring.days import day_start, next_day_start
from scoring.leagues.ledger import Ledger, OutOfOrder, Pairs, pair_ids, seat_rows
from scoring.leagues.ranking import rank_key
from scoring.leagues.ratings import Rating
from scoring.models import League, Player, Seat, Series, StandingsSnapshot
from scoring.rulesets import ruleset_from_key

#: Bump when the snapshot's data layout changes: old rows are then recomputed.
SNAPSHOT_FORMAT = "7"
#: Players shown at first (the best ranked), and all the snapshot keeps of them; "everyone"
#: reads the rest from its tally.
TOP_PLAYERS = 20
#: Snapshots kept per league (one per filter recently looked at).
SNAPSHOTS_KEPT = 12
#: Partnerships shown: the best of those that played at least a few series together.
PAIRS_SHOWN = 10
ALL_RULES = ""


@dataclass(frozen=True)
class StandingsFilter:
    """A season (finished between two dates, both included) and a ruleset ("" for any)."""

    date_from: date | None = None
    date_to: date | None = None
    ruleset: str = ALL_RULES

    @property
    def key(self) -> str:
        return f"{self.date_from or ''}|{self.date_to or ''}|{self.ruleset}"

    def series_q(self, league: League, prefix: str = "") -> Q:
        """Finished series of ``league`` that pass the filter, for a query on ``prefix``."""
        conditions = {f"{prefix}league": league, f"{prefix}finished": True}
        if self.date_from:
            conditions[f"{prefix}finished_at__gte"] = day_start(self.date_from)
        if self.date_to:
            conditions[f"{prefix}finished_at__lt"] = next_day_start(self.date_to)
        ruleset = ruleset_from_key(self.ruleset) if self.ruleset else None
        if self.ruleset and ruleset is None:
            conditions[f"{prefix}pk__in"] = []
        if ruleset is not None:
            for name, value in ruleset.to_dict().items():
                conditions[f"{prefix}rules__{name}"] = value
        return Q(**conditions)

    def accepts(self, finished_at: datetime, ruleset_data) -> bool:
        """Whether a series that finished at ``finished_at`` counts: ``series_q`` in Python."""
        if self.date_from and finished_at < day_start(self.date_from):
            return False
        if self.date_to and finished_at >= next_day_start(self.date_to):
            return False
        if not self.ruleset:
            return True
        ruleset = ruleset_from_key(self.ruleset)
        return (
            ruleset is not None
            and isinstance(ruleset_data, dict)
            and all(ruleset_data.get(name) == value for name, value in ruleset.to_dict().items())
        )


def one_decimal(value: float) -> str:
    """``value`` with one decimal, in the current language (``floatformat:1``, cheaper)."""
    return f"{value:.1f}".replace(".", get_format("DECIMAL_SEPARATOR"))


def filtered_series(league: League, flt: StandingsFilter) -> QuerySet[Series]:
    return Series.objects.filter(flt.series_q(league))


class PerSeries:
    """What a row of the table says per series: the share won, the defeat points on average."""

    played: int
    won: int
    defeat: int

    @property
    def win_rate(self) -> float:
        return self.won / self.played if self.played else 0.0

    @property
    def win_percent(self) -> int:
        return round(100 * self.win_rate)

    @property
    def average_defeat(self) -> float:
        return self.defeat / self.played if self.played else 0.0

    # Shown with one decimal: a table of many rows, so not through ``floatformat``.
    @property
    def average_text(self) -> str:
        return one_decimal(self.average_defeat)


@dataclass(frozen=True)
class PlayerRow(PerSeries):
    player_id: int
    name: str
    played: int
    won: int
    goats: int
    defeat: int  # defeat points summed over the series
    eggs: int  # 60:60 deals in their series
    naked: int  # deals in which their side was charged the naked defeat (engine's definition)
    rating: Rating | None


@dataclass(frozen=True)
class PairRow(PerSeries):
    first_id: int
    second_id: int
    first: str
    second: str
    played: int
    won: int
    goats: int
    defeat: int


def compute(ledger: Ledger) -> dict:
    """The snapshot's data from a tally: plain lists, as stored in JSON; of the players only
    the ``TOP_PLAYERS`` best ranked (a league of 200 would make every view read them all)."""
    rulesets = sorted(ledger.rulesets, key=lambda key: (key not in rules.PRESETS, key))
    return {
        "players": heapq.nsmallest(TOP_PLAYERS, player_rows(ledger), key=_player_order),
        "player_count": len(ledger.players),
        "pairs": best_pairs(ledger.pairs),
        "rulesets": rulesets,
        "series": ledger.counted,
    }


def player_rows(ledger: Ledger) -> list[list]:
    """A row per player: id, ``PLAYER_COUNTS``, then μ, σ and rated series (None without)."""
    rows = []
    for pid, (played, won, goats, defeat, eggs, naked) in ledger.players.items():
        mu, sigma, rated = ledger.ratings.get(pid, (None, None, 0))
        rows.append([pid, played, won, goats, defeat, eggs, naked, mu, sigma, rated])
    return rows


def _player_order(row: list) -> tuple:
    """The standings' rank (``ranking.rank_key``) of a row of ``player_rows``."""
    pid, _played, won, goats, *_counts, mu, sigma, _rated = row
    return rank_key(won=won, goats=goats, mu=mu, sigma=sigma, player_id=pid)


def best_pairs(pairs: Pairs) -> list[list[int]]:
    """The partnerships worth a table: best win rate first, among pairs with a few series.

    A league of 200 players has thousands of pairs that met once; only the best few are kept,
    from those with ``PAIR_MIN_SERIES`` series together (from all while none has that many).
    Each row: the two player ids, then ``ledger.PAIR_COUNTS``.
    """
    ranked = pairs.regular or pairs.occasional()
    rows = [[*pair_ids(key), *counts] for key, counts in ranked.items()]
    return heapq.nsmallest(
        PAIRS_SHOWN, rows, key=lambda row: (-row[3] / row[2], -row[2], row[0], row[1])
    )


def _tally(league: League, flt: StandingsFilter, stored: dict | None, rewritten: int) -> Ledger:
    """The tally under ``flt`` today: the stored one with the series finished since, if no
    finished series was changed otherwise since it was made; or every series again."""
    ledger = Ledger.from_json(stored) if stored else None
    if ledger is not None and ledger.version >= rewritten:
        try:
            ledger.fold(seat_rows(league, since=ledger.since), accepts=flt.accepts)
        except OutOfOrder:
            pass
        else:
            return ledger
    ledger = Ledger()
    ledger.fold(seat_rows(league, since=None), accepts=flt.accepts)
    return ledger


def _snapshot_data(league: League, flt: StandingsFilter) -> dict:
    snapshot = (
        StandingsSnapshot.objects.filter(league=league, key=flt.key)
        .annotate(current=F("league__results_version"), rewritten=F("league__results_rewritten"))
        .defer("ledger")
        .first()
    )
    if snapshot is not None and snapshot.fingerprint == _fingerprint(snapshot.current):
        return snapshot.data
    if snapshot is not None:
        current, rewritten = snapshot.current, snapshot.rewritten
        ledgers = StandingsSnapshot.objects.filter(pk=snapshot.pk).values_list("ledger", flat=True)
        stored = ledgers.first() if snapshot.fingerprint.startswith(f"{SNAPSHOT_FORMAT}:") else None
    else:
        current, rewritten = League.objects.values_list("results_version", "results_rewritten").get(
            pk=league.pk
        )
        stored = None
    # Read first: a series that ends meanwhile makes the next view look again.
    try:
        ledger = _tally(league, flt, stored, rewritten)
        data = compute(ledger)
    except (ValueError, TypeError, KeyError, IndexError):  # a stored tally that does not parse
        ledger = _tally(league, flt, None, rewritten)
        data = compute(ledger)
    ledger.version = current
    values = {"fingerprint": _fingerprint(current), "data": data, "ledger": ledger.to_json()}
    if snapshot is not None:  # written over, without reading it back
        written = timezone.now()
        StandingsSnapshot.objects.filter(pk=snapshot.pk).update(computed_at=written, **values)
        return data
    try:
        with transaction.atomic():
            StandingsSnapshot.objects.create(league=league, key=flt.key, **values)
    except IntegrityError:
        return data  # another request stored the same snapshot at the same moment
    # A new filter looked at: forget the ones looked at longest ago.
    stale = StandingsSnapshot.objects.filter(league=league).order_by("-computed_at", "-pk")
    StandingsSnapshot.objects.filter(
        pk__in=list(stale.values_list("pk", flat=True)[SNAPSHOTS_KEPT:])
    ).delete()
    return data


def _fingerprint(results_version: int) -> str:
    return f"{SNAPSHOT_FORMAT}:{results_version}"


@dataclass(frozen=True)
class Standings:
    series: int  # finished series counted
    players: list[PlayerRow]  # the best TOP_PLAYERS of them, or all
    player_count: int  # all of them
    pairs: list[PairRow]
    rulesets: list[tuple[str, rules.Ruleset]]  # played in the league, for the filter

    @property
    def hidden_players(self) -> int:
        return self.player_count - len(self.players)


def league_standings(league: League, flt: StandingsFilter, everyone: bool = False) -> Standings:
    """The league's best ranked players (all of them with ``everyone``) and best partnerships
    under ``flt``."""
    data = _snapshot_data(league, flt)
    shown = data["players"]
    if everyone and data["player_count"] > len(shown):
        shown = _every_player(league, flt) or shown
    ids = {row[0] for row in shown} | {pid for row in data["pairs"] for pid in row[:2]}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))
    players = [
        PlayerRow(
            player_id=pid,
            name=names.get(pid, "?"),
            played=played,
            won=won,
            goats=goats,
            defeat=defeat,
            eggs=eggs,
            naked=naked,
            rating=Rating(mu=mu, sigma=sigma, series=rated) if mu is not None else None,
        )
        for pid, played, won, goats, defeat, eggs, naked, mu, sigma, rated in shown
    ]
    pairs = [
        PairRow(
            first_id=first,
            second_id=second,
            first=names.get(first, "?"),
            second=names.get(second, "?"),
            played=played,
            won=won,
            goats=goats,
            defeat=defeat,
        )
        for first, second, played, won, goats, defeat in data["pairs"]
    ]
    return Standings(
        series=data["series"],
        players=players,
        player_count=data["player_count"],
        pairs=pairs,
        rulesets=_rulesets(data),
    )


def _every_player(league: League, flt: StandingsFilter) -> list[list] | None:
    """Every player's row, best ranked first, from the tally the snapshot was just made from."""
    stored = (
        StandingsSnapshot.objects.filter(league=league, key=flt.key)
        .values_list("ledger", flat=True)
        .first()
    )
    ledger = Ledger.from_json(stored) if stored else None
    return sorted(player_rows(ledger), key=_player_order) if ledger else None


def _rulesets(data: dict) -> list[tuple[str, rules.Ruleset]]:
    found = [(key, ruleset_from_key(key)) for key in data["rulesets"]]
    return [(key, ruleset) for key, ruleset in found if ruleset is not None]


def ruleset_choices(league: League) -> list[tuple[str, rules.Ruleset]]:
    """The rulesets the league's finished series were played with, by key, presets first.

    Taken from the all-series snapshot: a ruleset nobody finished a series with has no
    standings to show.
    """
    return _rulesets(_snapshot_data(league, StandingsFilter()))


@dataclass(frozen=True)
class HeadToHead:
    first: Player
    second: Player
    against: int  # series on opposite sides
    first_won: int
    second_won: int
    first_goat: int
    second_goat: int
    together: int  # series as partners
    together_won: int
    together_goat: int


def head_to_head(league: League, flt: StandingsFilter, first: Player, second: Player) -> HeadToHead:
    """How two players did against each other, and side by side, in one query."""
    opposite = ~Q(side=F("series__seats__side"))
    same = Q(side=F("series__seats__side"))
    found = Seat.objects.filter(
        flt.series_q(league, "series__"), player=first, series__seats__player=second
    ).aggregate(
        against=Count("pk", filter=opposite),
        first_won=Count("pk", filter=opposite & Q(is_winner=True)),
        second_won=Count("pk", filter=opposite & Q(series__seats__is_winner=True)),
        first_goat=Count("pk", filter=opposite & Q(is_goat=True)),
        second_goat=Count("pk", filter=opposite & Q(series__seats__is_goat=True)),
        together=Count("pk", filter=same),
        together_won=Count("pk", filter=same & Q(is_winner=True)),
        together_goat=Count("pk", filter=same & Q(is_goat=True)),
    )
    return HeadToHead(first=first, second=second, **found)
