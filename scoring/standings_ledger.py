"""A league's standings as a running tally, folded in series by series.

The standings count finished series in the order they finished, ``(finished_at, pk)``: per
player the series played, won and lost as the goat, defeat points, eggs and naked deals; per
partnership the same; and the openskill ratings, which depend on that order. Folding one more
series into a tally gives exactly what counting every series again would (the ratings' floats
survive JSON unchanged), so when a series ends the stored tally (``StandingsSnapshot.ledger``)
only takes that series in, whatever the size of the league.

A tally remembers how many series it counted and the sums of their ids and versions. When those
no longer match the database (a deal of a counted series was edited, a series stopped being
finished, a finished game was moved into the league, two series finished in the order opposite
to their commits), ``standings`` throws the tally away and folds every series again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby

from django.db.models import Count, Q, QuerySet, Sum

from scoring import rules
from scoring.models import League, Seat, Series
from scoring.modes import Mode
from scoring.ratings import RatingState, SeatResult, rate_match

#: One row per seat of a finished series, as ``fold`` reads them.
SEAT_ROW = (
    "series_id",
    "series__finished_at",
    "series__version",
    "series__mode",
    "series__rules",
    "series__eggs",
    "player_id",
    "side",
    "total",
    "is_winner",
    "is_goat",
    "deals_naked",
)
#: A player's counts: series played, won, goat, defeat points, eggs and naked deals.
PLAYER_COUNTS = ("played", "won", "goats", "defeat", "eggs", "naked")
#: A partnership's counts: series played, won, goat, defeat points.
PAIR_COUNTS = ("played", "won", "goats", "defeat")
#: Partnerships ranked: those that played at least this many series together.
PAIR_MIN_SERIES = 3

#: Whether a finished series counts: given its ``finished_at`` and its house rules.
Accepts = Callable[[datetime, dict], bool]
#: Where a series stands in the finishing order.
Position = tuple[datetime, int]


def ruleset_key(ruleset: rules.Ruleset) -> str:
    """A short, stable name for a ruleset: the preset's name, or its settings in a row."""
    name = ruleset.preset_name
    if name:
        return name
    return "custom-" + "-".join(str(value) for value in ruleset.to_dict().values())


class Pairs:
    """Every partnership's counts (``PAIR_COUNTS``) by ``pair_key``.

    A league of 200 players has thousands of pairs, most of which played once or twice: those
    are kept in one string, ";12-40:1,0,1,12" each, which the stored JSON holds as one value
    (parsing thousands of small lists cost more than the rest of a view). Adding a series finds
    its two pairs in it with ``str.find``; a pair with ``PAIR_MIN_SERIES`` series moves to the
    dict of regular pairs, the only ones the table ranks. Folding many series at once (a full
    count) parses the string into a dict first.
    """

    def __init__(self, regular: dict[str, list[int]] | None = None, occasional: str = ""):
        self.regular = regular if regular is not None else {}
        self._text = occasional
        self._parsed: dict[str, list[int]] | None = None if occasional else {}

    def add(self, key: str, values: tuple[int, ...]) -> None:
        counts = self.regular.get(key) or self._take(key)
        for index, value in enumerate(values):
            counts[index] += value
        if counts[0] >= PAIR_MIN_SERIES:
            self.regular[key] = counts
        elif self._parsed is not None:
            self._parsed[key] = counts
        else:
            self._text += f";{key}:{','.join(map(str, counts))}"

    def _take(self, key: str) -> list[int]:
        """The occasional pair's counts, taken out (zeros for a pair not seen yet)."""
        if self._parsed is not None:
            return self._parsed.pop(key, None) or [0] * len(PAIR_COUNTS)
        marker = f";{key}:"
        start = self._text.find(marker)
        if start < 0:
            return [0] * len(PAIR_COUNTS)
        end = self._text.find(";", start + 1)
        end = len(self._text) if end < 0 else end
        counts = [int(value) for value in self._text[start + len(marker) : end].split(",")]
        self._text = self._text[:start] + self._text[end:]
        return counts

    def parse(self) -> None:
        """Turn the string into a dict: cheaper when many series are to be added."""
        if self._parsed is None:
            self._parsed = {}
            for entry in self._text.split(";")[1:]:
                key, _sep, counts = entry.partition(":")
                self._parsed[key] = [int(value) for value in counts.split(",")]
            self._text = ""

    def occasional(self) -> dict[str, list[int]]:
        self.parse()
        return dict(self._parsed or {})

    def to_json(self) -> dict:
        text = self._text
        if self._parsed is not None:
            text = "".join(
                f";{key}:{','.join(map(str, counts))}" for key, counts in self._parsed.items()
            )
        return {"regular": self.regular, "occasional": text}

    @classmethod
    def from_json(cls, data: dict) -> Pairs:
        regular, occasional = data["regular"], data["occasional"]
        if not isinstance(regular, dict) or not isinstance(occasional, str):
            raise TypeError("pairs")
        return cls(regular, occasional)


@dataclass
class Ledger:
    players: dict[int, list[int]] = field(default_factory=dict)  # PLAYER_COUNTS by player id
    pairs: Pairs = field(default_factory=Pairs)
    ratings: RatingState = field(default_factory=dict)
    rulesets: set[str] = field(default_factory=set)  # of every finished series seen
    counted: tuple[int, int, int] = (0, 0, 0)  # series counted, the sums of their ids, versions
    through: Position | None = None  # the last finished series seen, counted or not

    def fold(self, rows: Iterable[tuple], accepts: Accepts) -> None:
        """Take in the seats (``SEAT_ROW``) of series finished after ``through``, in order."""
        keys: dict[str, str | None] = {}
        n, ids, versions = self.counted
        if self.through is None:
            self.pairs.parse()  # counting from nothing: many series ahead
        for (series_id, finished_at), group in groupby(rows, key=lambda row: row[:2]):
            seats = list(group)
            _id, _at, version, mode, ruleset, eggs = seats[0][:6]
            self.through = (finished_at, series_id)
            text = repr(sorted(ruleset.items())) if isinstance(ruleset, dict) else ""
            if text not in keys:
                keys[text] = _key_of(ruleset)
            if keys[text] is not None:
                self.rulesets.add(keys[text])
            if not accepts(finished_at, ruleset):
                continue
            n, ids, versions = n + 1, ids + series_id, versions + version
            self._count(seats, mode, eggs)
        self.counted = (n, ids, versions)

    def _count(self, seats: list[tuple], mode: str, eggs: int) -> None:
        results = []
        sides: dict[int, list[int]] = {}
        for *_series, player, side, total, won, goat, naked in seats:
            counts = self.players.setdefault(player, [0] * len(PLAYER_COUNTS))
            for index, value in enumerate((1, won, goat, total, eggs, naked)):
                counts[index] += value
            sides.setdefault(side, []).append(player)
            results.append(SeatResult(player, side, total, won, goat))
        if mode == Mode.TEAMS:
            for result in results:
                partners = sides[result.side]
                if len(partners) == 2 and result.player_id == min(partners):
                    won, goat = int(result.is_winner), int(result.is_goat)
                    self.pairs.add(pair_key(*partners), (1, won, goat, result.total))
        rate_match(self.ratings, results)

    def to_json(self) -> dict:
        return {
            "players": {str(pid): counts for pid, counts in self.players.items()},
            "pairs": self.pairs.to_json(),
            "ratings": {str(pid): list(state) for pid, state in self.ratings.items()},
            "rulesets": sorted(self.rulesets),
            "counted": list(self.counted),
            "through": self.through and [self.through[0].isoformat(), self.through[1]],
        }

    @classmethod
    def from_json(cls, data: dict) -> Ledger | None:
        """The stored tally, or None when it is missing or not in this layout."""
        try:
            through = data["through"]
            return cls(
                players={int(pid): list(counts) for pid, counts in data["players"].items()},
                pairs=Pairs.from_json(data["pairs"]),
                ratings={int(pid): tuple(state) for pid, state in data["ratings"].items()},
                rulesets=set(data["rulesets"]),
                counted=tuple(data["counted"]),
                through=through and (datetime.fromisoformat(through[0]), through[1]),
            )
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None


def pair_key(first: int, second: int) -> str:
    """Two partners' ids, the smaller first: "12-40"."""
    return f"{min(first, second)}-{max(first, second)}"


def pair_ids(key: str) -> tuple[int, int]:
    first, second = key.split("-")
    return int(first), int(second)


def _key_of(data) -> str | None:
    try:
        return ruleset_key(rules.Ruleset.from_dict(data))
    except (rules.InvalidRuleset, TypeError, AttributeError):
        return None


def _after(position: Position | None, prefix: str = "") -> Q:
    """Finished after ``position``; written as a range on ``finished_at``, which SQLite finds
    through the index (the same condition as an OR of two ranges scans much more)."""
    if position is None:
        return Q()
    at, pk = position
    return Q(**{f"{prefix}finished_at__gte": at}) & ~Q(
        **{f"{prefix}finished_at": at, f"{prefix}pk__lte": pk}
    )


def _up_to(position: Position) -> Q:
    at, pk = position
    return Q(finished_at__lte=at) & ~Q(finished_at=at, pk__gt=pk)


def seat_rows(league: League, after: Position | None) -> Iterable[tuple]:
    """The seats of the league's series finished after ``after``, in finishing order."""
    return (
        Seat.objects.filter(_after(after, "series__"), series__league=league, series__finished=True)
        .order_by("series__finished_at", "series_id", "position")
        .values_list(*SEAT_ROW)
        .iterator(chunk_size=2000)
    )


def counted_through(counted: QuerySet[Series], through: Position | None) -> tuple[int, int, int]:
    """What a tally folded up to ``through`` should have counted of ``counted``, today."""
    if through is None:
        return (0, 0, 0)
    found = counted.filter(_up_to(through)).aggregate(
        n=Count("pk"), ids=Sum("pk", default=0), versions=Sum("version", default=0)
    )
    return (found["n"], found["ids"], found["versions"])
