"""Every game is played at a ``Table`` whose links its phones keep (issue #37).

A club night's table links become its tables (with a watch link of their own); every other
series gets a table of its own, keeping its score and watch links, so every link a phone holds
works as before: 0023 fills the tables, 0024 drops the series' own link fields.
"""

from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):

    dependencies = [
        ("scoring", "0021_export_limits"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="eventtablelink", name="event_table_link_unique"),
        migrations.RenameModel(old_name="EventTableLink", new_name="Table"),
        migrations.RenameField(model_name="table", old_name="token", new_name="score_token"),
        migrations.AlterModelOptions(
            name="table",
            options={
                "ordering": ["event", "number", "pk"],
                "verbose_name": "table",
                "verbose_name_plural": "tables",
            },
        ),
        migrations.AlterField(
            model_name="table",
            name="event",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tables",
                to="scoring.event",
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="number",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="table",
            name="watch_token",
            field=models.CharField(max_length=64, null=True, unique=True),
        ),
        migrations.AddConstraint(
            model_name="table",
            constraint=models.UniqueConstraint(
                fields=("event", "number"), name="table_event_number_unique"
            ),
        ),
        migrations.AddField(
            model_name="series",
            name="table",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="games",
                to="scoring.table",
            ),
        ),
    ]
