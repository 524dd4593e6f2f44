"""The awards of Kozel over a season, live while it runs: most series won, fewest goats, most
eggs in a game, the biggest win (the most naked defeats, sixes, given in a game), the longest
run of series won, the best partnership, the most improved rating. Each names who, the figure
and the game that made it; a tie is said as a tie (every holder listed).

Read from the stored results of the season's counted games (``ladder.season_games``: one
query, in finishing order) and the running totals' ratings at the season's two ends; kept in
Django's cache by the same versions as the season's standings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import groupby

from django.core.cache import cache
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring.lib.collation import sorted_by_name
from scoring.lib.days import day_start, next_day_start
from scoring.models import Player, Season
from scoring.seasons.ladder import KEPT, SHAPE, SeasonTable, season_games
from scoring.standings.ranking import rating_points
from scoring.standings.ratings import MODEL_MU, MODEL_SIGMA
from scoring.standings.selectors import PAIR_MIN_SERIES, ratings_before

#: Fewest goats and the most improved rating are for players with at least this many games:
#: one lucky game is no season.
MIN_GAMES = 3
#: A run of series won is a story from two on.
RUN_FROM = 2

SEAT_FIELDS = (
    "series_id",
    "player_id",
    "side",
    "is_winner",
    "is_goat",
    "total",
    "deals_naked",
    "series__eggs",
    "series__mode",
)


@dataclass(frozen=True)
class Holder:
    names: list[str]  # a player, or a game's players (a partnership, a side)
    series_id: int  # the game that made it


@dataclass(frozen=True)
class Award:
    key: str
    title: str
    holders: list[Holder]
    figure: str  # the figure in words

    @property
    def tie(self) -> bool:
        return len(self.holders) > 1


@dataclass(frozen=True)
class _Seat:
    series_id: int
    player_id: int
    side: int
    won: bool
    goat: bool
    total: int
    naked: int
    eggs: int
    mode: str


def _games(season: Season) -> list[list[_Seat]]:
    seats = season_games(season).order_by("series__finished_at", "series_id", "position")
    rows = [_Seat(*row) for row in seats.values_list(*SEAT_FIELDS)]
    return [list(group) for _id, group in groupby(rows, key=lambda seat: seat.series_id)]


def _best(values: dict, *, lowest: bool = False) -> list:
    """The keys holding the best value (the highest, or the lowest)."""
    if not values:
        return []
    best = (min if lowest else max)(values.values())
    return [key for key, value in values.items() if value == best]


def _numbers(season: Season, table: SeasonTable, results_version: int) -> dict:
    """Each award's holders as ids (players, games) and its figures, cached by version."""
    key = f"season-awards:{SHAPE}:{season.pk}:{season.version}:{results_version}"
    found = cache.get(key)
    if found is not None:
        return found
    games = _games(season)
    won: dict[int, int] = defaultdict(int)
    last_win: dict[int, int] = {}
    last_game: dict[int, int] = {}
    runs: dict[int, int] = defaultdict(int)
    best_run: dict[int, tuple[int, int]] = {}  # player: (length, the game that ended it)
    pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])  # played, won, last
    eggs: dict[int, int] = {}
    sixes: dict[int, tuple[int, int]] = {}  # game: (sixes given by its winner, the margin)
    players_of: dict[int, list[list[int]]] = {}  # game: its sides' players, the winner first
    for seats in games:
        series_id = seats[0].series_id
        sides: dict[int, list[_Seat]] = defaultdict(list)
        for seat in seats:
            sides[seat.side].append(seat)
            last_game[seat.player_id] = series_id
            if seat.won:
                won[seat.player_id] += 1
                last_win[seat.player_id] = series_id
                runs[seat.player_id] += 1
                if runs[seat.player_id] > best_run.get(seat.player_id, (0, 0))[0]:
                    best_run[seat.player_id] = (runs[seat.player_id], series_id)
            else:
                runs[seat.player_id] = 0
        winners = [side for side, members in sides.items() if members[0].won]
        order = sorted(sides, key=lambda side: side not in winners)
        players_of[series_id] = [[seat.player_id for seat in sides[side]] for side in order]
        if seats[0].eggs:
            eggs[series_id] = seats[0].eggs
        if winners:
            winner = sides[winners[0]][0]
            others = [members[0] for side, members in sides.items() if side != winners[0]]
            given = sum(seat.naked for seat in others)
            if given:
                margin = max(seat.total for seat in others) - winner.total
                sixes[series_id] = (given, margin)
        if seats[0].mode == "teams":
            for members in sides.values():
                if len(members) == 2:
                    pair = tuple(sorted(seat.player_id for seat in members))
                    record = pairs[(pair[0], pair[1])]
                    record[0] += 1
                    record[1] += int(members[0].won)
                    record[2] = series_id
    found = {
        "won": [(pid, won[pid], last_win[pid]) for pid in _best(won)],
        "runs": [
            (pid, best_run[pid][0], best_run[pid][1])
            for pid in _best({pid: run for pid, (run, _game) in best_run.items()})
            if best_run[pid][0] >= RUN_FROM
        ],
        "eggs": [(game, eggs[game], players_of[game]) for game in _best(eggs)],
        "sixes": [(game, sixes[game], players_of[game]) for game in _best(sixes)],
        "pairs": _best_pairs(pairs),
        "goats": _fewest_goats(table),
        "improved": _most_improved(season, table),
        "last_game": last_game,
    }
    cache.set(key, found, KEPT)
    return found


def _best_pairs(pairs: dict[tuple[int, int], list[int]]) -> list[tuple]:
    enough = {pair: record for pair, record in pairs.items() if record[0] >= PAIR_MIN_SERIES}
    if not enough:
        return []
    rates = {pair: (won / played, played) for pair, (played, won, _last) in enough.items()}
    best = _best(rates)
    return [(pair, enough[pair][1], enough[pair][0], enough[pair][2]) for pair in best]


def _eligible(table: SeasonTable) -> list:
    return [line for line in table.lines.values() if line.ranked and line.games >= MIN_GAMES]


def _fewest_goats(table: SeasonTable) -> list[tuple]:
    """The fewest goats among players ranked with enough games; of those level, who played
    more; still level, a tie."""
    values = {line.row.player_id: (-line.row.goats, line.games) for line in _eligible(table)}
    return [(pid, table.lines[pid].row.goats, table.lines[pid].games) for pid in _best(values)]


def _most_improved(season: Season, table: SeasonTable) -> list[tuple]:
    """The rating shown at the season's end against the one at its start (a newcomer's
    before their first game)."""
    eligible = [line.row.player_id for line in _eligible(table)]
    if not eligible:
        return []
    before = ratings_before(season.league, day_start(season.starts_on))
    after = ratings_before(season.league, next_day_start(season.ends_on))
    newcomer = rating_points(MODEL_MU, MODEL_SIGMA)
    gains = {}
    for pid in eligible:
        if pid not in after:
            continue
        start = before.get(pid)
        then = rating_points(start.mu, start.sigma) if start else newcomer
        gains[pid] = rating_points(after[pid].mu, after[pid].sigma) - then
    best = _best(gains)
    return [(pid, gains[pid]) for pid in best if gains[pid] > 0]


def season_awards(season: Season, table: SeasonTable, *, results_version: int) -> list[Award]:
    """The season's awards that have a holder, in the order the page shows them."""
    numbers = _numbers(season, table, results_version)
    ids = {pid for side in _all_players(numbers) for pid in side}
    names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))

    def name(pid: int) -> str:
        return names.get(pid, "?")

    def sides(players: list[list[int]]) -> list[str]:
        return [" & ".join(sorted_by_name([name(p) for p in side], str)) for side in players]

    last = numbers["last_game"]
    awards: list[Award] = []
    if numbers["won"] and numbers["won"][0][1]:
        count = numbers["won"][0][1]
        awards.append(
            Award(
                "won",
                str(_("Most series won")),
                [Holder([name(pid)], game) for pid, _count, game in numbers["won"]],
                ngettext("%(count)s series", "%(count)s series", count) % {"count": count},
            )
        )
    if numbers["goats"]:
        _pid, goats, games = numbers["goats"][0]
        awards.append(
            Award(
                "goats",
                str(_("Fewest goats")),
                [Holder([name(pid)], last[pid]) for pid, *_rest in numbers["goats"]],
                ngettext(
                    "goats: %(goats)s in %(count)s game",
                    "goats: %(goats)s in %(count)s games",
                    games,
                )
                % {"goats": goats, "count": games},
            )
        )
    if numbers["eggs"]:
        count = numbers["eggs"][0][1]
        awards.append(
            Award(
                "eggs",
                str(_("Most eggs in a game")),
                [Holder(sides(players), game) for game, _count, players in numbers["eggs"]],
                ngettext("%(count)s egg", "%(count)s eggs", count) % {"count": count},
            )
        )
    if numbers["sixes"]:
        (given, margin) = numbers["sixes"][0][1]
        awards.append(
            Award(
                "sixes",
                str(_("The biggest win")),
                [Holder(sides(players)[:1], game) for game, _figures, players in numbers["sixes"]],
                ngettext(
                    "%(count)s six given (naked), won by %(margin)s",
                    "%(count)s sixes given (naked), won by %(margin)s",
                    given,
                )
                % {"count": given, "margin": margin},
            )
        )
    if numbers["runs"]:
        count = numbers["runs"][0][1]
        awards.append(
            Award(
                "run",
                str(_("Longest run of series won")),
                [Holder([name(pid)], game) for pid, _count, game in numbers["runs"]],
                ngettext("%(count)s in a row", "%(count)s in a row", count) % {"count": count},
            )
        )
    if numbers["pairs"]:
        _pair, pair_won, played, _game = numbers["pairs"][0]
        awards.append(
            Award(
                "pair",
                str(_("Best partnership")),
                [
                    Holder([" & ".join(sorted_by_name([name(first), name(second)], str))], game)
                    for (first, second), _won, _played, game in numbers["pairs"]
                ],
                ngettext(
                    "won: %(won)s of %(count)s game together",
                    "won: %(won)s of %(count)s games together",
                    played,
                )
                % {"won": pair_won, "count": played},
            )
        )
    if numbers["improved"]:
        gain = numbers["improved"][0][1]
        awards.append(
            Award(
                "improved",
                str(_("Most improved rating")),
                [Holder([name(pid)], last[pid]) for pid, _gain in numbers["improved"]],
                f"+{gain}",
            )
        )
    return [Award(a.key, a.title, _merged(a.holders), a.figure) for a in awards]


def _merged(holders: list[Holder]) -> list[Holder]:
    """The holders by name, each once (the same pair winning two games as big: its latest)."""
    latest: dict[tuple[str, ...], Holder] = {}
    for holder in holders:
        latest[tuple(holder.names)] = holder
    return sorted_by_name(latest.values(), lambda holder: " ".join(holder.names))


def _all_players(numbers: dict) -> list[list[int]]:
    """Every player an award names, as lists of ids."""
    found: list[list[int]] = []
    for key in ("won", "runs", "goats", "improved"):
        found += [[row[0]] for row in numbers[key]]
    for key in ("eggs", "sixes"):
        for row in numbers[key]:
            found += row[2]
    found += [list(row[0]) for row in numbers["pairs"]]
    return found
