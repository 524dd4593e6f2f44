"""A removed deal's event keeps the deal's one-time key, so its form stays spent."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0006_player_name_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="dealevent",
            name="entry_key",
            field=models.UUIDField(blank=True, null=True, unique=True),
        ),
    ]
