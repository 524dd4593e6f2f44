"""The database cache's table, made by the migrations that every deployment runs once.

Creating it when an app server starts raced when two servers started at once against one
PostgreSQL (both saw no table, one failed to create it and stopped).
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # Idempotent, and nothing to do when CACHES names no database cache.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0003_seat_tallies")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
