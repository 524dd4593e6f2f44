"""A league's seasons with their ladder rules, and the preview pictures made for messengers."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring.models.leagues import MAX_LEAGUE_NAME, League

#: The most nights a season's "best N nights" may name, and the most nights or games its minimum
#: may ask for: far above any club's year, small enough for every database's small integer.
MAX_NIGHTS = 366
MAX_GAMES = 9999


class Season(models.Model):
    """A league's season: from one day to another (both included) and its ladder rules: which
    games count, the best N nights (None: all of them), and what a player needs to be ranked.
    Its standings are read, never stored (``seasons.ladder``)."""

    class Counts(models.TextChoices):
        ALL = "all", _("Every league game")
        NIGHTS = "nights", _("Club nights only")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(_("name"), max_length=MAX_LEAGUE_NAME)
    starts_on = models.DateField(_("from"))
    ends_on = models.DateField(_("to"))
    counts = models.CharField(
        _("games that count"), max_length=8, choices=Counts.choices, default=Counts.ALL
    )
    best_nights = models.PositiveSmallIntegerField(_("best nights that count"), null=True)
    min_nights = models.PositiveSmallIntegerField(_("nights to be ranked"), default=0)
    min_games = models.PositiveSmallIntegerField(_("games to be ranked"), default=0)
    #: Grows with every change of its rules or dates: a version of its standings, for caches.
    version = models.PositiveIntegerField(default=0, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")), name="season_ends_after_start"
            ),
            models.CheckConstraint(
                condition=Q(counts__in=["all", "nights"]), name="season_counts_known"
            ),
            models.CheckConstraint(
                condition=Q(best_nights__isnull=True)
                | Q(best_nights__gte=1, best_nights__lte=MAX_NIGHTS),
                name="season_best_nights_range",
            ),
        ]
        indexes = [models.Index(fields=["league", "starts_on"], name="season_league_start")]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("season_detail", args=[self.league_id, self.pk])
