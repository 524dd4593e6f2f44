"""Standings of a league: per player, per partnership, head to head, and ratings.

Everything is counted by the database from what ``services.series_refresh`` stored on each
finished series and its seats (``total``, ``is_goat``, ``is_winner``, ``Series.eggs`` and the
seats' deal tallies such as ``deals_naked``). Ratings replay every series, so the whole
computed table is kept in a ``StandingsSnapshot`` row and recomputed only when the series it
came from change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.formats import get_format

from scoring import rules
from scoring.models import League, Player, Seat, Series, StandingsSnapshot
from scoring.modes import Mode
from scoring.ratings import Rating, series_ratings

#: Bump when the snapshot's data layout changes: old rows are then recomputed.
SNAPSHOT_FORMAT = "3"
#: Snapshots kept per league (one per filter recently looked at).
SNAPSHOTS_KEPT = 12
#: Partnerships shown: the best of those that played at least a few series together.
PAIRS_SHOWN = 10
PAIR_MIN_SERIES = 3
ALL_RULES = ""


def ruleset_key(ruleset: rules.Ruleset) -> str:
    """A short, stable name for a ruleset: the preset's name, or its settings in a row."""
    name = ruleset.preset_name
    if name:
        return name
    return "custom-" + "-".join(str(value) for value in ruleset.to_dict().values())


def ruleset_from_key(key: str) -> rules.Ruleset | None:
    if key in rules.PRESETS:
        return rules.PRESETS[key]
    if not key.startswith("custom-"):
        return None
    names = [field.name for field in dataclasses.fields(rules.Ruleset)]
    # Values such as "last-standing" hold dashes too, so split from the left only as needed.
    parts = key.removeprefix("custom-").split("-", 3)
    if len(parts) != 4:
        return None
    target, save_line, save_line_three, rest = parts
    naked, _sep, rest = rest.partition("-")
    for eggs in rules.EGGS_CHOICES:
        if rest.startswith(eggs + "-"):
            ending = rest.removeprefix(eggs + "-")
            break
    else:
        return None
    values = [target, save_line, save_line_three, naked, eggs, ending]
    try:
        data = dict(zip(names, values, strict=True))
        for whole in ("target", "save_line", "save_line_three"):
            data[whole] = int(data[whole])
        return rules.Ruleset(**data)
    except (ValueError, rules.InvalidRuleset):
        return None


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
            conditions[f"{prefix}finished_at__gte"] = _day_start(self.date_from)
        if self.date_to:
            conditions[f"{prefix}finished_at__lt"] = _day_start(self.date_to + timedelta(days=1))
        ruleset = ruleset_from_key(self.ruleset) if self.ruleset else None
        if self.ruleset and ruleset is None:
            conditions[f"{prefix}pk__in"] = []
        if ruleset is not None:
            for name, value in ruleset.to_dict().items():
                conditions[f"{prefix}rules__{name}"] = value
        return Q(**conditions)


def one_decimal(value: float) -> str:
    """``value`` with one decimal, in the current language (``floatformat:1``, cheaper)."""
    return f"{value:.1f}".replace(".", get_format("DECIMAL_SEPARATOR"))


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def filtered_series(league: League, flt: StandingsFilter) -> QuerySet[Series]:
    return Series.objects.filter(flt.series_q(league))


@dataclass(frozen=True)
class PlayerRow:
    player_id: int
    name: str
    played: int
    won: int
    goats: int
    defeat: int  # defeat points summed over the series
    eggs: int  # 60:60 deals in their series
    naked: int  # deals in which their side was charged the naked defeat (engine's definition)
    rating: Rating | None

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

    @property
    def rating_text(self) -> str:
        return one_decimal(self.rating.ordinal) if self.rating else ""

    @property
    def skill_text(self) -> str:
        """μ ± σ."""
        if not self.rating:
            return ""
        return f"{one_decimal(self.rating.mu)} ± {one_decimal(self.rating.sigma)}"


@dataclass(frozen=True)
class PairRow:
    first_id: int
    second_id: int
    first: str
    second: str
    played: int
    won: int
    goats: int
    defeat: int

    @property
    def win_percent(self) -> int:
        return round(100 * self.won / self.played) if self.played else 0

    @property
    def average_defeat(self) -> float:
        return self.defeat / self.played if self.played else 0.0

    @property
    def average_text(self) -> str:
        return one_decimal(self.average_defeat)


def _counts() -> dict:
    return {
        "played": Count("pk"),
        "won": Count("pk", filter=Q(is_winner=True)),
        "goats": Count("pk", filter=Q(is_goat=True)),
        "defeat": Sum("total"),
    }


def player_counts(league: League, flt: StandingsFilter) -> dict[int, dict[str, int]]:
    """Per player id: series played, won, goat, defeat points, eggs and naked deals."""
    seats = Seat.objects.filter(flt.series_q(league, "series__"))
    return {
        row["player_id"]: row
        for row in seats.order_by()
        .values("player_id")
        .annotate(**_counts(), eggs=Sum("series__eggs"), naked=Sum("deals_naked"))
    }


def pair_counts(league: League, flt: StandingsFilter) -> list[dict[str, int]]:
    """Per partnership (two players on one side in teams of two): played, won, goat, defeat."""
    return list(
        Seat.objects.filter(
            flt.series_q(league, "series__"),
            series__mode=Mode.TEAMS,
            series__seats__side=F("side"),
            series__seats__player_id__gt=F("player_id"),
        )
        .order_by()
        .values("player_id", partner_id=F("series__seats__player_id"))
        .annotate(**_counts())
    )


def fingerprint(league: League, flt: StandingsFilter) -> tuple[str, int]:
    """Changes whenever a series that counts is added, removed, edited or moved; and the count."""
    found = filtered_series(league, flt).aggregate(
        n=Count("pk"), versions=Sum("version"), ids=Sum("pk"), last=Max("pk")
    )
    key = f"{SNAPSHOT_FORMAT}:{found['n']}:{found['versions']}:{found['ids']}:{found['last']}"
    return key, found["n"]


def compute(league: League, flt: StandingsFilter) -> dict:
    """The snapshot's data: plain lists, as stored in JSON, players best rated first."""
    counts = player_counts(league, flt)
    ratings = series_ratings(filtered_series(league, flt))
    players = []
    for pid, row in counts.items():
        rating = ratings.get(pid)
        players.append(
            [
                pid,
                row["played"],
                row["won"],
                row["goats"],
                row["defeat"] or 0,
                row["eggs"] or 0,
                row.get("naked", 0),
                rating.mu if rating else None,
                rating.sigma if rating else None,
                rating.series if rating else 0,
            ]
        )
    players.sort(key=_player_order)
    return {
        "players": players,
        "pairs": best_pairs(pair_counts(league, flt)),
        "rulesets": [key for key, _ruleset in ruleset_choices(league)],
    }


def _player_order(row: list) -> tuple:
    """Best rating (μ − 3σ) first, then the better win rate, then the older player."""
    pid, played, won, *_counts, mu, sigma, _rated = row
    ordinal = mu - 3 * sigma if mu is not None else float("-inf")
    return (-ordinal, -(won / played if played else 0.0), pid)


PAIR_FIELDS = ("player_id", "partner_id", "played", "won", "goats", "defeat")


def best_pairs(rows: list[dict[str, int]]) -> list[list[int]]:
    """The partnerships worth a table: best win rate first, among pairs with a few series.

    A league of 200 players has thousands of pairs that met once; only the best few are kept,
    from those with ``PAIR_MIN_SERIES`` series together (from all while none has that many).
    """
    regular = [row for row in rows if row["played"] >= PAIR_MIN_SERIES] or rows
    regular.sort(key=lambda row: (-row["won"] / row["played"], -row["played"], row["player_id"]))
    return [[row[name] for name in PAIR_FIELDS] for row in regular[:PAIRS_SHOWN]]


def _snapshot_data(league: League, flt: StandingsFilter) -> dict:
    current, count = fingerprint(league, flt)
    snapshot = StandingsSnapshot.objects.filter(league=league, key=flt.key).first()
    if snapshot is not None and snapshot.fingerprint == current:
        return snapshot.data
    data = compute(league, flt) | {"series": count}
    try:
        with transaction.atomic():
            StandingsSnapshot.objects.update_or_create(
                league=league, key=flt.key, defaults={"fingerprint": current, "data": data}
            )
            stale = StandingsSnapshot.objects.filter(league=league).order_by("-computed_at")
            StandingsSnapshot.objects.filter(
                pk__in=list(stale.values_list("pk", flat=True)[SNAPSHOTS_KEPT:])
            ).delete()
    except IntegrityError:
        pass  # another request stored the same snapshot at the same moment
    return data


@dataclass(frozen=True)
class Standings:
    series: int  # finished series counted
    players: list[PlayerRow]  # the best ``limit`` of them
    player_count: int  # all of them
    pairs: list[PairRow]
    rulesets: list[tuple[str, rules.Ruleset]]  # played in the league, for the filter

    @property
    def hidden_players(self) -> int:
        return self.player_count - len(self.players)


def league_standings(league: League, flt: StandingsFilter, limit: int | None = None) -> Standings:
    """The league's players (the best ``limit``) and best partnerships under ``flt``."""
    data = _snapshot_data(league, flt)
    shown = data["players"][:limit]
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
    rulesets = [(key, ruleset_from_key(key)) for key in data["rulesets"]]
    return Standings(
        series=data["series"],
        players=players,
        player_count=len(data["players"]),
        pairs=pairs,
        rulesets=[(key, ruleset) for key, ruleset in rulesets if ruleset is not None],
    )


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


def ruleset_choices(league: League) -> list[tuple[str, rules.Ruleset]]:
    """The rulesets the league's series were played with, by key."""
    found: dict[str, rules.Ruleset] = {}
    for data in (
        Series.objects.filter(league=league).order_by().values_list("rules", flat=True).distinct()
    ):
        try:
            ruleset = rules.Ruleset.from_dict(data)
        except rules.InvalidRuleset:
            continue
        found.setdefault(ruleset_key(ruleset), ruleset)
    return sorted(found.items(), key=lambda item: (item[0] not in rules.PRESETS, item[0]))
