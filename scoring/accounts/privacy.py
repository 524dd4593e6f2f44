"""What the site holds about an account, and deleting it (the privacy laws' rights of access
and erasure).

What an account did stays on the score sheets without it: players keep the name the table
typed; its links from players, series, deals and audit rows, its id in a merge's undo data,
its login records and its downloads go.
"""

from __future__ import annotations

from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from scoring.models import (
    AccountSettings,
    Deal,
    DealEvent,
    Event,
    Export,
    League,
    LeagueEvent,
    Membership,
    Player,
    Role,
    Series,
    exports_storage,
)

#: The version of the document ``personal_data`` writes.
FORMAT = 1


class AccountError(Exception):
    """An account change that is refused; ``str(error)`` is shown."""


def _when(value) -> str | None:
    return value.isoformat() if value is not None else None


def _series(rows) -> list[dict[str, Any]]:
    return [
        {
            "id": series.pk,
            "league": series.league_id,
            "mode": series.mode,
            "created_at": _when(series.created_at),
            "finished": series.finished,
            "players": [seat.player.name for seat in series.seats.all()],
        }
        for series in rows
    ]


def personal_data(user: User) -> dict[str, Any]:
    """Everything the site stores about ``user``, as plain JSON-ready data."""
    memberships = Membership.objects.filter(user=user).select_related("league")
    players = Player.objects.filter(user=user).select_related("league")
    created = (
        Series.objects.filter(created_by=user)
        .select_related("league")
        .prefetch_related("seats__player")
    )
    scored = (
        Series.objects.filter(deals__recorded_by=user)
        .annotate(recorded=Count("deals", filter=Q(deals__recorded_by=user)))
        .order_by("pk")
    )
    deal_events = DealEvent.objects.filter(actor=user).order_by("created_at", "pk")
    league_events = LeagueEvent.objects.filter(actor=user).order_by("created_at", "pk")
    username = user.get_username()
    language = AccountSettings.objects.filter(user=user).values_list("language", flat=True).first()
    nights = Event.objects.filter(created_by=user).order_by("created_at", "pk")
    return {
        "format": FORMAT,
        "account": {
            "id": user.pk,
            "username": username,
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "date_joined": _when(user.date_joined),
            "last_login": _when(user.last_login),
            "is_active": user.is_active,
        },
        "settings": {"language": language or ""},
        "memberships": [
            {
                "league": m.league_id,
                "league_name": m.league.name,
                "role": m.role,
                "joined_at": _when(m.joined_at),
            }
            for m in memberships
        ],
        "players_linked": [
            {"id": p.pk, "name": p.name, "league": p.league_id, "league_name": p.league.name}
            for p in players
            if p.league is not None
        ],
        "leagues_owned": [
            {"id": m.league_id, "name": m.league.name} for m in memberships if m.role == Role.OWNER
        ],
        "series_created": _series(created),
        "club_nights_created": [
            {"id": e.pk, "league": e.league_id, "name": e.name, "created_at": _when(e.created_at)}
            for e in nights
        ],
        "series_scored": [
            {"id": s.pk, "league": s.league_id, "deals_recorded": s.recorded} for s in scored
        ],
        "deal_events": [
            {
                "series": e.series_id,
                "deal": e.number,
                "action": e.action,
                "before": e.before,
                "after": e.after,
                "at": _when(e.created_at),
            }
            for e in deal_events
        ],
        "league_events": [
            {"league": e.league_id, "action": e.action, "data": e.data, "at": _when(e.created_at)}
            for e in league_events
        ],
        "logins": [
            {
                "at": _when(log.attempt_time),
                "logout_at": _when(log.logout_time),
                "ip_address": log.ip_address,
                "user_agent": log.user_agent,
            }
            for log in AccessLog.objects.filter(username=username).order_by("attempt_time")
        ],
        "failed_logins": [
            {"at": _when(log.attempt_time), "ip_address": log.ip_address}
            for log in AccessFailureLog.objects.filter(username=username).order_by("attempt_time")
        ],
        # The failures counted towards a lockout now (what an operator clears in the admin).
        "lockout_counts": [
            {
                "since": _when(attempt.attempt_time),
                "ip_address": attempt.ip_address,
                "user_agent": attempt.user_agent,
                "failures": attempt.failures_since_start,
            }
            for attempt in AccessAttempt.objects.filter(username=username).order_by("pk")
        ],
    }


def owned_alone(user: User) -> list[League]:
    """The leagues ``user`` alone owns: the account cannot go before they are handed over."""
    owned = League.objects.filter(memberships__user=user, memberships__role=Role.OWNER)
    return list(
        owned.annotate(
            owners=Count("memberships", filter=Q(memberships__role=Role.OWNER), distinct=True)
        )
        .filter(owners=1)
        .order_by("name", "pk")
    )


def _files_delete(names: list[str]) -> None:
    for name in names:
        exports_storage().delete(name)


@transaction.atomic
def account_delete(user: User) -> None:
    """End the account's memberships and delete it; refused while it alone owns a league. The
    password is checked by the form."""
    alone = owned_alone(user)
    if alone:
        raise AccountError(
            _(
                "You are the only owner of %(leagues)s. Transfer ownership to another member "
                "(under Members) or delete the league first."
            )
            % {"leagues": ", ".join(league.name for league in alone)}
        )
    username = user.get_username()
    Player.objects.filter(user=user).update(user=None)
    Membership.objects.filter(user=user).delete()
    # Deals and events keep what was done, not by whom.
    Series.objects.filter(created_by=user).update(created_by=None)
    Deal.objects.filter(recorded_by=user).update(recorded_by=None)
    DealEvent.objects.filter(actor=user).update(actor=None)
    LeagueEvent.objects.filter(actor=user).update(actor=None)
    # A merge keeps the merged player's account for its undo: no id of a deleted account stays.
    merges = LeagueEvent.objects.filter(
        action=LeagueEvent.Action.MERGED, data__source__user=user.pk
    )
    for change in merges:
        change.data["source"]["user"] = None
        change.save(update_fields=["data"])
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username=username).delete()
    # Its downloads (its own data among them) go with it: the rows with the account, the files
    # once that is committed.
    files = list(Export.objects.filter(user=user).exclude(file="").values_list("file", flat=True))
    transaction.on_commit(lambda: _files_delete(files))
    user.delete()
