"""Players get ``name_key`` (``scoring.core.names``), unique in a league in place of ``LOWER(name)``.

The old constraint folded case with the database's ``LOWER``, which on SQLite knows ASCII
letters only, so a league may already hold players whose names now have one key ("Анна" and
"АННА", or on any database "Straße" and "STRASSE"). They are not merged (which games belong to
whom is for a person to decide): in each league, the first of them by id gets the plain key and
every later one its key kept apart with its id ("strasse\\t#42", ``names.league_keys``), which
no typed name matches. Typing the name then finds the first one.

The keys come from the app's own ``names`` module, not a copy, because they must be exactly what
the app computes when it looks a name up; a change to that rule needs a migration of its own
that recomputes them.
"""

from django.db import migrations, models

import scoring.models
from scoring.core.names import league_keys

BATCH = 500


def fill_keys(apps, schema_editor):
    Player = apps.get_model("scoring", "Player")
    rows = Player.objects.order_by("pk").values_list("pk", "league_id", "name")
    keys = league_keys(rows.iterator(chunk_size=2000))
    pks = sorted(keys)
    for start in range(0, len(pks), BATCH):
        players = list(Player.objects.filter(pk__in=pks[start : start + BATCH]))
        for player in players:
            player.name_key = keys[player.pk]
        Player.objects.bulk_update(players, ["name_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_standings_ledger"),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="name_key",
            field=scoring.models.NameKeyField(editable=False, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="player",
            name="name_key",
            field=scoring.models.NameKeyField(editable=False),
        ),
        migrations.RemoveConstraint(
            model_name="player",
            name="player_name_unique_in_league",
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("league", "name_key"), name="player_key_once_in_league"
            ),
        ),
    ]
