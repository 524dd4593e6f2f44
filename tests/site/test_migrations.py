"""Data migrations: 0003 fills each seat's deal figures by replaying the series already stored;
0006 gives players their name keys, keeping apart a league's players whose names now collide."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring import rules
from scoring.core import names
from scoring.models import Player, Seat
from scoring.table import services
from scoring.table.replays import replay_rows

# Each test migrates a database from scratch: seconds, run by make test, not make test-fast.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BEFORE = [("scoring", "0002_leagues")]
AFTER = [("scoring", "0003_seat_tallies")]
TALLIES = ("deals_played", "deals_won", "deals_lost", "deals_naked", "deals_eggs", "narrow_saves")


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    apps = migrate(BEFORE)
    yield apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def store(apps, mode: str, names: list[str], deals: list, **house_rules):
    """A series as the app stored it before 0003: seats and deal rows, per original side."""
    Player = apps.get_model("scoring", "Player")
    Series = apps.get_model("scoring", "Series")
    Seat = apps.get_model("scoring", "Seat")
    Deal = apps.get_model("scoring", "Deal")
    series = Series.objects.create(mode=mode, rules=rules.Ruleset(**house_rules).to_dict())
    sides = {"teams": (0, 1, 0, 1), "duel": (0, 1), "three": (0, 1, 2)}[mode]
    for position, name in enumerate(names):
        player, _ = Player.objects.get_or_create(name=name, league=None)
        Seat.objects.create(series=series, player=player, position=position, side=sides[position])
    for number, (points, tricks) in enumerate(deals, start=1):
        Deal.objects.create(
            series=series,
            number=number,
            **{f"points_{side}": value for side, value in enumerate(points)},
            **{f"tricks_{side}": value for side, value in enumerate(tricks)},
        )
    return series.pk


def figures(series_id: int) -> list[tuple[int, ...]]:
    seats = Seat.objects.filter(series_id=series_id).order_by("position")
    return [tuple(getattr(seat, name) for name in TALLIES) for seat in seats]


def test_existing_seats_get_the_figures_a_replay_gives(old_apps):
    trick, no_trick = True, False
    teams = store(
        old_apps,
        "teams",
        ["Anna", "Boris", "Vera", "Gleb"],
        [
            ((31, 89, None), (trick, trick, None)),
            ((0, 120, None), (no_trick, trick, None)),
            ((60, 60, None), (trick, trick, None)),
        ],
        target=999,
    )
    three = store(
        old_apps,
        "three",
        ["Anna", "Boris", "Vera"],
        [
            ((100, 20, 0), (trick, trick, no_trick)),
            ((100, 20, 0), (trick, trick, no_trick)),  # Vera is out at 12
            ((31, 89, None), (trick, trick, None)),  # two sides on: the two-side save line
        ],
    )
    by_points = store(
        old_apps,
        "duel",
        ["Anna", "Boris"],
        [((0, 120, None), (trick, trick, None))],
        target=999,
        naked="points",
    )
    broken = store(  # a row no service would write: a deal for a side that is out
        old_apps,
        "three",
        ["Anna", "Boris", "Vera"],
        [
            ((100, 20, 0), (trick, trick, no_trick)),
            ((100, 20, 0), (trick, trick, no_trick)),
            ((31, None, 89), (trick, None, trick)),
        ],
    )
    empty = store(old_apps, "duel", ["Anna", "Boris"], [])

    migrate(AFTER)

    assert figures(teams) == [(3, 0, 2, 1, 1, 1), (3, 2, 0, 0, 1, 0)] * 2
    assert figures(three) == [(3, 2, 1, 0, 0, 1), (3, 1, 2, 0, 0, 0), (2, 0, 2, 2, 0, 0)]
    assert figures(by_points) == [(1, 0, 1, 1, 0, 0), (1, 1, 0, 0, 0, 0)]
    assert figures(broken) == [(0,) * 6] * 3
    assert figures(empty) == [(0,) * 6] * 2
    # The replay reads series as today's models have them: the schema of today first.
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    for series_id in (teams, three, by_points):
        seats = list(Seat.objects.filter(series_id=series_id).select_related("series"))
        series = seats[0].series
        tallies = rules.side_tallies(replay_rows(series, list(series.deals.order_by("number"))))
        for seat in seats:
            tally = tallies[seat.side]
            assert figures(series_id)[seat.position] == (
                tally.played,
                tally.won,
                tally.lost,
                tally.naked,
                tally.eggs,
                tally.narrow_saves,
            )


@pytest.fixture
def before_name_keys():
    apps = migrate([("scoring", "0005_standings_ledger")])
    yield apps
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_players_get_name_keys_and_a_leagues_colliding_names_stay_apart(before_name_keys):
    League = before_name_keys.get_model("scoring", "League")
    OldPlayer = before_name_keys.get_model("scoring", "Player")
    kitchen = League.objects.create(name="Kitchen")
    attic = League.objects.create(name="Attic")
    # Names LOWER() told apart, on SQLite and PostgreSQL alike, that are one name now.
    made = {}
    for league, name in [
        (kitchen, "Straße"),
        (kitchen, "STRASSE"),
        (kitchen, "ﾊﾅ"),
        (kitchen, "ハナ"),
        (kitchen, "Anna"),
        (kitchen, "ＡＮＮＡ"),  # full width, as a Japanese keyboard types it
        (attic, "STRASSE"),
        (None, "Straße"),
        (None, "STRASSE"),
    ]:
        made[(league and league.name, name)] = OldPlayer.objects.create(name=name, league=league).pk

    migrate([("scoring", "0006_player_name_key")])

    def key(league, name):
        return Player.objects.get(pk=made[(league, name)]).name_key

    assert key("Kitchen", "Straße") == "strasse"  # the first of them keeps the plain key
    assert key("Kitchen", "STRASSE") == names.kept_apart("strasse", made[("Kitchen", "STRASSE")])
    assert key("Kitchen", "ＡＮＮＡ") == names.kept_apart("anna", made[("Kitchen", "ＡＮＮＡ")])
    assert key("Kitchen", "ﾊﾅ") == "ハナ"
    assert key("Kitchen", "ハナ") == names.kept_apart("ハナ", made[("Kitchen", "ハナ")])
    assert key("Kitchen", "Anna") == "anna"
    assert key("Attic", "STRASSE") == "strasse"  # another league: a key of its own
    assert key(None, "Straße") == key(None, "STRASSE") == "strasse"  # quick games may share
    kitchen_id = kitchen.pk
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # today's League model
    kitchen = services.League.objects.get(pk=kitchen_id)
    found = services.players_resolve(names=["STRAẞE", "ハナ", "anna"], league=kitchen)
    assert [p.pk for p in found] == [
        made[("Kitchen", "Straße")],
        made[("Kitchen", "ﾊﾅ")],
        made[("Kitchen", "Anna")],
    ]
    assert Player.objects.filter(league_id=kitchen_id).count() == 6  # nobody new, nobody lost
