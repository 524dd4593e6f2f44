"""Stored data: leagues and their members, players, series with their seats, deals, and events.

What is derived from the deals (totals, who is out, the goat, the winner, each seat's deal
figures) is decided by the engine's ``replay`` and stored on ``Series`` and ``Seat`` only so that
list pages, standings and player records can filter and count without replaying;
``services.series_refresh`` rewrites it in the same transaction as every change of a deal, so it
never disagrees with a replay.
"""

from __future__ import annotations

import re
import secrets
import uuid

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring import names
from scoring.modes import SHAPES, Mode
from scoring.rules import DEAL_TOTAL, PRESETS, InvalidRuleset, Ruleset

#: The longest player name, and the longest league name (the columns' lengths).
MAX_NAME = 40
#: The most deals one series holds. A game to 12 is over within a few dozen deals; with eggs
#: that score nothing a series could otherwise run for thousands, each slower to record than the
#: last and its page megabytes long. (Deal numbers in forms are bounded by it too.)
MAX_DEALS = 300
MAX_LEAGUE_NAME = 80
#: The largest primary key (a 64-bit integer) any database here stores: an id beyond it names
#: nothing, and a query with it raises (SQLite's OverflowError) instead of finding nothing.
MAX_ID = 2**63 - 1


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
    #: How far the league's ``RunningTotal`` rows are valid: every finished series up to this
    #: position in the finishing order ``(finished_at, pk)`` has its rows, none after it has
    #: (None, None: none folded yet). ``results_changed`` moves it back before a changed series;
    #: ``running_totals.totals_fold`` folds the series after it (in the same write).
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
    #: What makes two names one player (``scoring.names``): unique in a league; quick-game
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


class Series(models.Model):
    """A series (пулька): seats, frozen house rules and deals, played until a side is the goat."""

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, null=True, blank=True, related_name="series"
    )
    mode = models.CharField(_("mode"), max_length=8, choices=Mode.choices)
    rules = models.JSONField(_("house rules"), default=classic_rules)
    first_dealer = models.PositiveSmallIntegerField(_("first dealer"), default=0)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    rematch_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="rematches"
    )
    # Links: whoever holds the score link may record deals, the watch link only looks.
    score_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    watch_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    # When each link was last renewed: a renewed link is not handed on to the holders of the
    # links of the series this one is a rematch of (``access.followed_link``).
    score_renewed_at = models.DateTimeField(null=True, blank=True)
    watch_renewed_at = models.DateTimeField(null=True, blank=True)

    # Derived by the engine's replay, rewritten with every change of a deal.
    deal_count = models.PositiveIntegerField(default=0)
    totals = models.JSONField(default=list)
    finished = models.BooleanField(default=False, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    goat_sides = models.JSONField(default=list)
    eggs = models.PositiveIntegerField(default=0)
    multiplier = models.PositiveIntegerField(default=1)
    # Grows with every change; a cheap "has anything changed?" for live views and forms.
    version = models.PositiveIntegerField(default=0)
    # A club night's round of N deals: the table takes no deal after the Nth (None: no limit
    # but MAX_DEALS). Fixed when the series starts.
    deal_limit = models.PositiveSmallIntegerField(null=True, blank=True)
    # A club night's round of N minutes: when its time is up (the deal being played then is
    # still recorded, then the table closes).
    closes_at = models.DateTimeField(null=True, blank=True)
    # When the table closed (its round finished, its deal limit or its time reached): it takes
    # no deal, edit, undo or put-back; only an organiser corrects a deal, on the record.
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = _("series")
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["league", "-created_at"], name="series_league_recent"),
            # The standings take in the series finished since their stored tally.
            models.Index(fields=["league", "finished_at"], name="series_league_finished"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(mode__in=Mode.values), name="series_mode_known"),
            models.CheckConstraint(condition=Q(first_dealer__lt=4), name="series_dealer_seat"),
        ]

    def __str__(self) -> str:
        return f"Series {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("series_detail", args=[self.pk])

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_dict(self.rules)

    @property
    def shape(self):
        return SHAPES[self.mode]


class Seat(models.Model):
    """A player's place at the table in one series; seats are numbered clockwise from 0."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.PositiveSmallIntegerField()
    side = models.PositiveSmallIntegerField()
    # Derived from the series' replay, for standings and filters.
    total = models.PositiveIntegerField(default=0)
    is_goat = models.BooleanField(default=False)
    is_winner = models.BooleanField(default=False)
    # The side's deal-level figures (``rules.side_tallies``), so a player's record adds them up
    # with SQL instead of replaying every deal the player has played.
    deals_played = models.PositiveIntegerField(default=0)
    deals_won = models.PositiveIntegerField(default=0)
    deals_lost = models.PositiveIntegerField(default=0)
    deals_naked = models.PositiveIntegerField(default=0)
    deals_eggs = models.PositiveIntegerField(default=0)
    narrow_saves = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["series", "position"]
        constraints = [
            models.UniqueConstraint(fields=["series", "position"], name="seat_once_per_series"),
            models.UniqueConstraint(fields=["series", "player"], name="player_once_per_series"),
            models.CheckConstraint(condition=Q(position__lt=4), name="seat_position_range"),
            models.CheckConstraint(condition=Q(side__lt=3), name="seat_side_range"),
        ]

    def __str__(self) -> str:
        return f"{self.player} at seat {self.position} of {self.series_id}"


def _points_range(name: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{name}__isnull": True}) | Q(**{f"{name}__gte": 0, f"{name}__lte": 120}),
        name=f"deal_{name}_range",
    )


class Deal(models.Model):
    """One deal's card points and trick answers, per original side (None for a side that is out)."""

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    points_0 = models.PositiveSmallIntegerField(null=True)
    points_1 = models.PositiveSmallIntegerField(null=True)
    points_2 = models.PositiveSmallIntegerField(null=True)
    tricks_0 = models.BooleanField(null=True)
    tricks_1 = models.BooleanField(null=True)
    tricks_2 = models.BooleanField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The one-time key of the form that recorded it: a replayed submission finds this deal.
    entry_key = models.UUIDField(null=True, blank=True, unique=True)

    class Meta:
        ordering = ["series", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["series", "number"], name="deal_number_once_per_series"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="deal_number_positive"),
            _points_range("points_0"),
            _points_range("points_1"),
            _points_range("points_2"),
            models.CheckConstraint(
                condition=Exact(
                    Coalesce(F("points_0"), 0)
                    + Coalesce(F("points_1"), 0)
                    + Coalesce(F("points_2"), 0),
                    DEAL_TOTAL,
                ),
                name="deal_points_sum_to_120",
            ),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of series {self.series_id}"

    @property
    def points(self) -> tuple[int | None, int | None, int | None]:
        return (self.points_0, self.points_1, self.points_2)

    @property
    def tricks(self) -> tuple[bool | None, bool | None, bool | None]:
        return (self.tricks_0, self.tricks_1, self.tricks_2)


class DealEvent(models.Model):
    """The audit trail: every recorded, edited or removed deal, who did it and when."""

    class Action(models.TextChoices):
        RECORDED = "recorded", _("recorded")
        EDITED = "edited", _("edited")
        REMOVED = "removed", _("removed")

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="events")
    number = models.PositiveIntegerField()
    action = models.CharField(max_length=10, choices=Action.choices)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # How the actor reached the series when there is no account: "score link", "import", ...
    via = models.CharField(max_length=20, blank=True)
    # A removed deal's one-time key: the form that recorded it stays spent, so sending it again
    # (a phone that never saw the undo) does not record the deal a second time.
    entry_key = models.UUIDField(null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["series", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.action} deal {self.number} of series {self.series_id}"


class RunningTotal(models.Model):
    """A player's standings right after one finished series of a league, counted from the first.

    One row per seat of every finished league series, folded in finishing order
    ``(finished_at, series)`` by ``running_totals``: the counts are cumulative over the league's
    series up to and including this one (``played`` … ``naked``), and over those of the same
    ruleset (``rules_played`` …); ``mu``, ``sigma``, ``rated`` are the openskill rating after it.
    Any range of dates costs two index seeks per player: the row at its end minus the row
    before its start.
    """

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


class AccountSettings(models.Model):
    """What an account keeps beside Django's user: the language its pages speak.

    ``language`` is a code of settings.LANGUAGES, or "" before the account picks one (then the
    browser's cookie or Accept-Language decides). Written by ``scoring.languages``.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_settings"
    )
    language = models.CharField(max_length=16, blank=True)

    class Meta:
        verbose_name = verbose_name_plural = _("account settings")

    def __str__(self) -> str:
        return f"Settings of user {self.user_id}"


class LeagueEvent(models.Model):
    """The league's audit trail: who renamed or merged players, archived or restored the league.

    ``data`` keeps what an undo needs (a merge: the merged player as it was and the seats that
    moved). ``undone_at`` marks a merge taken back; the undo is an event of its own too.
    """

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


# --- A club night --------------------------------------------------------------------------------


class Event(models.Model):
    """A club night in a league: present players, rounds seated by a schedule, one leaderboard.

    ``plan`` holds every round's seating (played and to come) as player ids, in
    ``events.seating``'s shape; the rounds started are ``EventRound`` rows, each table a series.
    """

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
    """One table of a round: a normal league series, and how an unfinished one was scored."""

    round = models.ForeignKey(EventRound, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    series = models.OneToOneField(Series, on_delete=models.PROTECT, related_name="event_table")
    # Set when the round was finished before the series: the side the rule made the winner
    # (None: level), by the standing defeat points.
    adjudicated = models.BooleanField(default=False)
    adjudicated_winner = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("club night table")
        verbose_name_plural = _("club night tables")
        ordering = ["round__number", "number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "number"], name="event_table_unique"),
        ]

    def __str__(self) -> str:
        return f"Table {self.number}"


class EventTableLink(models.Model):
    """A table of a club night, for the whole evening: its number and the link its phone keeps
    (the QR code on its printed card). Each round, the link shows that round's game at this
    table (``EventTable``): the phone never scans again."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="table_links")
    number = models.PositiveSmallIntegerField()
    token = models.CharField(max_length=64, unique=True, default=new_token)
    # The game at this table in the newest round started (None: no game at it then), written
    # by ``events.services.round_start``: the phone's poll reads it in one query.
    series = models.ForeignKey(
        Series, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("club night table link")
        verbose_name_plural = _("club night table links")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="event_table_link_unique"),
        ]

    def __str__(self) -> str:
        return f"Table {self.number} of {self.event_id}"

    def get_absolute_url(self) -> str:
        return reverse("table_link", args=[self.token])


# --- Downloads made off the request ---------------------------------------------------------------


def exports_storage() -> Storage:
    """Where finished exports are kept (settings ``STORAGES["exports"]``)."""
    return storages["exports"]


class Export(models.Model):
    """A download made by the task worker, not by the request (``scoring.backup.jobs``).

    Only who asked may have it: ``user``, or with none the browser whose session remembers the
    id. ``scope`` is what the request that asked was allowed to see. The file is there once
    ``finished_at`` is set (written whole first, so it is never a part), and goes with the row
    ``jobs.KEEP`` later.
    """

    class Kind(models.TextChoices):
        HISTORY_JSON = "history-json", _("history as JSON (backup)")
        HISTORY_CSV = "history-csv", _("history as CSV (spreadsheet)")
        ACCOUNT = "account", _("everything about your account")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    #: A digest of the address a request without an account came from: the per-network limit.
    address = models.CharField(max_length=64, blank=True)
    scope = models.JSONField(default=dict)
    #: The finished file's name in ``exports_storage()`` ("" until it is there).
    file = models.CharField(max_length=100, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    failed = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("export")
        verbose_name_plural = _("exports")

    def __str__(self) -> str:
        return f"{self.kind} export {self.pk}"
