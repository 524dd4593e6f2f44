"""A club night: its rounds and the games its tables play in each (the tables themselves, with
the links their phones keep all evening, are ``Table``s)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring.models.leagues import MAX_LEAGUE_NAME, League, classic_rules
from scoring.models.series import Series
from scoring.rules import Ruleset

#: The big screen's code: six characters a remote can type, none that reads as another (no
#: 0/O, 1/I/L); 31**6, about 887 million codes, and wrong guesses are limited per network.
TV_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
TV_CODE_LENGTH = 6


class Event(models.Model):
    """A club night in a league: present players, rounds seated by ``plan`` (every round's tables
    as player ids, ``events.seating``'s shape), one leaderboard."""

    class Length(models.TextChoices):
        GOAT = "goat", _("To the goat")
        DEALS = "deals", _("A number of deals")
        MINUTES = "minutes", _("A number of minutes (the deal in progress is finished)")

    class TieBreak(models.TextChoices):
        DIFFERENCE = "difference", _("Defeat points for minus against")
        AGAINST = "against", _("Fewest defeat points against")
        FOR = "for", _("Most defeat points for")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="events")
    name = models.CharField(_("name"), max_length=MAX_LEAGUE_NAME)
    rules = models.JSONField(_("house rules"), default=classic_rules)
    rounds = models.PositiveSmallIntegerField(_("rounds"))
    length = models.CharField(_("round length"), max_length=8, choices=Length.choices)
    length_value = models.PositiveSmallIntegerField(null=True, blank=True)
    three_player_tables = models.BooleanField(default=False)
    tie_break = models.CharField(
        _("tie-break"), max_length=12, choices=TieBreak.choices, default=TieBreak.DIFFERENCE
    )
    seed = models.PositiveIntegerField(default=0)
    present = models.JSONField(default=list)  # player ids
    plan = models.JSONField(default=list)
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    # The big screen's short code: typed on a TV's remote at /tv/, it opens the public big
    # screen; made, renewed and ended with the public link (``events.services``).
    tv_code = models.CharField(max_length=TV_CODE_LENGTH, unique=True, null=True, blank=True)
    # The seating's number: grows whenever rounds are seated again or a substitute takes a seat,
    # and is printed on the table cards, so a card printed before says it is out of date.
    seating = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Grows with every change an organiser makes; the leaderboard's "anything new?".
    version = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("club night")
        verbose_name_plural = _("club nights")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(length__in=["goat", "deals", "minutes"]), name="event_length_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("event_detail", args=[self.league_id, self.pk])

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_dict(self.rules)


class EventRound(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="played_rounds", verbose_name=_("club night")
    )
    number = models.PositiveSmallIntegerField()
    out = models.JSONField(default=list)  # player ids sitting out
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("club night round")
        verbose_name_plural = _("club night rounds")
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="event_round_unique"),
        ]

    def __str__(self) -> str:
        return f"Round {self.number}"


class EventTable(models.Model):
    """One table of a round: a normal league series (how it ended and who won it are on the
    series, ``Series.ending``)."""

    round = models.ForeignKey(EventRound, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    series = models.OneToOneField(Series, on_delete=models.PROTECT, related_name="event_table")

    class Meta:
        verbose_name = _("club night table")
        verbose_name_plural = _("club night tables")
        ordering = ["round__number", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="event_table_unique"),
        ]

    def __str__(self) -> str:
        return f"Table {self.number}"
