"""Writes for seasons: start one, change its name, dates and ladder rules, delete it. Each is one
transaction under the league's row lock, so two seasons of a league never overlap (two owners
starting one at once included); a refusal is a ``SeasonError`` and changes nothing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import F
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from scoring.models import League, Season
from scoring.table.access import archived_message


class SeasonError(Exception):
    """A season change that is refused; ``str(error)`` is shown to the owner."""


@dataclass(frozen=True)
class SeasonRules:
    """What a season's form says: its name, its days and its ladder rules."""

    name: str
    starts_on: date
    ends_on: date
    counts: str = Season.Counts.ALL
    best_nights: int | None = None  # None: every night counts
    min_nights: int = 0
    min_games: int = 0


def _checked(league: League, rules: SeasonRules, *, season: Season | None = None) -> League:
    """The league's row locked, once the rules are possible: an open league, no other season
    of it overlapping these days."""
    locked = League.objects.select_for_update().get(pk=league.pk)
    if locked.archived_at is not None:
        raise SeasonError(archived_message())
    if rules.ends_on < rules.starts_on:
        raise SeasonError(_("The season cannot end before it starts."))
    others = Season.objects.filter(
        league=locked, starts_on__lte=rules.ends_on, ends_on__gte=rules.starts_on
    )
    if season is not None:
        others = others.exclude(pk=season.pk)
    other = others.order_by("starts_on").first()
    if other is not None:
        raise SeasonError(
            _("These days overlap the season “%(name)s” (%(start)s – %(end)s).")
            % {
                "name": other.name,
                "start": date_format(other.starts_on, "SHORT_DATE_FORMAT"),
                "end": date_format(other.ends_on, "SHORT_DATE_FORMAT"),
            }
        )
    return locked


def _fields(rules: SeasonRules) -> dict:
    return {
        "name": " ".join(rules.name.split()),
        "starts_on": rules.starts_on,
        "ends_on": rules.ends_on,
        "counts": rules.counts,
        "best_nights": rules.best_nights,
        "min_nights": rules.min_nights,
        "min_games": rules.min_games,
    }


@transaction.atomic
def season_create(*, league: League, rules: SeasonRules, user: User | AnonymousUser) -> Season:
    locked = _checked(league, rules)
    creator = user if isinstance(user, User) else None
    return Season.objects.create(league=locked, created_by=creator, **_fields(rules))


@transaction.atomic
def season_update(*, season: Season, rules: SeasonRules) -> Season:
    """New name, days or ladder rules; the season's version grows (its standings' caches)."""
    _checked(season.league, rules, season=season)
    Season.objects.filter(pk=season.pk).update(version=F("version") + 1, **_fields(rules))
    season.refresh_from_db()
    return season


@transaction.atomic
def season_delete(*, season: Season) -> None:
    """The season goes; its games stay, and count in the all-time standings as before."""
    locked = League.objects.select_for_update().get(pk=season.league_id)
    if locked.archived_at is not None:
        raise SeasonError(archived_message())
    season.delete()
