"""Reads for seasons: a league's seasons, the one running today."""

from __future__ import annotations

from datetime import date

from django.shortcuts import get_object_or_404
from django.utils import timezone

from scoring.models import League, Season


def league_seasons(league: League) -> list[Season]:
    """The league's seasons, the newest first (seasons never overlap)."""
    return list(Season.objects.filter(league=league).order_by("-starts_on", "-pk"))


def season_running(seasons: list[Season], today: date | None = None) -> Season | None:
    """The season whose days take in today, if any."""
    today = today or timezone.localdate()
    return next((s for s in seasons if s.starts_on <= today <= s.ends_on), None)


def season_of(league: League, pk: int) -> Season:
    """The league's season ``pk`` with its league (404 for another league's)."""
    return get_object_or_404(Season.objects.select_related("league"), pk=pk, league=league)
