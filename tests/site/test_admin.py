"""The operators' admin: every model's pages load, nothing there changes series or deals, and
what it may do (deactivate accounts, clear lockouts, transfer a league) works."""

from __future__ import annotations

import importlib
import re
import uuid
from datetime import date

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import clear_url_caches, reverse

from scoring.accounts import languages
from scoring.backup import jobs, worker
from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.models import Deal, Export, League, Membership, Player, Role
from scoring.seasons import services as season_services
from scoring.seasons.services import SeasonRules
from scoring.table import proposals
from tests.helpers import (
    PASSWORD,
    db_snapshot,
    finished,
    html,
    logged_in,
    make_event,
    make_user,
    query_count,
)

pytestmark = pytest.mark.django_db

#: The models no operator writes in the admin: every model of the app (a new one is read-only
#: unless this test is told otherwise).
READ_ONLY = {
    "series", "seat", "deal", "dealevent", "player", "membership", "league", "leagueevent",
    "runningtotal", "pairresult", "event", "eventround", "eventtable", "table",
    "accountsettings", "export", "dealproposal", "season", "workerpulse",
}  # fmt: skip


def registered_models() -> list:
    """Every model the operators' admin shows (through the admin site's public API)."""
    return [model for model in apps.get_models() if admin.site.is_registered(model)]


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_superuser("root", "root@example.org", "x" * 20)


@pytest.fixture
def world(league, owner):
    """At least one row of every model the admin shows."""
    finished(league, names=("Anna", "Boris"), mode="duel")
    finished(league, names=("Anya", "Vera"), mode="duel")
    players = {p.name: p for p in Player.objects.filter(league=league)}
    league_players.players_merge(
        league=league, source_id=players["Anya"].pk, target_id=players["Anna"].pk, user=owner
    )
    finished(league, names=("Gleb", "Dima", "Egor", "Fima"))  # two teams: a pair's result
    logged_in(owner).get(f"/leagues/{league.pk}/standings/")  # the running totals, folded
    event = make_event(league, 4, rounds=1)  # a club night with its round and table
    event_services.round_finish(event=event)
    table = event.played_rounds.get().tables.get()
    proposals.proposal_send(  # a deal its phone proposed after the round closed
        series_id=table.series_id, number=1, entry_key=uuid.uuid4(), points=(70, 50),
        tricks=None, sides=(0, 1),
    )  # fmt: skip
    season_services.season_create(  # a season, and a preview picture kept for messengers
        league=league,
        rules=SeasonRules(name="Spring", starts_on=date(2025, 3, 1), ends_on=date(2025, 5, 31)),
        user=owner,
    )
    logged_in(owner).get(f"/pictures/series/{table.series_id}/?v=1&lang=en")
    languages.account_language_set(user=owner, language="de")  # an account's settings
    Group.objects.create(name="operators")
    scope = {"leagues": [league.pk], "series": [], "owned": [], "filters": {}, "language": "en"}
    jobs.export_request(kind=Export.Kind.HISTORY_JSON, user=owner, address="", scope=scope)
    worker.pulse_write(worker="host-1-a")  # a task worker's pulse
    common = {"user_agent": "phone", "ip_address": "203.0.113.9", "http_accept": "*/*"}
    AccessAttempt.objects.create(username="vika", failures_since_start=5, **common)
    AccessLog.objects.create(username="vika", **common)
    AccessFailureLog.objects.create(username="vika", **common)
    return league


def test_the_admin_is_at_the_configured_path(operator):
    assert settings.ADMIN_URL == "admin/"  # the development default
    assert reverse("admin:index") == "/admin/"
    assert logged_in(operator).get("/admin/").status_code == 200
    assert logged_in(None).get("/admin/").status_code == 302  # to the admin's login


@pytest.fixture
def admin_at(settings):
    """The site's URLs built again with another ADMIN_URL (they read it once, at import)."""
    import kozel_site.urls

    def build(value: str) -> None:
        settings.ADMIN_URL = value
        importlib.reload(kozel_site.urls)
        clear_url_caches()

    yield build
    build("admin/")


def test_the_admin_moves_with_the_setting_and_is_gone_without_it(operator, admin_at):
    client = logged_in(operator)
    admin_at("ops-7f3k/")
    assert reverse("admin:index") == "/ops-7f3k/"
    assert client.get("/ops-7f3k/").status_code == 200
    assert client.get("/admin/").status_code == 404
    admin_at("")
    assert client.get("/ops-7f3k/").status_code == 404
    assert client.get("/admin/").status_code == 404


def test_every_model_has_a_changelist_and_a_change_page_that_load(world, operator):
    client = logged_in(operator)
    checked = []
    for model in registered_models():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        response = client.get(changelist)
        assert response.status_code == 200, changelist
        instance = model._default_manager.order_by("pk").first()
        assert instance is not None, f"no {opts.label} to show: the fixture makes one of each"
        change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[instance.pk])
        response = client.get(change)
        assert response.status_code == 200, change
        checked.append(opts.label)
    assert {"scoring.Deal", "scoring.Series", "auth.User", "axes.AccessAttempt"} <= set(checked)
    # Every model of the app has its pages (a new model without an admin fails here).
    assert {m._meta.label for m in apps.get_app_config("scoring").get_models()} <= set(checked)
    assert len(checked) >= 13


def test_the_admin_names_each_model_without_a_doubled_plural(world, operator):
    page = html(logged_in(operator).get("/admin/"))
    assert "Account settings" in page and "settingss" not in page
    # Club nights and a league's changes (its audit trail) are not both "events".
    assert "Club nights" in page and "League changes" in page and "League events" not in page
    for model in apps.get_app_config("scoring").get_models():
        opts = model._meta
        if str(opts.verbose_name).endswith("s"):  # Django's default plural would add another
            assert opts.verbose_name_plural != f"{opts.verbose_name}s", opts.label


def test_the_series_list_shows_each_sides_players_and_the_league(world, operator):
    page = html(logged_in(operator).get(reverse("admin:scoring_series_changelist")))
    assert "Gleb &amp; Egor – Dima &amp; Fima" in page  # partners sit opposite
    assert "Anna – Boris" in page
    assert page.count("Kitchen table") >= 4


def test_no_admin_list_costs_more_queries_for_more_rows(world, owner, scorer, operator):
    client = logged_in(operator)
    models = [m for m in registered_models() if m._meta.app_label in ("scoring", "auth")]
    lists = [reverse(f"admin:{m._meta.app_label}_{m._meta.model_name}_changelist") for m in models]
    for url in lists:
        client.get(url)  # what is cached for the process (content types) is read once
    rows = {m: m._default_manager.count() for m in models}
    before = {url: query_count(client, url) for url in lists}

    finished(world, names=("Ivan", "Kira", "Lev", "Mila"))
    finished(world, names=("Nina", "Oleg"), mode="duel")
    finished(None, names=("Pavel", "Rita"), mode="duel")  # a quick game: no league
    players = {p.name: p for p in Player.objects.filter(league=world)}
    league_players.players_merge(
        league=world, source_id=players["Nina"].pk, target_id=players["Ivan"].pk, user=owner
    )
    logged_in(owner).get(f"/leagues/{world.pk}/standings/")
    saturday = make_event(world, 4, rounds=1, name="Saturday night")
    event_services.round_finish(event=saturday)
    table = saturday.played_rounds.get().tables.get()
    proposals.proposal_send(
        series_id=table.series_id, number=1, entry_key=uuid.uuid4(), points=(40, 80),
        tricks=None, sides=(0, 1),
    )  # fmt: skip
    languages.account_language_set(user=scorer, language="ja")
    garden = League.objects.create(name="Garden table")
    Membership.objects.create(league=garden, user=make_user("zoya"), role=Role.OWNER)
    Group.objects.create(name="scorers")
    scope = {"leagues": [world.pk], "series": [], "owned": [], "filters": {}, "language": "en"}
    jobs.export_request(kind=Export.Kind.HISTORY_CSV, user=scorer, address="", scope=scope)
    worker.pulse_write(worker="host-1-b")
    season_services.season_create(
        league=garden,
        rules=SeasonRules(name="Autumn", starts_on=date(2025, 9, 1), ends_on=date(2025, 11, 30)),
        user=owner,
    )
    logged_in(owner).get(f"/pictures/series/{table.series_id}/?v=1&lang=ru")

    assert [m for m, count in rows.items() if m._default_manager.count() <= count] == []
    assert {url: query_count(client, url) for url in lists} == before


def test_no_admin_form_can_change_a_deal_or_a_series(world, operator):
    client = logged_in(operator)
    deal = Deal.objects.order_by("pk").first()
    before = db_snapshot()
    registered = {m._meta.model_name for m in registered_models() if m._meta.app_label == "scoring"}
    assert registered == READ_ONLY
    for name in READ_ONLY:
        model = next(m for m in registered_models() if m._meta.model_name == name)
        model_admin = admin.site.get_model_admin(model)
        request = type("R", (), {"user": operator})()
        assert not model_admin.has_add_permission(request)
        assert not model_admin.has_change_permission(request)
        assert not model_admin.has_delete_permission(request)
    change = reverse("admin:scoring_deal_change", args=[deal.pk])
    page = html(client.get(change))
    assert 'name="points_0"' not in page  # shown, not editable
    posted = client.post(change, {"points_0": "0", "points_1": "120", "number": deal.number})
    assert posted.status_code == 403
    assert client.post(reverse("admin:scoring_deal_delete", args=[deal.pk])).status_code == 403
    assert client.post(reverse("admin:scoring_deal_add"), {"number": 99}).status_code == 403
    bulk = client.post(
        reverse("admin:scoring_series_changelist"),
        {"action": "delete_selected", "_selected_action": [deal.series_id], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    assert db_snapshot() == before
    deal.refresh_from_db()
    assert Deal.objects.get(pk=deal.pk).points == deal.points


def test_an_operator_transfers_a_league(world, operator, scorer):
    client = logged_in(operator)
    url = reverse("admin:scoring_league_transfer", args=[world.pk])
    assert client.get(url).status_code == 200
    membership = Membership.objects.get(league=world, user=scorer)
    assert client.post(url, {"membership": "nobody"}).status_code == 422
    assert client.post(url, {"membership": membership.pk}).status_code == 302
    roles = dict(Membership.objects.filter(league=world).values_list("user__username", "role"))
    assert roles == {"olga": Role.SCORER, "sergei": Role.OWNER, "vika": Role.VIEWER}


def test_an_operator_deactivates_an_account_and_clears_a_lockout(world, operator, viewer):
    client = logged_in(operator)
    theirs = logged_in(viewer)
    assert theirs.get("/accounts/").status_code == 200
    response = client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "deactivate", "_selected_action": [viewer.pk]},
    )
    assert response.status_code == 302
    viewer.refresh_from_db()
    assert not viewer.is_active
    assert theirs.get("/accounts/").status_code == 302  # logged out where they were logged in
    attempt = AccessAttempt.objects.get(username="vika")
    client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )
    assert not AccessAttempt.objects.filter(username="vika").exists()
    # Accounts are not deleted here (privacy.account_delete keeps leagues owned).
    assert client.post(reverse("admin:auth_user_delete", args=[viewer.pk])).status_code == 403
    # A deactivated account no longer logs in (the lockout cleared, its password right).
    login = logged_in(None).post("/accounts/login/", {"username": "vika", "password": PASSWORD})
    assert login.status_code != 302 and "_auth_user_id" not in login.client.session


def test_admin_pages_keep_the_strict_content_security_policy(world, operator):
    client = logged_in(operator)
    for url in (
        "/admin/",
        reverse("admin:scoring_series_changelist"),
        reverse("admin:auth_user_change", args=[operator.pk]),
        reverse("admin:scoring_league_transfer", args=[world.pk]),
    ):
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        page = html(response)
        inline = [m for m in re.findall(r"<script([^>]*)>", page) if "src=" not in m]
        assert inline == [], url
        assert "<style" not in page and ' style="' not in page, url
