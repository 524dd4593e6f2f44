"""Each seat stores its side's deal-level figures; existing series are replayed to fill them.

The figures come from the rules engine (``scoring.rules``, pure Python), fed with the stored deal
rows the way ``scoring.replays`` feeds it: card points per original side, None for a side that
was out. A series whose rows cannot be replayed (rows no service would write) keeps zeros; the
integrity check (``manage.py check_integrity``) reports it as before.
"""

from django.db import migrations, models

from scoring import rules

#: Sides per game mode, as they were when this migration was written.
SIDES = {"teams": 2, "duel": 2, "three": 3}
FIELDS = ("deals_played", "deals_won", "deals_lost", "deals_naked", "deals_eggs", "narrow_saves")
BATCH = 500


def _tallies(mode, stored_rules, rows):
    """Per side, the six figures of a series whose deal rows are ``rows`` (in order), or None."""
    try:
        running = rules.Series(SIDES[mode], rules=rules.Ruleset.from_dict(stored_rules))
        for points, tricks in rows:
            sides = tuple(side for side in range(3) if points[side] is not None)
            if sides != running.in_play:
                return None  # the row was entered for other sides than the ones in play
            running.add(
                rules.Deal(
                    tuple(points[side] for side in sides),
                    tuple(bool(tricks[side]) for side in sides),
                )
            )
    except (rules.InvalidDeal, rules.InvalidRuleset, KeyError, TypeError, ValueError):
        return None
    return [
        (tally.played, tally.won, tally.lost, tally.naked, tally.eggs, tally.narrow_saves)
        for tally in rules.side_tallies(running.state)
    ]


def fill_tallies(apps, schema_editor):
    Series = apps.get_model("scoring", "Series")
    Seat = apps.get_model("scoring", "Seat")
    Deal = apps.get_model("scoring", "Deal")
    db = schema_editor.connection.alias
    # Series and their deals both in series id order: one pass over each, in step.
    deals = (
        Deal.objects.using(db)
        .order_by("series_id", "number")
        .values_list(
            "series_id", "points_0", "points_1", "points_2", "tricks_0", "tricks_1", "tricks_2"
        )
        .iterator(chunk_size=5000)
    )
    pending = next(deals, None)
    series_rows = list(Series.objects.using(db).order_by("pk").values_list("pk", "mode", "rules"))
    for start in range(0, len(series_rows), BATCH):
        tallies = {}
        for series_id, mode, stored_rules in series_rows[start : start + BATCH]:
            while pending is not None and pending[0] < series_id:
                pending = next(deals, None)
            rows = []
            while pending is not None and pending[0] == series_id:
                rows.append((pending[1:4], pending[4:7]))
                pending = next(deals, None)
            tallies[series_id] = _tallies(mode, stored_rules, rows)
        changed = []
        for seat in Seat.objects.using(db).filter(series_id__in=list(tallies)):
            figures = tallies[seat.series_id]
            if figures is not None and 0 <= seat.side < len(figures):
                for name, value in zip(FIELDS, figures[seat.side], strict=True):
                    setattr(seat, name, value)
                changed.append(seat)
        Seat.objects.using(db).bulk_update(changed, FIELDS, batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0002_leagues"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="deals_played",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="deals_won",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="deals_lost",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="deals_naked",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="deals_eggs",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="narrow_saves",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.RunPython(fill_tallies, migrations.RunPython.noop, elidable=True),
    ]
