"""The series' own link fields go: 0023_tables_filled gave every game a table that keeps them
(apart from it on purpose: see 0023).
"""

import scoring.models.leagues
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("scoring", "0023_tables_filled")]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="watch_token",
            field=models.CharField(
                default=scoring.models.leagues.new_token, max_length=64, null=True, unique=True
            ),
        ),
        migrations.RemoveField(model_name="series", name="score_token"),
        migrations.RemoveField(model_name="series", name="watch_token"),
        migrations.RemoveField(model_name="series", name="score_renewed_at"),
        migrations.RemoveField(model_name="series", name="watch_renewed_at"),
    ]
