"""Deployment: Django's deploy checks pass under production settings, and every page is sent with
the security headers (a Content-Security-Policy without unsafe-inline or unsafe-eval)."""

from __future__ import annotations

import json
import os
import re
import secrets

import pytest
from django.test import Client

from tests.helpers import client_with_link, manage


def production_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "DJANGO_")) and key not in {"DEBUG", "SECRET_KEY"}
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="kozel.example.org",
        CSRF_TRUSTED_ORIGINS="https://kozel.example.org",
    )
    env.update(extra)
    return env


@pytest.mark.slow  # manage.py in a process of its own
def test_the_deploy_checks_pass_under_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


@pytest.mark.slow  # manage.py in a process of its own
def test_the_deploy_checks_fail_when_https_is_switched_off():
    env = production_env(SECURE_SSL_REDIRECT="false", SECURE_HSTS_SECONDS="0")
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode != 0
    assert "security.W004" in result.stderr and "security.W008" in result.stderr


@pytest.mark.slow  # manage.py in a process of its own
def test_production_refuses_to_start_without_a_secret_key():
    result = manage("check", env=production_env(SECRET_KEY=""))
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


@pytest.fixture
def page(quick_series):
    return client_with_link(quick_series).get(quick_series.get_absolute_url())


def test_pages_are_sent_with_a_strict_content_security_policy(page):
    policy = page["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy


def test_pages_are_sent_with_the_other_security_headers(page):
    assert page["X-Content-Type-Options"] == "nosniff"
    assert page["Referrer-Policy"] == "same-origin"
    assert page["X-Frame-Options"] == "DENY"
    assert page["Cross-Origin-Opener-Policy"] == "same-origin"


def test_errors_are_sent_with_the_policy_too(db):
    response = Client().get("/series/999999/")
    assert response.status_code == 404
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_the_page_has_no_inline_script_style_or_event_handler(page):
    html = page.content.decode()
    # A JSON data block (json_script) is inert: the browser never runs it, the CSP allows it.
    inline = r"<script(?![^>]*\b(?:src=|type=\"application/json\"))[^>]*>"
    assert not re.search(inline, html), "an inline <script>"
    assert not re.search(r"<style\b", html), "an inline <style>"
    assert not re.search(r"\sstyle=", html), "an inline style attribute"
    assert not re.search(r"\s(on[a-z]+|hx-on[:-][a-z:-]*)=", html), "an inline event handler"


def test_htmx_is_told_not_to_eval_nor_to_inject_styles(page):
    match = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", page.content.decode())
    assert match, "base.html configures htmx"
    config = json.loads(match.group(1))
    assert config["allowEval"] is False
    assert config["includeIndicatorStyles"] is False
    assert config["allowScriptTags"] is False


def test_secure_cookies_and_hsts_are_sent_over_https(db, settings, quick_series):
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = settings.SECURE_HSTS_PRELOAD = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client()
    plain = client.get("/")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")
    behind_proxy = client.post(
        f"/tables/{quick_series.table.score_token}/", headers={"X-Forwarded-Proto": "https"}
    )
    assert behind_proxy.status_code == 302
    assert behind_proxy["Strict-Transport-Security"] == (
        "max-age=31536000; includeSubDomains; preload"
    )
    session = behind_proxy.cookies["sessionid"]
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
