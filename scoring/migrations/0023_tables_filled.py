"""Every game gets its table (0022_tables made the schema), and a phone's session the links it held.

Apart from the schema changes before and after it on purpose: these steps create tables and
point series at them, and PostgreSQL refuses to change a table's schema in the transaction that
holds pending foreign-key checks on it ("cannot CREATE INDEX ... because it has pending trigger
events"), so the data moves in a migration (a transaction) of its own.
"""

import secrets

from django.db import migrations


def _token():
    return secrets.token_urlsafe(24)


def tables_forward(apps, schema_editor):
    Table = apps.get_model("scoring", "Table")
    Series = apps.get_model("scoring", "Series")
    EventTable = apps.get_model("scoring", "EventTable")
    for table in Table.objects.filter(watch_token__isnull=True):
        table.watch_token = _token()
        table.save(update_fields=["watch_token"])
    # A club night's games: at their evening's table of their number.
    tables = {(t.event_id, t.number): t.pk for t in Table.objects.all()}
    for game in EventTable.objects.select_related("round"):
        key = (game.round.event_id, game.number)
        if key not in tables:
            tables[key] = Table.objects.create(
                event_id=key[0], number=key[1], score_token=None, watch_token=_token()
            ).pk
        Series.objects.filter(pk=game.series_id).update(table_id=tables[key])
    # Every other game: a table of its own with the game's links.
    batch = []
    for series in Series.objects.filter(table__isnull=True).only(
        "pk", "score_token", "watch_token"
    ):
        batch.append(
            (
                series.pk,
                Table(
                    series_id=series.pk,
                    score_token=series.score_token or _token(),
                    watch_token=series.watch_token or _token(),
                ),
            )
        )
        if len(batch) >= 500:
            _store(Table, Series, batch)
            batch = []
    _store(Table, Series, batch)


def _store(Table, Series, batch):
    made = Table.objects.bulk_create([table for _pk, table in batch])
    for (pk, _table), table in zip(batch, made):
        Series.objects.filter(pk=pk).update(table_id=table.pk)


def sessions_forward(apps, schema_editor):
    """The links a browser held, kept in its session as the tables they are now links of: a
    phone in the middle of a game keeps scoring it."""
    from django.contrib.sessions.backends.db import SessionStore

    Session = apps.get_model("sessions", "Session")
    Table = apps.get_model("scoring", "Table")
    Series = apps.get_model("scoring", "Series")
    store = SessionStore()
    for session in Session.objects.all().iterator():
        data = store.decode(session.session_data)
        old_links = data.pop("series_links", None) or {}
        old_tables = data.pop("table_links", None) or {}
        created = data.pop("series_created", None) or []
        if not (old_links or old_tables or created):
            continue
        tokens = [str(token) for token in old_links.values()] + [str(t) for t in old_tables]
        held = dict(data.get("tables", {}))
        for table in Table.objects.filter(score_token__in=tokens):
            held[table.score_token] = table.pk
        for table in Table.objects.filter(watch_token__in=tokens):
            held[table.watch_token] = table.pk
        data["tables"] = held
        started = Series.objects.filter(pk__in=[int(pk) for pk in created], league__isnull=True)
        data["tables_started"] = sorted(
            set(data.get("tables_started", [])) | set(started.values_list("table_id", flat=True))
        )
        session.session_data = store.encode(data)
        session.save(update_fields=["session_data"])


def tables_backward(apps, schema_editor):
    Series = apps.get_model("scoring", "Series")
    for series in Series.objects.filter(table__isnull=False, table__event__isnull=True).select_related("table"):
        series.score_token = series.table.score_token if series.table.series_id == series.pk else _token()
        series.watch_token = series.table.watch_token if series.table.series_id == series.pk else _token()
        series.save(update_fields=["score_token", "watch_token"])
    for series in Series.objects.filter(score_token__isnull=True):
        series.score_token, series.watch_token = _token(), _token()
        series.save(update_fields=["score_token", "watch_token"])


class Migration(migrations.Migration):
    dependencies = [("scoring", "0022_tables")]

    operations = [
        migrations.RunPython(tables_forward, tables_backward),
        migrations.RunPython(sessions_forward, migrations.RunPython.noop),
    ]
