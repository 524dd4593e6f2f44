"""A league's standings as a running tally, folded in series by series.

The standings count finished series in the order they finished, ``(finished_at, pk)``: per
player the series played, won and lost as the goat, defeat points, eggs and naked deals; per
partnership the same; and the openskill ratings, which depend on that order. Folding one more
series into a tally gives exactly what counting every series again would (the ratings' floats
survive JSON unchanged), so when a series ends the stored tally (``StandingsSnapshot.ledger``)
only takes that series in, whatever the size of the league.

A tally remembers the league's ``results_version`` it was brought up to date with. Every change
to a finished series other than one more series ending (a deal of a finished series edited or
undone, a finished game moved into the league) sets the league's ``results_rewritten``; a tally
older than that is thrown away and every series folded again. So is one that meets a series
which finished before its last one but committed after it was stored: it looks back ``MARGIN``
before its last series for those, which covers app servers whose clocks disagree by less.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import groupby

from django.db.models import Q

from scoring import rules
from scoring.leagues.ratings import RatingState, SeatResult, rate_match
from scoring.models import League, Seat
from scoring.modes import Mode
from scoring.rulesets import ruleset_key

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

#: How far back before its last series a tally looks for series that finished earlier but were
#: committed later (two series ending at once, app servers' clocks a little apart).
MARGIN = timedelta(minutes=10)

#: Whether a finished series counts: given its ``finished_at`` and its house rules.
Accepts = Callable[[datetime, dict], bool]
#: Where a series stands in the finishing order.
Position = tuple[datetime, int]


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
    counted: int = 0  # series counted
    through: Position | None = None  # the last finished series seen, counted or not
    recent: dict[int, datetime] = field(default_factory=dict)  # seen within MARGIN before it
    version: int = 0  # the league's results_version it is up to date with

    @property
    def since(self) -> datetime | None:
        """Where to look from for series not taken in yet."""
        return self.through and self.through[0] - MARGIN

    def fold(self, rows: Iterable[tuple], accepts: Accepts) -> None:
        """Take in the seats (``SEAT_ROW``) of the series finished since ``since``, in order.

        Series seen already are skipped; raises ``OutOfOrder`` for one that finished before
        ``through`` and was not seen (the tally must then be counted again).
        """
        keys: dict[str, str | None] = {}
        n = self.counted
        if self.through is None:
            self.pairs.parse()  # counting from nothing: many series ahead
        for (series_id, finished_at), group in groupby(rows, key=lambda row: row[:2]):
            if series_id in self.recent:
                continue
            if self.through is not None and (finished_at, series_id) < self.through:
                raise OutOfOrder(series_id)
            seats = list(group)
            _id, _at, _version, mode, ruleset, eggs = seats[0][:6]
            self.through = (finished_at, series_id)
            self.recent[series_id] = finished_at
            text = repr(sorted(ruleset.items())) if isinstance(ruleset, dict) else ""
            if text not in keys:
                keys[text] = _key_of(ruleset)
            key = keys[text]
            if key is not None:
                self.rulesets.add(key)
            if not accepts(finished_at, ruleset):
                continue
            n += 1
            self._count(seats, mode, eggs)
        self.counted = n
        if self.through is not None:
            start = self.through[0] - MARGIN
            self.recent = {pk: at for pk, at in self.recent.items() if at >= start}

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
            "counted": self.counted,
            "through": self.through and [self.through[0].isoformat(), self.through[1]],
            "recent": {str(pk): at.isoformat() for pk, at in self.recent.items()},
            "version": self.version,
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
                counted=int(data["counted"]),
                through=through and (datetime.fromisoformat(through[0]), int(through[1])),
                recent={int(pk): datetime.fromisoformat(at) for pk, at in data["recent"].items()},
                version=int(data["version"]),
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


class OutOfOrder(Exception):
    """A series finished before the tally's last one, but was not in it."""


def seat_rows(league: League, since: datetime | None) -> Iterable[tuple]:
    """The seats of the league's series finished since ``since``, in finishing order (the
    series' index on ``(league, finished_at)`` finds them)."""
    after = Q() if since is None else Q(series__finished_at__gte=since)
    return (
        Seat.objects.filter(after, series__league=league, series__finished=True)
        .order_by("series__finished_at", "series_id", "position")
        .values_list(*SEAT_ROW)
        .iterator(chunk_size=2000)
    )
