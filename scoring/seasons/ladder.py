"""A season's standings under its ladder rules: per player, the nights they played, the best N
that count, and whether they have played enough to be ranked.

A night is a club night (its date) or, for a league game outside one, the day it finished. The
figures per player and night are the stored results of the season's series (``Series.finished``
and its seats' derived fields, decided by ``table.life``): two queries of plain values (each
game's night, each seat's figures), summed per player and night here;
the rating is the league's right after the player's last series of the season, read from the
running totals (``standings.selectors.ratings_before``). The numbers are kept in this process's
memory (``caches["local"]``: a GET writes nothing shared) by the league's ``results_version``
and the season's ``version``: any change of a result or of the rules makes new ones, and the
names are read afresh each time.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import date

from django.core.cache import caches
from django.utils import timezone
from django.utils.formats import date_format, get_format
from django.utils.translation import gettext, ngettext

from scoring.lib.days import day_start, next_day_start
from scoring.models import Player, Season, Seat
from scoring.standings import ranking
from scoring.standings.ranking import Ranking
from scoring.standings.ratings import Rating
from scoring.standings.rows import PlayerRow
from scoring.standings.selectors import TOP_PLAYERS, ratings_before

#: How long the numbers stay cached; a new version makes new ones anyway.
KEPT = 60 * 60
#: The shape of the numbers kept: grows when it changes, so a deploy never reads an old one.
SHAPE = 2


@dataclass(frozen=True)
class Night:
    """A player's night: its day and their figures in its counted games."""

    day: date
    played: int
    won: int
    goats: int
    defeat: int
    eggs: int
    naked: int

    @property
    def figures(self) -> tuple[int, ...]:
        """What the nights that count add up: played, won, goats, defeat points, eggs, naked."""
        return (self.played, self.won, self.goats, self.defeat, self.eggs, self.naked)

    @property
    def order(self) -> tuple:
        """Best first: more series won, fewer goats, fewer defeat points, the earlier night."""
        return (-self.won, self.goats, self.defeat, self.day)


def counted_nights(nights: list[Night], best: int | None) -> list[Night]:
    """The nights that count under "best ``best`` nights" (None: all), in their days' order."""
    if best is None or len(nights) <= best:
        return sorted(nights, key=lambda night: night.day)
    return sorted(sorted(nights, key=lambda night: night.order)[:best], key=lambda n: n.day)


@dataclass(frozen=True)
class Line:
    """A player's season: their nights, the days of those that count and the sums of these,
    and what they still need to be ranked."""

    row: PlayerRow  # the sums of the nights that count, and the rating at the season's end
    night_count: int  # every night they played
    counted_days: tuple[date, ...]  # the days of the nights that count
    games: int  # every game of theirs the season counts, on any night
    needs_nights: int
    needs_games: int
    best: int | None

    @property
    def ranked(self) -> bool:
        return not self.needs_nights and not self.needs_games

    @property
    def words(self) -> str:
        """The line explained: "3 of 5 nights count: 12 May, 26 May, 9 June. 2 more nights to
        be ranked." """
        # "12 May"; the month as a day's date names it where the language says so ("12 мая").
        month_day = get_format("MONTH_DAY_FORMAT").replace("F", "E")
        days = ", ".join(date_format(day, month_day) for day in self.counted_days)
        counted = len(self.counted_days)
        if self.best is not None and self.night_count > counted:
            said = ngettext(
                "%(counted)s of %(count)s night counts: %(days)s.",
                "%(counted)s of %(count)s nights count: %(days)s.",
                self.night_count,
            ) % {"counted": counted, "count": self.night_count, "days": days}
        else:
            said = ngettext(
                "%(count)s night counts: %(days)s.",
                "%(count)s nights count: %(days)s.",
                counted,
            ) % {"count": counted, "days": days}
        parts = [said]
        if self.needs_nights:
            parts.append(
                ngettext(
                    "%(count)s more night to be ranked.",
                    "%(count)s more nights to be ranked.",
                    self.needs_nights,
                )
                % {"count": self.needs_nights}
            )
        if self.needs_games:
            parts.append(
                ngettext(
                    "%(count)s more game to be ranked.",
                    "%(count)s more games to be ranked.",
                    self.needs_games,
                )
                % {"count": self.needs_games}
            )
        return " ".join(parts)


@dataclass(frozen=True)
class SeasonTable:
    season: Season
    ranked: Ranking  # the players shown of those who played enough, in the standings' order
    lines: dict[int, Line]  # every player's, by id (named: those shown)
    apart: list[Line]  # those shown of whom have not played enough yet, closest to it first
    hidden: int  # players not shown (offered with "show everyone")
    series: int  # the season's counted series
    nights: int  # the nights of the season (any player's)

    @property
    def ranked_lines(self) -> list[tuple]:
        """Each ranked player's place, line (with their name) and rating shown, in order."""
        return [
            (entry.place, self.lines[entry.row.player_id], entry.rating)
            for entry in self.ranked.rows
        ]


def season_games(season: Season):
    """The seats of the season's counted games: the league's series finished between its days
    (club nights' only, when its rules say so)."""
    seats = Seat.objects.filter(
        series__league_id=season.league_id,
        series__finished=True,
        series__finished_at__gte=day_start(season.starts_on),
        series__finished_at__lt=next_day_start(season.ends_on),
    )
    if season.counts == Season.Counts.NIGHTS:
        seats = seats.filter(series__event_table__isnull=False)
    return seats


def nights_of(season: Season) -> dict[int, date]:
    """Each counted game's night: its club night's date, else the day it finished (in the
    site's zone). One row per game, the days worked out here: SQLite's date functions are
    Python called per row, which cost more than the rest of the page."""
    games = season_games(season).filter(position=0)  # one seat: one row per game
    rows = games.values_list(
        "series_id", "series__finished_at", "series__event_table__round__event__created_at"
    )
    return {
        series_id: timezone.localtime(evening or finished_at).date()
        for series_id, finished_at, evening in rows
    }


#: A seat's figures as the nights sum them, in ``Night``'s order after the day.
FIGURES = ("series_id", "player_id", "is_winner", "is_goat", "total", "series__eggs", "deals_naked")


def _numbers(season: Season, results_version: int) -> tuple:
    """What the table is made of, cached by version: per player their nights, games, the days
    of the nights that count and their sums (``Night``'s figures), and their rating; the
    season's series and nights. Small (a few numbers a player), so a cached view only ranks."""
    # Its id and when it was made: ids come again after a database is emptied.
    made = season.created_at.timestamp() if season.created_at else 0
    key = f"season:{SHAPE}:{season.pk}:{made}:{season.version}:{results_version}"
    found = caches["local"].get(key)
    if found is not None:
        return found
    night_of = nights_of(season)
    sums: dict[tuple[int, date], list[int]] = {}
    for series_id, pid, won, goat, total, eggs, naked in season_games(season).values_list(*FIGURES):
        night = sums.setdefault((pid, night_of[series_id]), [0, 0, 0, 0, 0, 0])
        for index, value in enumerate((1, won, goat, total, eggs, naked)):
            night[index] += int(value)
    nights: dict[int, list[Night]] = defaultdict(list)
    for (pid, day), figures in sums.items():
        nights[pid].append(Night(day, *figures))
    end = next_day_start(season.ends_on)
    ratings = ratings_before(season.league, end)
    players = {}
    for pid, played in nights.items():
        counted = counted_nights(played, season.best_nights)
        figures = [sum(values) for values in zip(*(n.figures for n in counted), strict=True)]
        rating = ratings.get(pid)
        players[pid] = (
            len(played),
            sum(n.played for n in played),
            tuple(n.day for n in counted),
            tuple(figures),
            (rating.mu, rating.sigma, rating.series) if rating else None,
        )
    found = (players, len(night_of), len(set(night_of.values())))
    caches["local"].set(key, found, KEPT)
    return found


def season_table(
    season: Season,
    *,
    results_version: int,
    everyone: bool = False,
    sort: str = ranking.DEFAULT_SORT,
) -> SeasonTable:
    """The season's standings under its ladder rules (``results_version``: the league's, as
    the caller read it with the season): the best ``TOP_PLAYERS`` ranked and the players
    closest to being ranked, named; every player with ``everyone``."""
    players, series, night_count = _numbers(season, results_version)
    lines: dict[int, Line] = {}
    for pid, (nights, games, days, figures, rating) in players.items():
        played, won, goats, defeat, eggs, naked = figures
        row = PlayerRow(
            player_id=pid, name="", played=played, won=won, goats=goats, defeat=defeat,
            eggs=eggs, naked=naked, rating=Rating(*rating) if rating else None,
        )  # fmt: skip
        lines[pid] = Line(
            row=row,
            night_count=nights,
            counted_days=days,
            games=games,
            needs_nights=max(season.min_nights - nights, 0),
            needs_games=max(season.min_games - games, 0),
            best=season.best_nights,
        )
    ranked_rows = [line.row for line in lines.values() if line.ranked]
    limit = None if everyone else TOP_PLAYERS
    table = ranking.ranking(ranked_rows, sort=sort, count=len(ranked_rows), limit=limit)
    apart = sorted(
        (line for line in lines.values() if not line.ranked),
        key=lambda line: (line.needs_nights, line.needs_games, -line.games, line.row.player_id),
    )
    shown_apart = apart if everyone else apart[:TOP_PLAYERS]
    ids = [entry.row.player_id for entry in table.rows] + [
        line.row.player_id for line in shown_apart
    ]
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))

    def named(row: PlayerRow) -> PlayerRow:
        return replace(row, name=names.get(row.player_id, "?"))

    for pid in ids:
        lines[pid] = replace(lines[pid], row=named(lines[pid].row))
    table = replace(
        table, rows=[replace(entry, row=lines[entry.row.player_id].row) for entry in table.rows]
    )
    return SeasonTable(
        season=season,
        ranked=table,
        lines=lines,
        apart=[lines[line.row.player_id] for line in shown_apart],
        hidden=table.hidden + len(apart) - len(shown_apart),
        series=series,
        nights=night_count,
    )


def rules_words(season: Season) -> list[str]:
    """The season's ladder rules in words, one sentence each."""
    words = [
        gettext("Every league game counts.")
        if season.counts == Season.Counts.ALL
        else gettext("Only club nights' games count.")
    ]
    if season.best_nights is None:
        words.append(gettext("Every night counts."))
    else:
        words.append(
            ngettext(
                "The best night of each player counts.",
                "The best %(count)s nights of each player count.",
                season.best_nights,
            )
            % {"count": season.best_nights}
        )
    if season.min_nights:
        words.append(
            ngettext(
                "Ranked after %(count)s night.",
                "Ranked after %(count)s nights.",
                season.min_nights,
            )
            % {"count": season.min_nights}
        )
    if season.min_games:
        words.append(
            ngettext(
                "Ranked after %(count)s game.",
                "Ranked after %(count)s games.",
                season.min_games,
            )
            % {"count": season.min_games}
        )
    return words
