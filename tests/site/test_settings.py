"""Settings from the environment: safe development defaults, production values or a loud error."""

from __future__ import annotations

import os
import runpy
import secrets
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

SETTINGS = Path(__file__).resolve().parents[2] / "kozel_site" / "settings.py"
ROOT = SETTINGS.parents[1]
VARIABLES = [
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_COOKIES",
    "LOG_LEVEL",
    "DATABASE_URL",
    "TEST_DATABASE_NAME",
    "STATIC_ROOT",
    "QUICK_GAMES_PER_SESSION",
    "QUICK_GAMES_PER_ADDRESS",
    "SIGNUPS_PER_ADDRESS",
    "LEAGUE_GAMES_PER_ACCOUNT",
    "AXES_FAILURE_LIMIT",
    "LOGIN_FAILURES_PER_ACCOUNT",
    "LOGIN_FAILURES_PER_ADDRESS",
    "TRUSTED_PROXY_COUNT",
    "EMAIL_HOST",
    "EMAIL_BACKEND",
    "SUPPORT_CONTACT",
    "ADMIN_URL",
    "DATABASE_CONNECT_TIMEOUT",
    "DATABASE_PREPARED_STATEMENTS",
    "GUNICORN_THREADS",
    "EXPORTS_ROOT",
    "CONN_MAX_AGE",
    "SQLITE_SYNCHRONOUS",
]
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "kozel.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://kozel.example.org",
}


def load(monkeypatch, **env: str) -> dict:
    """The settings module read afresh with exactly these variables set."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS))


def production(monkeypatch, **env: str) -> dict:
    return load(monkeypatch, **{**PRODUCTION, **env})


def test_development_needs_no_variables(monkeypatch):
    values = load(monkeypatch)
    assert values["DEBUG"] is True
    assert values["SECRET_KEY"]
    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert values["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"


def test_production_is_secure_by_default(monkeypatch):
    values = production(monkeypatch)
    assert values["DEBUG"] is False
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert values["SECURE_HSTS_SECONDS"] == 365 * 24 * 60 * 60
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] and values["SECURE_HSTS_PRELOAD"]
    assert values["SECURE_CONTENT_TYPE_NOSNIFF"] is True
    assert values["SECURE_REFERRER_POLICY"] == "same-origin"
    assert values["X_FRAME_OPTIONS"] == "DENY"
    assert values["ALLOWED_HOSTS"] == ["kozel.example.org"]
    assert values["CSRF_TRUSTED_ORIGINS"] == ["https://kozel.example.org"]
    storage = values["STORAGES"]["staticfiles"]["BACKEND"]
    assert storage == "kozel_site.staticfiles.ManifestStorage"  # WhiteNoise's, hashed


def test_production_values_can_be_tuned(monkeypatch):
    values = production(
        monkeypatch,
        SECURE_HSTS_SECONDS="3600",
        SECURE_HSTS_PRELOAD="no",
        SECURE_SSL_REDIRECT="off",
        SECURE_PROXY_SSL_HEADER="false",
        ALLOWED_HOSTS="a.example.org, b.example.org",
    )
    assert values["SECURE_HSTS_SECONDS"] == 3600
    assert values["SECURE_HSTS_PRELOAD"] is False
    assert values["SECURE_SSL_REDIRECT"] is False
    assert "SECURE_PROXY_SSL_HEADER" not in values
    assert values["ALLOWED_HOSTS"] == ["a.example.org", "b.example.org"]


LIMITS = {
    "QUICK_GAMES_PER_SESSION": 30,
    "QUICK_GAMES_PER_ADDRESS": 100,
    "SIGNUPS_PER_ADDRESS": 10,
    "LEAGUE_GAMES_PER_ACCOUNT": 30,
    "AXES_FAILURE_LIMIT": 5,
    "LOGIN_FAILURES_PER_ACCOUNT": 20,
    "LOGIN_FAILURES_PER_ADDRESS": 30,
}


def test_the_limits_per_hour_can_be_tuned(monkeypatch):
    values = load(monkeypatch)
    assert {name: values[name] for name in LIMITS} == LIMITS
    values = production(monkeypatch, **{name: str(at + 2) for at, name in enumerate(LIMITS)})
    assert [values[name] for name in LIMITS] == list(range(2, 2 + len(LIMITS)))


def test_the_health_check_is_exempt_from_the_https_redirect(monkeypatch):
    values = production(monkeypatch)
    assert values["SECURE_REDIRECT_EXEMPT"] == [r"^healthz$"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SECRET_KEY": ""}, "SECRET_KEY must be set"),
        ({"SECRET_KEY": "dev-only-insecure-key-never-used-when-debug-is-off"}, "development key"),
        ({"SECRET_KEY": "django-insecure-" + "x1y2z3" * 10}, "development key"),
        ({"SECRET_KEY": "short-but-random-Qx81"}, "too weak"),
        ({"SECRET_KEY": "ab" * 40}, "too weak"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS must be set"),
        ({"CSRF_TRUSTED_ORIGINS": "kozel.example.org"}, "CSRF_TRUSTED_ORIGINS takes origins"),
        ({"CSRF_TRUSTED_ORIGINS": "https://kozel.example.org/"}, "CSRF_TRUSTED_ORIGINS"),
        ({"DEBUG": "maybe"}, "DEBUG must be true or false"),
        ({"SECURE_HSTS_SECONDS": "a year"}, "SECURE_HSTS_SECONDS must be a whole number"),
        ({"SECURE_HSTS_SECONDS": "-1"}, "cannot be negative"),
        ({"SECURE_COOKIES": "sometimes"}, "SECURE_COOKIES must be true or false"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be a logging level"),
        ({"QUICK_GAMES_PER_SESSION": "lots"}, "QUICK_GAMES_PER_SESSION must be a whole number"),
        ({"QUICK_GAMES_PER_ADDRESS": "0"}, "QUICK_GAMES_PER_ADDRESS must be 1 or more"),
        ({"SIGNUPS_PER_ADDRESS": "0"}, "SIGNUPS_PER_ADDRESS must be 1 or more"),
        ({"LEAGUE_GAMES_PER_ACCOUNT": "-3"}, "LEAGUE_GAMES_PER_ACCOUNT must be 1 or more"),
        ({"LOGIN_FAILURES_PER_ACCOUNT": "0"}, "LOGIN_FAILURES_PER_ACCOUNT must be 1 or more"),
        ({"LOGIN_FAILURES_PER_ADDRESS": "many"}, "LOGIN_FAILURES_PER_ADDRESS must be a whole"),
        ({"TRUSTED_PROXY_COUNT": "one"}, "TRUSTED_PROXY_COUNT must be a whole number"),
        ({"TRUSTED_PROXY_COUNT": "-1"}, "TRUSTED_PROXY_COUNT cannot be negative"),
        (
            {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"},
            "password-reset links would land in the server's log",
        ),
    ],
)
def test_a_bad_production_value_is_a_loud_error(monkeypatch, env, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        production(monkeypatch, **env)


def test_the_policy_forbids_inline_code_and_eval(monkeypatch):
    directives = production(monkeypatch)["CONTENT_SECURITY_POLICY"]["DIRECTIVES"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["default-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    everything = " ".join(" ".join(sources) for sources in directives.values())
    assert "unsafe" not in everything


def test_sessions_and_the_cache_are_shared_through_the_database(monkeypatch):
    values = production(monkeypatch)
    assert values["SESSION_ENGINE"] == "django.contrib.sessions.backends.db"
    assert values["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"


def test_a_sqlite_test_database_is_a_file_of_its_own(monkeypatch):
    name = load(monkeypatch)["DATABASES"]["default"]["TEST"]["NAME"]
    assert name.endswith(".sqlite3")
    assert str(os.getpid()) in name


def test_the_test_database_name_can_be_chosen(monkeypatch):
    values = load(monkeypatch, TEST_DATABASE_NAME="/tmp/chosen.sqlite3")
    assert values["DATABASES"]["default"]["TEST"]["NAME"] == "/tmp/chosen.sqlite3"


def test_the_client_address_comes_from_the_proxy_only_when_one_is_trusted(monkeypatch):
    assert load(monkeypatch)["TRUSTED_PROXY_COUNT"] == 0  # development: no proxy
    assert production(monkeypatch)["TRUSTED_PROXY_COUNT"] == 1  # behind the TLS proxy
    assert production(monkeypatch, SECURE_PROXY_SSL_HEADER="false")["TRUSTED_PROXY_COUNT"] == 0
    assert production(monkeypatch, TRUSTED_PROXY_COUNT="2")["TRUSTED_PROXY_COUNT"] == 2
    values = production(monkeypatch)
    assert values["AXES_CLIENT_IP_CALLABLE"] == "scoring.web.clients.client_network"
    assert values["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"]]
    assert values["AXES_WHITELIST_CALLABLE"] == "scoring.web.logins.known_browser"


def test_production_without_a_mail_server_sends_no_mail_and_offers_no_reset(monkeypatch):
    values = production(monkeypatch)
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.dummy.EmailBackend"
    assert values["PASSWORD_RESET_BY_EMAIL"] is False


def test_production_with_a_mail_server_sends_reset_links_by_smtp(monkeypatch):
    values = production(monkeypatch, EMAIL_HOST="smtp.example.org", SUPPORT_CONTACT=" Olga ")
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert values["PASSWORD_RESET_BY_EMAIL"] is True
    assert values["SUPPORT_CONTACT"] == "Olga"
    other = production(monkeypatch, EMAIL_BACKEND="anymail.backends.mailgun.EmailBackend")
    assert other["PASSWORD_RESET_BY_EMAIL"] is True


def test_development_prints_mail_to_the_console(monkeypatch):
    values = load(monkeypatch)
    assert values["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert values["PASSWORD_RESET_BY_EMAIL"] is True


def test_log_lines_go_through_the_redacting_formatter(monkeypatch):
    formatter = production(monkeypatch)["LOGGING"]["formatters"]["context"]
    assert formatter["class"] == "scoring.web.middleware.RedactingFormatter"


def test_the_admin_is_at_admin_in_development_and_off_in_production_unless_set(monkeypatch):
    assert load(monkeypatch)["ADMIN_URL"] == "admin/"
    assert production(monkeypatch)["ADMIN_URL"] == ""
    assert production(monkeypatch, ADMIN_URL="/ops-7f3k")["ADMIN_URL"] == "ops-7f3k/"
    assert load(monkeypatch, ADMIN_URL=" ")["ADMIN_URL"] == ""


def test_postgresql_keeps_a_connection_checked_before_each_request_uses_it(monkeypatch):
    url = "postgres://kozel@db.example.org:5432/kozel"
    database = production(monkeypatch, DATABASE_URL=url)["DATABASES"]["default"]
    assert database["CONN_MAX_AGE"] == 60  # kept between requests
    assert database["CONN_HEALTH_CHECKS"] is True  # one a restart broke is replaced
    assert database["OPTIONS"]["connect_timeout"] == 2  # a host that does not answer
    assert "pool" not in database["OPTIONS"]
    waiting = production(monkeypatch, DATABASE_URL=url, DATABASE_CONNECT_TIMEOUT="5")
    assert waiting["DATABASES"]["default"]["OPTIONS"]["connect_timeout"] == 5
    with pytest.raises(ImproperlyConfigured, match="DATABASE_CONNECT_TIMEOUT"):
        production(monkeypatch, DATABASE_URL=url, DATABASE_CONNECT_TIMEOUT="soon")


def test_postgresql_binds_parameters_itself_and_keeps_statements_prepared(monkeypatch):
    url = "postgres://kozel@db.example.org:5432/kozel"
    options = production(monkeypatch, DATABASE_URL=url)["DATABASES"]["default"]["OPTIONS"]
    assert options["server_side_binding"] is True
    assert options["prepare_threshold"] == 5  # psycopg's own: prepared from the sixth run on
    pooler = production(monkeypatch, DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="false")
    options = pooler["DATABASES"]["default"]["OPTIONS"]
    assert "server_side_binding" not in options and "prepare_threshold" not in options
    sqlite = production(monkeypatch)["DATABASES"]["default"]["OPTIONS"]
    assert "server_side_binding" not in sqlite


def test_sqlite_runs_in_wal_mode_for_several_workers(monkeypatch):
    options = production(monkeypatch)["DATABASES"]["default"]["OPTIONS"]
    assert "journal_mode=WAL" in options["init_command"]
    assert "synchronous=NORMAL" in options["init_command"]
    assert options["transaction_mode"] == "IMMEDIATE"
    full = production(monkeypatch, SQLITE_SYNCHRONOUS="full")["DATABASES"]["default"]["OPTIONS"]
    assert "synchronous=FULL" in full["init_command"]
    with pytest.raises(ImproperlyConfigured, match="SQLITE_SYNCHRONOUS"):
        production(monkeypatch, SQLITE_SYNCHRONOUS="off")


def test_make_serve_with_nothing_in_front_believes_no_clients_forwarded_header():
    """`make serve` is gunicorn with no proxy before it (issue #38: 25 failed logins under 25
    claimed X-Forwarded-For addresses never met the per-address lockout): the settings its
    environment makes trust no proxy, neither for the address nor for https."""
    import subprocess

    recipe = subprocess.run(
        ["make", "-n", "serve"], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    start = recipe.index("DEBUG=false")
    assignments = recipe[start : recipe.index(" sh -c ", start)].replace("\\\n", " ")
    probe = (
        "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'kozel_site.settings'; "
        "from django.conf import settings; "
        "print(settings.TRUSTED_PROXY_COUNT, getattr(settings, 'SECURE_PROXY_SSL_HEADER', None))"
    )
    shown = subprocess.run(
        ["bash", "-c", f'{assignments} {sys.executable} -c "{probe}"'],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={key: value for key, value in os.environ.items() if not key.startswith("TRUSTED")},
    ).stdout.split()
    assert shown == ["0", "None"]
