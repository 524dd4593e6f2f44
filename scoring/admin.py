"""The Django admin, for whoever runs the site (``settings.ADMIN_URL``): read-mostly.

Series, deals, players and the rest are only looked at: their writes go through the services,
which keep totals, standings and the audit trail right. An operator may deactivate an account,
clear locked-out logins (django-axes' admin) and hand a league to another member.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring.leagues import services as league_services
from scoring.models import (
    AccountSettings,
    Deal,
    DealEvent,
    DealProposal,
    Event,
    EventRound,
    EventTable,
    Export,
    League,
    LeagueEvent,
    Membership,
    PairResult,
    Player,
    RunningTotal,
    Season,
    Seat,
    Series,
    Table,
    WorkerPulse,
)
from scoring.table.scoreboard import side_names

admin.site.site_header = gettext_lazy("Kozel: operations")
admin.site.site_title = gettext_lazy("Kozel admin")


class ReadOnly:
    """Looked at, never written: no add, change or delete, whoever asks."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyAdmin(ReadOnly, admin.ModelAdmin):
    pass


class ReadOnlyInline(ReadOnly, admin.TabularInline):
    extra = 0


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = readonly_fields = ("position", "side", "player", "total", "is_goat", "is_winner")


@admin.register(Series)
class SeriesAdmin(ReadOnlyAdmin):
    list_display = ["id", "players", "league", "mode", "deal_count", "finished", "created_at"]
    list_filter = ["finished", "mode"]
    list_select_related = ["league"]
    search_fields = ["seats__player__name"]
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    raw_id_fields = ["table"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Series]:
        # Every row's seats and players in one query, whatever the length of the page.
        seats = Seat.objects.select_related("player").order_by("position")
        return super().get_queryset(request).prefetch_related(Prefetch("seats", queryset=seats))

    @admin.display(description=gettext_lazy("Players"))
    def players(self, series: Series) -> str:
        """Side against side: "Anna & Vera – Boris & Gleb"."""
        return " – ".join(side_names(list(series.seats.all()), series.shape.sides))


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ["id", "series", "position", "player", "total", "is_goat", "is_winner"]
    list_select_related = ["series", "player"]
    raw_id_fields = ["series", "player"]


@admin.register(Deal)
class DealAdmin(ReadOnlyAdmin):
    list_display = ["id", "series", "number", "points_0", "points_1", "points_2", "created_at"]
    list_select_related = ["series"]
    raw_id_fields = ["series", "recorded_by"]


@admin.register(DealEvent)
class DealEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "series", "number", "action", "actor", "via", "created_at"]
    list_filter = ["action"]
    list_select_related = ["series", "actor"]
    raw_id_fields = ["series", "actor"]


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "league", "user", "created_at"]
    list_select_related = ["league", "user"]
    search_fields = ["name", "user__username"]
    raw_id_fields = ["league", "user"]


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin):
    list_display = ["id", "league", "user", "role", "joined_at"]
    list_filter = ["role"]
    list_select_related = ["league", "user"]
    search_fields = ["league__name", "user__username"]


@admin.register(RunningTotal)
class RunningTotalAdmin(ReadOnlyAdmin):
    """The standings' running totals: derived by running_totals, never typed in."""

    list_display = ["id", "league", "player", "series", "finished_at", "played", "won", "goats"]
    list_select_related = ["league", "player", "series"]


@admin.register(PairResult)
class PairResultAdmin(ReadOnlyAdmin):
    list_display = ["id", "league", "series", "first", "second", "won", "goat"]
    list_select_related = ["league", "series", "first", "second"]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """Club nights: their rounds and tables are series, changed only through events.services."""

    list_display = ["id", "league", "name", "created_at"]
    list_select_related = ["league"]


@admin.register(EventRound)
class EventRoundAdmin(ReadOnlyAdmin):
    list_display = ["id", "event", "number"]
    list_select_related = ["event"]


@admin.register(EventTable)
class EventTableAdmin(ReadOnlyAdmin):
    list_display = ["id", "club_night", "round", "number", "series"]
    list_select_related = ["round__event", "series"]

    @admin.display(description=gettext_lazy("club night"))
    def club_night(self, table: EventTable) -> Event:
        return table.round.event


@admin.register(DealProposal)
class DealProposalAdmin(ReadOnlyAdmin):
    """Deals a table's phone proposed after its game closed (decided on the evening's page)."""

    list_display = ["id", "series", "number", "state", "created_at"]
    list_filter = ["state"]
    list_select_related = ["series"]


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    """A table (a kitchen table, a club night's): its game shown, its links' tokens (keys) not."""

    list_display = ["id", "event", "number", "series"]
    list_select_related = ["event", "series"]
    exclude = ["score_token", "watch_token"]


@admin.register(Season)
class SeasonAdmin(ReadOnlyAdmin):
    """A league's seasons and their ladder rules (changed by the league's owner, on its page)."""

    list_display = ["id", "league", "name", "starts_on", "ends_on", "counts", "best_nights"]
    list_select_related = ["league"]


@admin.register(AccountSettings)
class AccountSettingsAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "language"]
    list_select_related = ["user"]


@admin.register(LeagueEvent)
class LeagueEventAdmin(ReadOnlyAdmin):
    list_display = ["id", "league", "action", "actor", "created_at", "undone_at"]
    list_filter = ["action"]
    list_select_related = ["league", "actor"]


@admin.register(Export)
class ExportAdmin(ReadOnlyAdmin):
    """Downloads being made or kept (their tasks, with a failure's traceback, are under Tasks
    Database Backend, django-tasks-db's own admin)."""

    list_display = [
        "pk", "kind", "user", "created_at", "started_at", "finished_at", "size", "worker"
    ]  # fmt: skip
    list_filter = ["kind", "failed"]
    list_select_related = ["user"]


@admin.register(WorkerPulse)
class WorkerPulseAdmin(ReadOnlyAdmin):
    """The task workers ``manage.py task_worker`` runs, and when each was last seen alive."""

    list_display = ["worker", "beat_at"]


class TransferForm(forms.Form):
    membership = forms.TypedChoiceField(label=gettext_lazy("New owner"), coerce=int, choices=[])

    def __init__(self, *args, league: League, **kwargs):
        super().__init__(*args, **kwargs)
        members = Membership.objects.filter(league=league).select_related("user")
        self.fields["membership"].choices = [  # type: ignore[attr-defined]
            (m.pk, f"{m.user.get_username()} ({m.get_role_display()})")
            for m in members.order_by("user__username")
        ]


class MembershipInline(ReadOnlyInline):
    model = Membership
    fields = readonly_fields = ("user", "role", "joined_at")


@admin.register(League)
class LeagueAdmin(ReadOnlyAdmin):
    """Looked at; handed to another member with "Transfer" (a page of its own)."""

    list_display = ["id", "name", "archived_at", "created_at", "transfer_link"]
    search_fields = ["name"]
    exclude = ["invite_token", "share_token"]
    inlines = [MembershipInline]

    @admin.display(description=gettext_lazy("Ownership"))
    def transfer_link(self, league: League) -> str:
        url = reverse("admin:scoring_league_transfer", args=[league.pk])
        return format_html('<a href="{}">{}</a>', url, _("Transfer"))

    def get_urls(self):
        transfer = self.admin_site.admin_view(self.transfer_view)
        return [
            path("<id:pk>/transfer/", transfer, name="scoring_league_transfer"),
            *super().get_urls(),
        ]

    def transfer_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not request.user.is_superuser:
            return HttpResponse(status=403)
        league = get_object_or_404(League, pk=pk)
        form = TransferForm(request.POST or None, league=league)
        status = 200
        if request.method == "POST":
            if form.is_valid():
                successor = league_services.ownership_assign(
                    league=league, membership_id=form.cleaned_data["membership"]
                )
                self.message_user(
                    request,
                    _("%(user)s owns %(league)s now.")
                    % {"user": successor.user.get_username(), "league": league.name},
                    messages.SUCCESS,
                )
                return redirect("admin:scoring_league_changelist")
            status = 422
        context = {
            **self.admin_site.each_context(request),
            "title": _("Transfer %(league)s") % {"league": league.name},
            "league": league,
            "form": form,
            "opts": self.model._meta,
        }
        return render(request, "admin/scoring/league_transfer.html", context, status=status)


admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    """Accounts: changed (deactivated, say) but not deleted here: deleting an account goes
    through ``privacy.account_delete``, which refuses while it alone owns a league."""

    actions = ["deactivate", "reactivate"]
    list_display = ["username", "email", "is_active", "is_staff", "last_login", "date_joined"]

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.action(description=gettext_lazy("Deactivate the chosen accounts (no more logins)"))
    def deactivate(self, request: HttpRequest, queryset) -> None:
        count = queryset.exclude(pk=request.user.pk).update(is_active=False)
        self.message_user(request, _("Accounts deactivated: %(count)d.") % {"count": count})

    @admin.action(description=gettext_lazy("Reactivate the chosen accounts"))
    def reactivate(self, request: HttpRequest, queryset) -> None:
        count = queryset.update(is_active=True)
        self.message_user(request, _("Accounts reactivated: %(count)d.") % {"count": count})
