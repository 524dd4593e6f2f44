"""A realistic league for demos and benchmarks, every deal played through the engine.

Evenings of series at two to five tables (rematches), every preset, every mode; each deal a
plausible split of the card points (stronger players win more) that the engine accepts, a few
fixed after a typo or undone so the audit trail has edits and removals. The same seed gives the
same league, but for the links: one recomputed from a seed is no secret. Rows are written in
batches with ``table.derived``'s values (what ``series_refresh`` would store) and their dates.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction

from scoring import rules
from scoring.core.modes import SHAPES, Mode
from scoring.core.names import name_key
from scoring.models import (
    Deal,
    DealEvent,
    League,
    Membership,
    Player,
    Role,
    Seat,
    Series,
)
from scoring.standings.running_totals import totals_fold
from scoring.table.derived import Derived, derived_values, kept_timestamps
from scoring.table.replays import row_snapshot, row_values
from scoring.table.services import tables_for

LEAGUE_NAME = "Demo club"
SEED = 20250301
START = datetime(2024, 2, 2, 18, 30, tzinfo=UTC)
BATCH = 250  # series per write

RUSSIAN_NAMES = (
    "Александр", "Алексей", "Анастасия", "Андрей", "Анна", "Антон", "Арина", "Артём", "Борис",
    "Вадим", "Валентина", "Варвара", "Василий", "Вера", "Виктор", "Виктория", "Владимир",
    "Галина", "Геннадий", "Георгий", "Глеб", "Григорий", "Дарья", "Денис", "Дмитрий", "Евгений",
    "Евгения", "Екатерина", "Елена", "Жанна", "Зинаида", "Иван", "Игорь", "Илья", "Ирина",
    "Кирилл", "Ксения", "Лариса", "Леонид", "Любовь", "Людмила", "Максим", "Маргарита", "Марина",
    "Мария", "Михаил", "Надежда", "Наталья", "Никита", "Николай", "Нина", "Оксана", "Олег",
    "Ольга", "Павел", "Полина", "Роман", "Светлана", "Семён", "Сергей", "Софья", "Станислав",
    "Степан", "Тамара", "Татьяна", "Тимур", "Фёдор", "Юлия", "Юрий", "Яков", "Яна", "Ярослав",
)  # fmt: skip
ENGLISH_NAMES = (
    "Alice", "Amelia", "Ben", "Charlotte", "Chloe", "Daniel", "David", "Eleanor", "Emily",
    "Ethan", "George", "Grace", "Hannah", "Harry", "Isla", "Jack", "James", "Jessica", "Kate",
    "Liam", "Lucy", "Mark", "Matthew", "Mia", "Noah", "Oliver", "Olivia", "Oscar", "Peter",
    "Rachel", "Ruby", "Sam", "Sarah", "Sophie", "Thomas", "Tom", "William",
)  # fmt: skip
RUSSIAN_INITIALS = "АБВГДЕЖЗИКЛМНОПРСТУФХЧШЯ"
ENGLISH_INITIALS = "ABCDEFGHJKLMNOPRSTW"

#: Which game a table plays, and how often.
MODES = ((Mode.TEAMS, 0.6), (Mode.THREE, 0.25), (Mode.DUEL, 0.15))
#: House rules by how often the club plays them; long evenings play to a higher target.
PRESET_MIX = (("classic", 0.5), ("eggs-double", 0.2), ("eggs-stacking", 0.1), ("tie-penalty", 0.2))
TARGET_MIX = ((12, 0.1), (24, 0.15), (48, 0.35), (72, 0.4))

USERS = (("demo", Role.OWNER), ("natasha", Role.SCORER), ("mike", Role.SCORER))


@dataclass
class DemoSummary:
    league: League
    players: int
    series: int
    deals: int
    events: int


@dataclass
class _Planned:
    """One series waiting to be written: its row, seats, deals and events."""

    series: Series
    derived: Derived  # the derived field values of the series and of each side's seats
    players: list[Player]
    deals: list[Deal]
    events: list[DealEvent] = field(default_factory=list)
    parent: _Planned | None = None


def player_names(rng: random.Random, count: int) -> list[str]:
    """``count`` different names such as "Ольга К." or "Emily W.", about two in three Russian."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < count:
        if rng.random() < 0.65:
            name = f"{rng.choice(RUSSIAN_NAMES)} {rng.choice(RUSSIAN_INITIALS)}."
        else:
            name = f"{rng.choice(ENGLISH_NAMES)} {rng.choice(ENGLISH_INITIALS)}."
        if name_key(name) not in seen:
            seen.add(name_key(name))
            names.append(name)
    return names


def _pick(rng: random.Random, mix: Sequence[tuple[object, float]]):
    values, weights = zip(*mix, strict=True)
    return rng.choices(values, weights)[0]


_TWO_SIDE = sorted(rules.POSSIBLE_SIDE_POINTS)
_LOW = [value for value in _TWO_SIDE if 2 <= value <= 30]
_MIDDLE = [value for value in _TWO_SIDE if 31 <= value <= 59]


def two_side_deal(rng: random.Random, first_wins: float) -> rules.Deal:
    """A plausible deal between two sides; the first side wins it with odds ``first_wins``."""
    if rng.random() < 0.025:
        return rules.Deal((60, 60))
    roll = rng.random()
    tricks = None
    if roll < 0.02:
        loser_points, tricks = 0, False  # naked
    elif roll < 0.03:
        loser_points, tricks = 0, True  # a trick of sixes to nines
    elif roll < 0.3:
        loser_points = rng.choice(_LOW)
    else:
        loser_points = rng.choice(_MIDDLE)
    points = (120 - loser_points, loser_points)
    took = None if tricks is None else (True, tricks)
    if rng.random() >= first_wins:
        points, took = points[::-1], None if took is None else took[::-1]
    return rules.Deal(points, took)


def three_side_deal(rng: random.Random, strengths: Sequence[float]) -> rules.Deal:
    """A plausible deal between three players; stronger players tend to take more points."""
    while True:
        weights = [math.exp(strength + rng.gauss(0, 0.55)) for strength in strengths]
        points = [round(120 * weight / sum(weights)) for weight in weights]
        points[-1] = 120 - sum(points[:-1])
        tricks = None
        if rng.random() < 0.03:  # one player goes naked
            naked = min(range(3), key=lambda side: points[side])
            top = max(range(3), key=lambda side: points[side])
            points[top] += points[naked]
            points[naked] = 0
            tricks = tuple(side != naked for side in range(3))
        try:
            return rules.Deal(tuple(points), tricks)
        except rules.InvalidDeal:
            continue  # 1 or 119 points, or a split no cards make: deal again


def play(
    rng: random.Random,
    running: rules.Series,
    side_strengths: Sequence[float],
    *,
    stop_after: int | None = None,
) -> list[tuple[rules.Deal, tuple[int, ...]]]:
    """Deals until the engine says the series is over (or ``stop_after`` deals): (deal, in play)."""
    played: list[tuple[rules.Deal, tuple[int, ...]]] = []
    while not running.finished and (stop_after is None or len(played) < stop_after):
        in_play = running.in_play
        strengths = [side_strengths[side] for side in in_play]
        if len(in_play) == 2:
            edge = 1 / (1 + math.exp(strengths[1] - strengths[0]))
            deal = two_side_deal(rng, edge)
        else:
            deal = three_side_deal(rng, strengths)
        running.add(deal)  # the engine is the judge: InvalidDeal would stop the generator
        played.append((deal, in_play))
    return played


def _typo(rng: random.Random, deal: rules.Deal) -> rules.Deal | None:
    """The same deal as first typed with a slip of ten points, if that is a valid deal too."""
    if len(deal.points) != 2 or deal.is_eggs:
        return None
    shift = rng.choice((-10, 10))
    points = (deal.points[0] + shift, deal.points[1] - shift)
    try:
        wrong = rules.Deal(points, deal.tricks)
    except rules.InvalidDeal:
        return None
    return wrong if (wrong.points[0] > 60) == (deal.points[0] > 60) else None


class _League:
    """The generator's state: random source, clock, players, users and what is left to write."""

    def __init__(self, *, seed: int, players: int, series: int, max_deals: int | None) -> None:
        self.rng = random.Random(seed)
        self.series_wanted = series
        self.max_deals = max_deals
        self.player_count = players
        self.series_made = 0
        self.deals_made = 0
        self.events_made = 0
        self.pending: list[_Planned] = []
        self.progress: Callable[[str], None] | None = None
        self.deal_caps: Sequence[int] | None = None

    def setup(self, league_name: str, password: str | None) -> League:
        rng = self.rng
        league = League.objects.create(name=league_name)
        League.objects.filter(pk=league.pk).update(created_at=START - timedelta(days=30))
        self.users = []
        for username, role in USERS:
            user, created = get_user_model().objects.get_or_create(username=username)
            if created:
                if password and username == USERS[0][0]:
                    user.set_password(password)
                else:
                    user.set_unusable_password()
                user.save()
            Membership.objects.create(league=league, user=user, role=role)
            self.users.append(user)
        Membership.objects.filter(league=league).update(joined_at=START - timedelta(days=30))
        names = player_names(rng, self.player_count)
        joined = [START - timedelta(days=rng.randint(0, 30)) for _ in names]
        with kept_timestamps(Player):
            self.players = Player.objects.bulk_create(
                Player(name=name, league=league, created_at=when)
                for name, when in zip(names, joined, strict=True)
            )
        # Some come every week, most now and then; some play better than others.
        self.activity = [rng.lognormvariate(0, 0.8) for _ in self.players]
        self.skill = {player.pk: rng.gauss(0, 0.3) for player in self.players}
        self.league = league
        return league

    def done(self) -> bool:
        if self.series_made >= self.series_wanted:
            return True
        return self.max_deals is not None and self.deals_made >= self.max_deals

    def table(self, seats: int, taken: set[int]) -> list[Player]:
        """``seats`` different players who are not at another table tonight."""
        chosen: list[Player] = []
        while len(chosen) < seats:
            player = self.rng.choices(self.players, self.activity)[0]
            if player.pk not in taken:
                taken.add(player.pk)
                chosen.append(player)
        return chosen

    def evening(self, start: datetime, last: bool) -> None:
        rng = self.rng
        taken: set[int] = set()
        for table in range(max(1, min(rng.randint(2, 5), len(self.players) // 4))):
            mode = _pick(rng, MODES)
            players = self.table(SHAPES[mode].seats, taken)
            ruleset = rules.Ruleset(
                **{
                    **rules.PRESETS[_pick(rng, PRESET_MIX)].to_dict(),
                    "target": _pick(rng, TARGET_MIX),
                }
            )
            if mode == Mode.THREE and rng.random() < 0.3:
                ruleset = rules.Ruleset(**{**ruleset.to_dict(), "ending": "first-out"})
            clock = start + timedelta(minutes=rng.randint(0, 20) + 7 * table)
            parent = None
            dealer = rng.randrange(len(players))
            rounds = rng.choice((1, 1, 2, 2, 3, 4))
            if ruleset.target >= 48:  # long series: two in an evening at most
                rounds = min(rounds, 2)
            for _ in range(rounds):
                if self.done():
                    return
                parent, clock = self.series(mode, players, ruleset, dealer, clock, parent, last)
                clock += timedelta(minutes=rng.randint(2, 10))
                dealer = (dealer + 1) % len(players)  # as series_rematch does

    def series(
        self,
        mode: str,
        players: list[Player],
        ruleset: rules.Ruleset,
        dealer: int,
        clock: datetime,
        parent: _Planned | None,
        last_evening: bool,
    ) -> tuple[_Planned, datetime]:
        """Plan one series from ``clock`` on; returns it and when its last deal was entered."""
        rng = self.rng
        shape = SHAPES[mode]
        strengths = [0.0] * shape.sides
        for position, player in enumerate(players):
            strengths[shape.seat_sides[position]] += self.skill[player.pk]
        running = rules.Series(shape.sides, rules=ruleset)
        stop_after = None
        if last_evening or rng.random() < 0.01:  # still being played, or abandoned
            stop_after = rng.randint(0, 25)
        if self.deal_caps is not None and self.series_made < len(self.deal_caps):
            cap = self.deal_caps[self.series_made]
            stop_after = cap if stop_after is None else min(stop_after, cap)
        if self.max_deals is not None:
            left = self.max_deals - self.deals_made
            stop_after = left if stop_after is None else min(stop_after, left)
        played = play(rng, running, strengths, stop_after=stop_after)
        state = running.state
        derived = derived_values(state)
        scorer = rng.choice(self.users)
        series = Series(
            league=self.league,
            mode=mode,
            rules=ruleset.to_dict(),
            first_dealer=dealer,
            created_at=clock,
            created_by=scorer,
            **derived.series,
        )
        deals: list[Deal] = []
        events: list[DealEvent] = []

        def event(number: int, action: str, when: datetime, before=None, after=None) -> None:
            events.append(
                DealEvent(
                    number=number,
                    action=action,
                    before=before,
                    after=after,
                    actor=scorer,
                    via="account",
                    created_at=when,
                )
            )

        for number, (deal, in_play) in enumerate(played, start=1):
            clock += timedelta(seconds=rng.randint(80, 320))
            values = row_values(deal, in_play)
            snapshot = row_snapshot(Deal(**values))
            if rng.random() < 0.015:  # a wrong deal recorded, then undone
                wrong = _typo(rng, deal)
                if wrong is not None:
                    mistake = row_snapshot(Deal(**row_values(wrong, in_play)))
                    event(number, DealEvent.Action.RECORDED, clock, after=mistake)
                    clock += timedelta(seconds=rng.randint(5, 40))
                    event(number, DealEvent.Action.REMOVED, clock, before=mistake)
                    clock += timedelta(seconds=rng.randint(10, 60))
            created = updated = clock
            typo = _typo(rng, deal) if rng.random() < 0.02 else None
            if typo is not None:  # typed with a slip, fixed a little later
                first = row_snapshot(Deal(**row_values(typo, in_play)))
                event(number, DealEvent.Action.RECORDED, created, after=first)
                updated = created + timedelta(seconds=rng.randint(20, 90))
                event(number, DealEvent.Action.EDITED, updated, before=first, after=snapshot)
                clock = updated
            else:
                event(number, DealEvent.Action.RECORDED, created, after=snapshot)
            deals.append(
                Deal(
                    number=number,
                    created_at=created,
                    updated_at=updated,
                    recorded_by=scorer,
                    entry_key=uuid.UUID(int=rng.getrandbits(128), version=4),
                    **values,
                )
            )
            if number == len(played) and state.finished:
                series.finished_at = created
        series.updated_at = clock
        series.version = 1 + len(events)  # series_start refreshes once, then one per change
        planned = _Planned(series, derived, players, deals, events, parent=parent)
        self.pending.append(planned)
        self.series_made += 1
        self.deals_made += len(deals)
        self.events_made += len(events)
        if len(self.pending) >= BATCH:
            self.flush()
        return planned, clock

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        if not pending:
            return
        with kept_timestamps(Series, Deal, DealEvent):
            Series.objects.bulk_create([planned.series for planned in pending])
            children = []
            for planned in pending:
                if planned.parent is not None:
                    planned.series.rematch_of_id = planned.parent.series.pk
                    children.append(planned.series)
            Series.objects.bulk_update(children, ["rematch_of"], batch_size=500)
            tables_for([planned.series for planned in pending], club={})
            # Seats, deals and events point at series that now have their primary keys.
            seats, deals, events = [], [], []
            for planned in pending:
                series = planned.series
                seat_sides = SHAPES[series.mode].seat_sides
                for position, player in enumerate(planned.players):
                    side = seat_sides[position]
                    seats.append(
                        Seat(
                            series=series,
                            player=player,
                            position=position,
                            side=side,
                            **planned.derived.seat(side),
                        )
                    )
                for deal in planned.deals:
                    deal.series = series
                    deals.append(deal)
                for event in planned.events:
                    event.series = series
                    events.append(event)
            Seat.objects.bulk_create(seats, batch_size=500)
            Deal.objects.bulk_create(deals, batch_size=500)
            DealEvent.objects.bulk_create(events, batch_size=500)
        if self.progress:
            self.progress(f"{self.series_made:,} series, {self.deals_made:,} deals")


def demo_generate(
    *,
    seed: int = SEED,
    players: int = 200,
    series: int = 5000,
    max_deals: int | None = None,
    league_name: str = LEAGUE_NAME,
    password: str | None = None,
    progress: Callable[[str], None] | None = None,
    deal_caps: Sequence[int] | None = None,
) -> DemoSummary:
    """Fill the database with a league of ``players`` and ``series`` played through the engine.
    ``max_deals`` ends the season after that many deals (the last series still in progress);
    ``deal_caps`` stops the n-th series after ``deal_caps[n]`` deals (a benchmark's database)."""
    if League.objects.filter(name=league_name).exists():
        raise ValueError(f"a league named {league_name!r} already exists")
    if players < 4:
        raise ValueError("a league needs at least four players for a table of four")
    state = _League(seed=seed, players=players, series=series, max_deals=max_deals)
    state.progress = progress
    state.deal_caps = deal_caps
    with transaction.atomic():
        league = state.setup(league_name, password)
        day = START
        while not state.done():
            left = state.series_wanted - state.series_made
            state.evening(day, last=left <= 3)
            day += timedelta(days=state.rng.choice((1, 1, 1, 2)))
        state.flush()
        totals_fold(league_id=league.pk)  # written at once, so its standings are folded once
    return DemoSummary(
        league=league,
        players=len(state.players),
        series=state.series_made,
        deals=state.deals_made,
        events=state.events_made,
    )
