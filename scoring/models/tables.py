"""A table where games are played one after another, and the links its phones keep."""

from __future__ import annotations

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring.models.leagues import new_token


class Table(models.Model):
    """Where games are played one after another: a kitchen table (a game, then its rematches) or
    a club night's table, round after round. Its links show whichever game it plays now, so a
    phone keeps one link all along: the score link scores that game, the watch link watches it.

    Every phone reaches its game this way, whatever the kind of game: the link's token in the
    address is the key (``table.live``: one query, no session), and the rules of the game are
    the series' own (``table.life``)."""

    # The game it plays now (None: no game at this club-night table in the round).
    series = models.ForeignKey(
        "scoring.Series", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # None: revoked; renewing makes a new one, and whoever held the old one is shut out.
    score_token = models.CharField(max_length=64, unique=True, null=True, default=new_token)  # noqa: DJ001
    watch_token = models.CharField(max_length=64, unique=True, null=True, default=new_token)  # noqa: DJ001
    # A club night's table: its evening and number (a kitchen table has neither).
    event = models.ForeignKey(
        "scoring.Event", on_delete=models.CASCADE, null=True, blank=True, related_name="tables"
    )
    number = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["event", "number", "pk"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="table_event_number_unique"),
        ]

    def __str__(self) -> str:
        if self.event_id is None:
            return f"Table {self.pk}"
        return f"Table {self.number} of {self.event_id}"

    def get_absolute_url(self) -> str:
        """The table's page through its score link (only for a link that is not revoked)."""
        return reverse("table_link", args=[self.score_token])
