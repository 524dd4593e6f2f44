"""A league, its members, its players and its changes; the limits and tokens every model shares."""

from __future__ import annotations

import re
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring.core import names
from scoring.rules import PRESETS, InvalidRuleset, Ruleset

#: The longest player name, and the longest league name (the columns' lengths).
MAX_NAME = 40
MAX_LEAGUE_NAME = 80


def new_token() -> str:
    """An unguessable token for a link that grants access (about 190 bits)."""
    return secrets.token_urlsafe(24)


def is_token(value: object) -> bool:
    """Whether ``value`` could be a link's token: URL-safe, and at least 128 bits' worth of it (a
    restored backup's tokens are links again; ``new_token`` makes 32 characters)."""
    return isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_-]{22,64}", value) is not None


def classic_rules() -> dict:
    return Ruleset().to_dict()


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    SCORER = "scorer", _("Scorer")
    VIEWER = "viewer", _("Viewer")


class League(models.Model):
    """A club or a group of friends: members, players, series and shared standings."""

    name = models.CharField(_("name"), max_length=MAX_LEAGUE_NAME)
    rules = models.JSONField(_("default house rules"), default=classic_rules)
    invite_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    invite_role = models.CharField(max_length=10, choices=Role.choices, default=Role.SCORER)
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: Bumped by every write that changes a finished series of the league
    #: (``running_totals.results_changed``): a version of its standings, for caches.
    results_version = models.PositiveIntegerField(default=0, editable=False)
    #: How far its ``RunningTotal`` rows go in the finishing order ``(finished_at, pk)`` (None:
    #: none yet): ``results_changed`` moves it back before a changed series, ``totals_fold`` on.
    totals_until = models.DateTimeField(null=True, editable=False)
    totals_until_series = models.PositiveBigIntegerField(null=True, editable=False)
    #: The ruleset keys (``rulesets.ruleset_key``) of the series folded: the standings' filter.
    totals_rulesets = models.JSONField(default=list, editable=False)
    #: When its owner archived it: read-only, hidden from lists, still open by its public link.
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("league_detail", args=[self.pk])

    @property
    def ruleset(self) -> Ruleset:
        """Its default house rules (the classic ones where stored rules no longer parse)."""
        try:
            return Ruleset.from_dict(self.rules)
        except InvalidRuleset:
            return PRESETS["classic"]


class Membership(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["league", "user"], name="membership_once_per_league"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.league} ({self.role})"


class NameKeyField(models.TextField):
    """The ``names.name_key`` of the row's ``name``, worked out whenever the row is written
    (``save`` and ``bulk_create`` alike), so no way of storing a player can leave it out."""

    def pre_save(self, model_instance, add):
        value = names.stored_key(model_instance.name, getattr(model_instance, self.attname))
        setattr(model_instance, self.attname, value)
        return value


class Player(models.Model):
    """Someone at the table; in a league, or (league empty) from a quick game."""

    name = models.CharField(_("name"), max_length=MAX_NAME)
    #: What makes two names one player (``scoring.core.names``): unique in a league; quick-game
    #: players may share one (each browser has its own Anna).
    name_key = NameKeyField(editable=False)
    league = models.ForeignKey(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="players"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="players",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["league", "name_key"], name="player_key_once_in_league"
            ),
            models.CheckConstraint(condition=~Q(name=""), name="player_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("player_detail", args=[self.pk])


class LeagueEvent(models.Model):
    """The league's audit trail: players renamed or merged, the league archived or restored;
    ``data`` keeps what an undo needs, ``undone_at`` marks a merge taken back."""

    class Action(models.TextChoices):
        RENAMED = "renamed", _("player renamed")
        MERGED = "merged", _("players merged")
        UNMERGED = "unmerged", _("merge undone")
        ARCHIVED = "archived", _("league archived")
        UNARCHIVED = "unarchived", _("league restored from the archive")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="changes")
    action = models.CharField(max_length=12, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: What was done, in the words of that moment (names as they were), and the undo's data.
    data = models.JSONField(default=dict)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # "League events" would be taken for club nights (Event), which the admin lists beside.
        verbose_name = _("league change")
        verbose_name_plural = _("league changes")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.action} in league {self.league_id}"
