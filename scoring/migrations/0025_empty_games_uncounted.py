"""A game closed before its first deal (a club night's table the organiser's finish found empty)
counts nowhere (``models.counted``), as the evening's leaderboard never counted it: the league's
standings and ratings had counted it as a series played and tied by its four players.

The running totals of every league holding such a game are started afresh (their rows deleted,
their mark reset); ``manage.py fold_standings``, run right after ``migrate`` (the Makefile's run
and serve targets and the deploy guide run it), folds them again with today's code, which a
migration must not import (0018 did the same).
"""

from django.db import migrations


def totals_restarted(apps, schema_editor):
    Series = apps.get_model("scoring", "Series")
    League = apps.get_model("scoring", "League")
    RunningTotal = apps.get_model("scoring", "RunningTotal")
    PairResult = apps.get_model("scoring", "PairResult")
    empty = Series.objects.filter(finished=True, deal_count=0, league__isnull=False)
    leagues = set(empty.values_list("league_id", flat=True).distinct())
    if not leagues:
        return
    RunningTotal.objects.filter(league_id__in=leagues).delete()
    PairResult.objects.filter(league_id__in=leagues).delete()
    League.objects.filter(pk__in=leagues).update(
        totals_until=None, totals_until_series=None, totals_rulesets=[]
    )


class Migration(migrations.Migration):
    dependencies = [("scoring", "0024_series_links_dropped")]

    operations = [migrations.RunPython(totals_restarted, migrations.RunPython.noop)]
