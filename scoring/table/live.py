"""What a table's phones poll: the version of what its page shows, asked every 2 s by every phone
of every table (a kitchen table's, a league game's, a club night's), so it costs one query keyed
by the link's token and reads no session.

A table's page shows the game it plays now (``Table.series``), and at a club night the evening
around it, so its version names all three: the evening's version (a round started or finished),
the game (a rematch, the next round's game) and the game's version (a deal).
"""

from __future__ import annotations

from django.db import connection

from scoring.models import Event, Series, Table


def version_of(event: Event | None, series: Series | None) -> str:
    """The version of a table's page that shows ``series`` (at ``event``'s table, if any)."""
    event_version = 0 if event is None else event.version
    if series is None:
        return f"{event_version}.0.0"
    return f"{event_version}.{series.pk}.{series.version}"


#: The poll's one statement. Written in SQL, it costs a worker 30–90 µs of CPU; built by the ORM,
#: 410–610 µs (7 to 13 times as much, measured again on a busier machine), and it is most of what
#: a club night asks of the server (docs/PERFORMANCE.md, "Statements written in SQL"). The
#: tables' names are the models' documented ``db_table``; the token is a bound parameter.
_TABLE, _EVENT, _SERIES = (m._meta.db_table for m in (Table, Event, Series))
_LIVE = (
    f"SELECT e.version, s.id, s.version FROM {_TABLE} t "
    f"LEFT JOIN {_EVENT} e ON e.id = t.event_id LEFT JOIN {_SERIES} s ON s.id = t.series_id "
    "WHERE t.score_token = %s OR t.watch_token = %s"
)


def live_version(token: str) -> str | None:
    """The version of what the page of the table whose link is ``token`` shows now (one query);
    None for a link that names nothing (renewed, revoked, or never one)."""
    with connection.cursor() as cursor:
        cursor.execute(_LIVE, [token, token])
        found = cursor.fetchone()
    if found is None:
        return None
    event_version, series_id, series_version = found
    if series_id is None:
        return f"{event_version or 0}.0.0"
    return f"{event_version or 0}.{series_id}.{series_version}"
