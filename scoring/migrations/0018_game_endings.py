"""How a series ended (``Series.ending``), its result stored like a goat's: a club night's table
closed at its limit or by the organiser is ``finished`` with the side of fewer defeat points the
winner (RULES.md, "A game that ends before the goat"), so the league's standings count it as the
evening's leaderboard did. ``EventTable.adjudicated*`` go: the series says how it ended.

Existing rows are brought in line here: every series that ended with a goat gets "goat"; every
closed one its ending (its deal limit, its time, else cut short), ``finished``, ``finished_at``
(when it closed), its winner and its seats' ``is_winner``. The running totals of every league
that had a closed series are started afresh (their rows deleted, their mark reset); the fold
that brings them back runs right after ``migrate`` (``manage.py fold_standings``: the Makefile's
run and serve targets and the deploy guide run it), with today's code, which a migration must
not import (a later schema would break it).
"""

from django.conf import settings
from django.db import migrations, models

ENDINGS = ["goat", "deals", "time", "cut"]


def _standing_winner(totals):
    """As ``scoring.rules.standing_winner`` (a migration keeps its own copy of a rule)."""
    if not totals:
        return None
    fewest = min(totals)
    leaders = [side for side, total in enumerate(totals) if total == fewest]
    return leaders[0] if len(leaders) == 1 else None


def endings_stored(apps, schema_editor):
    Series = apps.get_model("scoring", "Series")
    Seat = apps.get_model("scoring", "Seat")
    Deal = apps.get_model("scoring", "Deal")
    League = apps.get_model("scoring", "League")
    RunningTotal = apps.get_model("scoring", "RunningTotal")
    PairResult = apps.get_model("scoring", "PairResult")
    Series.objects.filter(finished=True).update(ending="goat")
    leagues = set()
    closed = Series.objects.filter(finished=False, closed_at__isnull=False)
    for series in closed.iterator(chunk_size=500):
        if series.deal_limit is not None and series.deal_count >= series.deal_limit:
            ending = "deals"
        else:
            last = (
                Deal.objects.filter(series=series)
                .order_by("-number")
                .values_list("created_at", flat=True)
                .first()
            )
            timed = series.closes_at is not None and last is not None
            ending = "time" if timed and last >= series.closes_at else "cut"
        winner = _standing_winner(series.totals)
        series.ending = ending
        series.finished = True
        series.finished_at = series.closed_at
        series.winner_side = winner
        series.save(update_fields=["ending", "finished", "finished_at", "winner_side"])
        Seat.objects.filter(series=series).update(is_winner=False)
        if winner is not None:
            Seat.objects.filter(series=series, side=winner).update(is_winner=True)
        if series.league_id is not None:
            leagues.add(series.league_id)
    # Their standings start afresh: ``fold_standings`` folds them again after ``migrate``.
    RunningTotal.objects.filter(league_id__in=leagues).delete()
    PairResult.objects.filter(league_id__in=leagues).delete()
    League.objects.filter(pk__in=leagues).update(
        totals_until=None, totals_until_series=None, totals_rulesets=[]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0017_table_link_current_game"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="series",
            name="ending",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "still in play"),
                    ("goat", "played to the goat"),
                    ("deals", "played to its number of deals"),
                    ("time", "played to its time"),
                    ("cut", "cut short by the organiser"),
                ],
                default="",
                max_length=5,
            ),
        ),
        migrations.RunPython(endings_stored, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="series",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("ending__in", ENDINGS), ("finished", True)),
                    models.Q(("ending", ""), ("finished", False)),
                    _connector="OR",
                ),
                name="series_finished_has_ending",
            ),
        ),
        migrations.RemoveField(model_name="eventtable", name="adjudicated"),
        migrations.RemoveField(model_name="eventtable", name="adjudicated_winner"),
    ]
