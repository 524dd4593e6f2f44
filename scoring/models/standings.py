"""The standings' running totals, folded by ``scoring.standings.running_totals``."""

from __future__ import annotations

from django.db import models

from scoring.models.leagues import League, Player
from scoring.models.series import Series


class RunningTotal(models.Model):
    """A player's standings right after one finished series of a league (``running_totals``):
    counts over the league's series up to it (``played`` …) and over its ruleset's
    (``rules_played`` …), and the rating after it. A range costs two index seeks per player."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="+")
    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    rules_key = models.CharField(max_length=120)  # "" for a ruleset that does not parse
    played = models.PositiveIntegerField()
    won = models.PositiveIntegerField()
    goats = models.PositiveIntegerField()
    defeat = models.BigIntegerField()
    eggs = models.PositiveIntegerField()
    naked = models.PositiveIntegerField()
    rules_played = models.PositiveIntegerField()
    rules_won = models.PositiveIntegerField()
    rules_goats = models.PositiveIntegerField()
    rules_defeat = models.BigIntegerField()
    rules_eggs = models.PositiveIntegerField()
    rules_naked = models.PositiveIntegerField()
    mu = models.FloatField(null=True)
    sigma = models.FloatField(null=True)
    rated = models.PositiveIntegerField()
    # The league's series finished so far, and those of this ruleset (the same on every seat).
    league_series = models.PositiveIntegerField()
    rules_series = models.PositiveIntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["player", "finished_at", "series"], name="total_player_order"),
            models.Index(
                fields=["player", "rules_key", "finished_at", "series"], name="total_player_rules"
            ),
            models.Index(fields=["league", "finished_at", "series"], name="total_league_order"),
            models.Index(
                fields=["league", "rules_key", "finished_at", "series"], name="total_league_rules"
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "player"], name="total_once_per_seat"),
        ]

    def __str__(self) -> str:
        return f"Totals of {self.player_id} after {self.series_id}"


class PairResult(models.Model):
    """One partnership's result in one finished two-teams series of a league (``first`` is the
    smaller player id), folded with the ``RunningTotal`` rows: the standings sum them by range."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="+")
    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="+")
    first = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    rules_key = models.CharField(max_length=120)
    won = models.PositiveSmallIntegerField()
    goat = models.PositiveSmallIntegerField()
    defeat = models.IntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["league", "finished_at", "series"], name="pair_league_order"),
            # The standings sum a range's rows per pair from the index alone, already grouped by
            # pair: of any ruleset, or of one.
            models.Index(
                fields=["league", "first", "second", "finished_at", "won", "goat", "defeat"],
                name="pair_league_grouped",
            ),
            models.Index(
                fields=[
                    "league",
                    "rules_key",
                    "first",
                    "second",
                    "finished_at",
                    "won",
                    "goat",
                    "defeat",
                ],
                name="pair_league_rules",
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["series", "first"], name="pair_once_per_series"),
        ]

    def __str__(self) -> str:
        return f"Pair {self.first_id}-{self.second_id} in {self.series_id}"
