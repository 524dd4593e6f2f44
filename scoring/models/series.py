"""A series (пулька): its seats, its deals and their audit trail."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from scoring.core.modes import SHAPES, Mode
from scoring.models.leagues import League, Player, classic_rules
from scoring.rules import DEAL_TOTAL, Ruleset

#: The most deals one series holds. A game to 12 is over within a few dozen deals; with eggs
#: that score nothing a series could otherwise run for thousands, each slower to record than the
#: last and its page megabytes long. (Deal numbers in forms are bounded by it too.)
MAX_DEALS = 300


class Ending(models.TextChoices):
    """How a series ended (``Series.ending``): its goat, or closed before it (RULES.md, "A game
    that ends before the goat"); what each allows is decided in ``table.life``."""

    NONE = "", _("still in play")
    GOAT = "goat", _("played to the goat")
    DEALS = "deals", _("played to its number of deals")
    TIME = "time", _("played to its time")
    CUT_SHORT = "cut", _("cut short by the organiser")

    @property
    def closed(self) -> bool:
        """Closed before its goat: its result is the standing defeat points'."""
        return self in (Ending.DEALS, Ending.TIME, Ending.CUT_SHORT)


def counted(prefix: str = "") -> Q:
    """The series whose result counts wherever results count (the league's standings and
    ratings, head to head, a player's record), for a query on ``prefix``: ended, however
    (``finished``: ``table.life``), with a deal played. A game closed before its first deal (a
    table the organiser's finish found empty) is over but was never played: it counts nowhere,
    as the evening's leaderboard counts only games with a deal."""
    return Q(**{f"{prefix}finished": True, f"{prefix}deal_count__gt": 0})


class Series(models.Model):
    """A series (пулька): seats, frozen house rules and deals, played until a side is the goat or
    until it is closed (a club night's round: its deals, its time, the organiser's finish)."""

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
    # The table it is played at (``Table``): its phones' links show the game it plays now.
    table = models.ForeignKey(
        "scoring.Table", on_delete=models.SET_NULL, null=True, blank=True, related_name="games"
    )

    # Derived by the engine's replay and the series' closing (``table.life``), rewritten with
    # every change of a deal or of its closing. ``finished``: it has a result (``ending`` says
    # how: its goat, or closed before it), which counts wherever results count; ``finished_at``:
    # when it ended; ``winner_side``: who won it (None: still in play, or a tie).
    deal_count = models.PositiveIntegerField(default=0)
    totals = models.JSONField(default=list)
    finished = models.BooleanField(default=False, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    ending = models.CharField(max_length=5, choices=Ending.choices, default="", blank=True)
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
            # A result is what ended it: "finished" and "ending" are one fact, stored twice for
            # the indexes that read "finished".
            models.CheckConstraint(
                condition=Q(finished=True, ending__in=["goat", "deals", "time", "cut"])
                | Q(finished=False, ending=""),
                name="series_finished_has_ending",
            ),
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
        # A club night's substitute took a seat from deal ``number`` on (``before``/``after``:
        # the seat's player then and now, ``events.services.seat_substitute``).
        SUBSTITUTE = "substitute", _("substitute")

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


class DealProposal(models.Model):
    """A deal a phone kept while its game closed (a club night's round ended before it was
    sent): proposed to the organiser, who adds it to the game as a correction or declines it.
    The phone that sent it learns which by its one-time key."""

    class State(models.TextChoices):
        PENDING = "pending", _("waiting for the organiser")
        ACCEPTED = "accepted", _("added by the organiser")
        DECLINED = "declined", _("declined by the organiser")

    series = models.ForeignKey(Series, on_delete=models.CASCADE, related_name="proposals")
    # The deal form's one-time key: sent again, it finds this proposal (and, once accepted, the
    # deal it became, which keeps the key).
    entry_key = models.UUIDField(unique=True)
    number = models.PositiveIntegerField()  # the deal number the phone typed it as
    points = models.JSONField()  # per original side, None for a side out (as Deal's columns)
    tricks = models.JSONField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    deal = models.ForeignKey(
        Deal, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["series", "created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["pending", "accepted", "declined"]),
                name="proposal_state_known",
            ),
        ]

    def __str__(self) -> str:
        return f"Proposed deal {self.number} of series {self.series_id}"
