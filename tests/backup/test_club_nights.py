"""A backup keeps a league's club nights, its change log (and with it the undo of a merge) and
whether it is archived; older documents without them still import."""

from __future__ import annotations

import copy
import json
import random

import pytest
from django.core.management.color import no_style
from django.db import connection, transaction

from scoring.backup.json_export import export_json
from scoring.backup.json_import import ImportRefused, history_import
from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import (
    Event,
    EventRound,
    EventTable,
    League,
    LeagueEvent,
    Player,
    Seat,
    Series,
)
from tests.backup.conftest import as_version
from tests.backup.test_exports import JUNK, leaf_paths
from tests.helpers import finished, make_event, play_out, record, wipe

pytestmark = pytest.mark.django_db


@pytest.fixture
def evening(league, owner, viewer):
    """A club night of two rounds (the first finished with a table adjudicated, the second in
    play), a player renamed, one merged into a player never at the club night, the league
    archived."""
    event = make_event(league, 8, rounds=3, length="minutes", length_value=30)
    first, second = EventTable.objects.filter(round__event=event).order_by("number")
    record(first.series, [30, 90])
    play_out(second.series, loser=1)
    event_services.round_finish(event=event)
    event_services.round_start(event=event)
    event_services.share_renew(event=event)
    later = EventTable.objects.filter(round__event=event, round__number=2).first()
    record(later.series, [50, 70])

    players = sorted(event.present)
    league_players.player_rename(league=league, player_id=players[0], name="Zoya", user=owner)
    source = players[1]
    # Two players of one club night are two people: the typo's player was never at it (the
    # merge rewrites the night's plan, which the backup keeps with the merge's undo).
    target = Player.objects.create(name="Yana", league=league)
    league_players.player_link_user(league=league, player_id=source, user_id=viewer.pk)
    merge = league_players.players_merge(
        league=league, source_id=source, target_id=target.pk, user=owner
    )
    league_services.league_archive(league=league, user=owner)
    return event, merge


def exported(series=None, *, secrets: bool = True) -> str:
    queryset = Series.objects.all() if series is None else series
    return "".join(export_json(queryset, secrets=secrets))


def counts() -> tuple[int, ...]:
    models = (League, Player, Series, Event, EventRound, EventTable, LeagueEvent)
    return tuple(model.objects.count() for model in models)


def club_content() -> dict[str, list]:
    """What a club night and a change log mean, without the ids an import gives anew: a round
    by its event and number, a table by its round and series, a moved seat by series and place."""
    seats = {
        pk: (series, position)
        for pk, series, position in Seat.objects.values_list("pk", "series_id", "position")
    }

    def change(row: dict) -> dict:
        data = dict(row["data"])
        if "seats" in data:
            data["seats"] = sorted(seats[pk] for pk in data["seats"])
        return {**row, "data": data}

    return {
        "archived": list(League.objects.order_by("pk").values_list("pk", "archived_at")),
        "events": list(Event.objects.order_by("pk").values()),
        "rounds": list(
            EventRound.objects.order_by("event_id", "number").values_list(
                "event_id", "number", "out", "started_at", "finished_at"
            )
        ),
        "tables": list(
            EventTable.objects.order_by("round__event_id", "round__number", "number").values_list(
                "round__event_id",
                "round__number",
                "number",
                "series_id",
                "series__ending",
                "series__winner_side",
                "series__closed_at",
            )
        ),
        "changes": [change(row) for row in LeagueEvent.objects.order_by("pk").values()],
    }


def test_a_club_night_and_the_change_log_come_back_as_they_were(evening):
    event, _merge = evening
    before, document = club_content(), exported()
    assert before["archived"][0][1] is not None
    assert any(row[4] == "cut" for row in before["tables"])  # a table cut short
    assert {c["action"] for c in before["changes"]} == {"renamed", "merged", "archived"}
    wipe()

    summary = history_import(json.loads(document))

    assert (summary.club_nights, summary.changes) == (1, 3)
    assert club_content() == before
    assert exported() == document
    restored = Event.objects.get(pk=event.pk)
    assert restored.share_token == event.share_token


def test_a_merge_restored_from_a_backup_can_still_be_undone(evening, owner, viewer):
    event, merge = evening
    assert merge.data["nights"] == [event.pk]
    source = merge.data["source"]
    document = exported()
    wipe()
    history_import(json.loads(document))
    league = League.objects.get(pk=merge.league_id)
    league_services.league_unarchive(league=league, user=owner)

    restored = league_players.merge_undo(league=league, event_id=merge.pk, user=owner)

    assert (restored.pk, restored.name, restored.user_id) == (
        source["id"],
        source["name"],
        viewer.pk,
    )
    assert Seat.objects.filter(player=restored).count() == len(merge.data["seats"]) > 0
    night = Event.objects.get(pk=event.pk)  # the club night names the player again
    assert restored.pk in night.present and merge.data["target"]["id"] not in night.present


def test_without_secrets_a_club_night_comes_back_without_its_public_link(evening):
    document = json.loads(exported(secrets=False))
    assert "share_token" not in document["events"][0]
    wipe()
    history_import(document)
    assert Event.objects.get().share_token is None


def test_an_export_of_some_of_a_leagues_series_holds_none_of_its_club_nights_or_changes(evening):
    one = Series.objects.filter(pk=Series.objects.order_by("pk").first().pk)
    document = json.loads(exported(one))
    assert (document["events"], document["changes"]) == ([], [])
    assert document["leagues"][0]["archived_at"] is not None


def test_a_version_2_document_without_club_nights_or_changes_still_imports(evening):
    document = as_version(json.loads(exported()), 2)
    del document["events"], document["changes"]
    for league in document["leagues"]:
        del league["archived_at"]
    wipe()

    summary = history_import(document)

    assert (summary.leagues, summary.club_nights, summary.changes) == (1, 0, 0)
    assert not Event.objects.exists() and not LeagueEvent.objects.exists()
    assert League.objects.get().archived_at is None


def test_a_version_3_document_gets_its_closed_tables_results_back(evening):
    """Before version 4 a document did not say how a series closed: a table its round's end
    scored ("adjudicated") is closed at the round's end, with its result, as the site stores
    it now; the restored league exports as this site's own document."""
    before = club_content()
    document = exported()
    older = as_version(json.loads(document), 3)
    assert any(t["adjudicated"] for r in _event(older)["played_rounds"] for t in r["tables"])
    wipe()

    history_import(older)

    restored = club_content()
    assert [row[:6] for row in restored["tables"]] == [row[:6] for row in before["tables"]]
    cut = next(row for row in restored["tables"] if row[4] == "cut")
    round_end = EventRound.objects.get(event_id=cut[0], number=cut[1]).finished_at
    assert cut[6] == round_end  # closed when its round ended
    assert json.loads(exported())["version"] == 4


def test_a_version_3_document_must_hold_its_club_nights_and_changes(evening):
    document = json.loads(exported())
    del document["changes"]
    wipe()
    with pytest.raises(ImportRefused, match="changes must be a list"):
        history_import(document)
    assert counts() == (0,) * 7


def _event(document: dict) -> dict:
    return document["events"][0]


def _table(document: dict) -> dict:
    return _event(document)["played_rounds"][0]["tables"][0]


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: _table(d).update(series=999_999), "table's series is not a series"),
        (lambda d: _event(d).update(length="forever"), "length is not a round length"),
        (lambda d: _event(d).update(length="deals", length_value=None), "length_value"),
        (lambda d: _event(d).update(length_value=0), "length_value must be a whole number"),
        (lambda d: _event(d)["present"].append(999_999), "present names a player"),
        (lambda d: _event(d)["played_rounds"].reverse(), "numbered 1, 2, 3"),
        (
            lambda d: _table(as_version(d, 3)).update(adjudicated="yes"),
            "adjudicated must be true or false",
        ),
        (lambda d: _event(d).update(league=999_999), "its league is not in the file"),
        (lambda d: d["changes"][0].update(action="exploded"), "action is not a change"),
        (lambda d: d["changes"][1]["data"]["seats"].append([999_999, 0]), "moved seat"),
    ],
)
def test_malformed_club_night_data_is_refused_with_a_reason_and_nothing_imported(
    evening, spoil, message
):
    document = json.loads(exported())
    assert document["changes"][1]["action"] == "merged"
    spoil(document)
    wipe()
    with pytest.raises(ImportRefused, match=message) as refused:
        history_import(document)
    assert str(refused.value).startswith(("club night", "league change"))
    assert counts() == (0,) * 7


def test_any_corrupted_club_night_or_change_is_imported_or_refused_never_a_crash(evening):
    document = json.loads(exported())
    wipe()
    paths = [
        path
        for key in ("events", "changes", "leagues")
        for path in leaf_paths(document[key], (key,))
        if len(path) > 1
    ]
    rng = random.Random(2026)
    refused = 0
    for _ in range(200):
        corrupt = copy.deepcopy(document)
        path = rng.choice(paths)
        parent = corrupt
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = rng.choice(JUNK)
        try:
            with transaction.atomic():
                history_import(corrupt)
                transaction.set_rollback(True)
        except ImportRefused:
            refused += 1
    assert refused > 100
    assert counts() == (0,) * 7


def test_a_new_player_after_a_restore_never_takes_the_id_of_a_player_a_merge_removed(league, owner):
    finished(league, ("Anna", "Boris", "Vera", "Gleb"))
    finished(league, ("Dina", "Egor", "Fyodor", "Annna"))  # the typo: the newest player
    typo = Player.objects.get(name="Annna")
    anna = Player.objects.get(name="Anna")
    league_players.players_merge(league=league, source_id=typo.pk, target_id=anna.pk, user=owner)
    document = exported()
    wipe()
    with connection.cursor() as cursor:  # a fresh database: ids start again from 1
        sequence = {"table": Player._meta.db_table, "column": "id"}
        for sql in connection.ops.sequence_reset_by_name_sql(no_style(), [sequence]):
            cursor.execute(sql)
    history_import(json.loads(document))

    newcomer = Player.objects.create(name="Zhenya", league_id=league.pk)

    assert newcomer.pk > typo.pk


def test_a_deals_rounds_table_keeps_its_deal_limit_and_a_file_over_it_is_refused(league):
    """A table of an "N deals" round comes back still stopping at N; a file that says a table
    holds more deals than its round allows is refused, nothing imported."""
    event = make_event(league, 8, rounds=2, length="deals", length_value=2)
    table = EventTable.objects.filter(round__event=event).order_by("number").first()
    record(table.series, [30, 90])
    document = exported()
    wipe()
    history_import(json.loads(document))
    assert Series.objects.get(pk=table.series_id).deal_limit == 2
    assert exported() == document

    record(Series.objects.get(pk=table.series_id), [60, 60])  # the round's two deals
    document = exported()
    for limit, message in ((0, "deal_limit must be a whole number from 1"), (1, "more deals")):
        spoiled = json.loads(document)
        next(s for s in spoiled["series"] if s["id"] == table.series_id)["deal_limit"] = limit
        wipe()
        with pytest.raises(ImportRefused, match=message):
            history_import(spoiled)
        assert counts() == (0,) * 7
