"""What the database module gives the statements written in SQL (scoring.lib.database): names as
the backend quotes them, datetimes as it stores them, and sequences moved past given ids."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import connection

from scoring.lib import database
from scoring.models import League, Player


def test_a_statement_with_the_quoted_names_and_a_stored_datetime_finds_the_row(db):
    league = League.objects.create(name="Kitchen")
    player = Player.objects.create(name="Anna", league=league)
    column = database.columns(Player)
    moment = datetime(2030, 1, 1, tzinfo=UTC)
    sql = (
        f"SELECT {column['name']} FROM {database.table(Player)} "
        f"WHERE {column['id']} = %s AND {column['created_at']} < %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [player.pk, database.stored_datetime(moment)])
        assert cursor.fetchall() == [("Anna",)]
        cursor.execute(sql, [player.pk, database.stored_datetime(player.created_at)])
        assert cursor.fetchall() == []  # not before its own moment


def test_after_rows_written_with_their_ids_a_new_row_gets_an_id_above_them(db):
    league = League.objects.create(name="Restored", id=900)
    Player.objects.create(name="Anna", league=league, id=700)
    database.sequences_reset([League, Player])
    assert League.objects.create(name="New").pk > 900
    assert Player.objects.create(name="Boris", league=league).pk > 700


def test_a_new_row_gets_an_id_above_one_no_row_has(db):
    league = League.objects.create(name="Merged")
    removed = Player.objects.create(name="Anna", league=league).pk + 40
    database.sequence_past(Player, removed)
    assert Player.objects.create(name="Boris", league=league).pk == removed + 1
