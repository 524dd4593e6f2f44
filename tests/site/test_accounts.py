"""Accounts: sign up, log in and out, change and reset a password, and the failed-login limit."""

from __future__ import annotations

import os
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from kozel_site import settings as project_settings
from tests.helpers import PASSWORD, client_with_link, logged_in

NEW_PASSWORD = "another-long-secret-77"


def signup(client: Client, username="nadia", email="", password=PASSWORD, next_url=""):
    data = {"username": username, "email": email, "password1": password, "password2": password}
    if next_url:
        data["next"] = next_url
    return client.post("/accounts/signup/", data)


def login(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_signing_up_creates_the_account_and_logs_in(db):
    client = Client()
    response = signup(client, email="nadia@example.com")
    assert response.status_code == 302
    user = get_user_model().objects.get(username="nadia")
    assert user.email == "nadia@example.com"
    assert client.get("/accounts/").context["user"] == user


def test_signing_up_returns_to_where_the_visitor_was_going(db):
    response = signup(Client(), next_url="/leagues/new/")
    assert response["Location"] == "/leagues/new/"


def test_signing_up_never_redirects_to_another_site(db):
    response = signup(Client(), next_url="https://evil.example/")
    assert response["Location"] == "/accounts/"


def test_a_refused_sign_up_says_why_and_creates_nobody(db):
    client = Client()
    response = signup(client, password="123")
    assert response.status_code == 422
    assert b"errorlist" in response.content
    mismatch = client.post(
        "/accounts/signup/",
        {"username": "nadia", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert mismatch.status_code == 422
    assert not get_user_model().objects.exists()


def test_the_same_username_cannot_sign_up_twice(owner):
    response = signup(Client(), username=owner.username)
    assert response.status_code == 422
    assert get_user_model().objects.filter(username=owner.username).count() == 1


def test_games_on_this_phone_stay_reachable_after_signing_up(quick_series):
    client = client_with_link(quick_series)
    signup(client)
    response = client.get(f"/series/{quick_series.pk}/move/")
    assert response.status_code == 200
    assert b"You score in no league yet" in response.content


def test_logging_in_and_out(owner):
    client = Client()
    assert login(client, owner.username, PASSWORD).status_code == 302
    assert client.get("/accounts/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/")["Location"] == "/accounts/login/"


def test_a_wrong_password_is_refused_with_422(owner):
    response = login(Client(), owner.username, "wrong")
    assert response.status_code == 422
    assert b"errors" in response.content


def test_repeated_failed_logins_lock_the_account_with_a_clear_message(owner):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, owner.username, "wrong")
    locked = login(client, owner.username, PASSWORD)  # even the right password, for now
    assert locked.status_code == 429
    assert "Too many failed log-ins" in locked.content.decode()
    assert client.get("/accounts/").status_code == 302  # not logged in


def test_a_lockout_is_per_account(owner, scorer):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, owner.username, "wrong")
    assert login(client, scorer.username, PASSWORD).status_code == 302


def test_changing_the_password(owner):
    client = logged_in(owner)
    response = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response["Location"] == "/accounts/password/done/"
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)


def test_a_wrong_old_password_changes_nothing(owner):
    response = logged_in(owner).post(
        "/accounts/password/",
        {"old_password": "nope", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 422
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD)


def test_a_forgotten_password_is_reset_through_an_emailed_link(owner):
    owner.email = "olga@example.com"
    owner.save()
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "olga@example.com"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/accounts/password/reset/\S+/)", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    form = client.get(link.group(1), follow=True)
    assert form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done["Location"] == "/accounts/password/reset/complete/"
    owner.refresh_from_db()
    assert owner.check_password(NEW_PASSWORD)


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same(db):
    response = Client().post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    assert mail.outbox == []


def test_a_used_or_broken_reset_link_says_it_no_longer_works(db):
    response = Client().get("/accounts/password/reset/MQ/set-password/")
    assert response.status_code == 200
    assert b"has expired or was already used" in response.content


def test_email_goes_to_the_console_unless_the_environment_says_otherwise():
    # Tests swap in the memory backend; the project's setting defaults to the console.
    expected = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
    assert expected == project_settings.EMAIL_BACKEND


def test_the_account_page_lists_the_leagues(league, owner):
    html = logged_in(owner).get("/accounts/").content.decode()
    assert "Kitchen table" in html and "Change your password" in html


@pytest.mark.parametrize(
    "url",
    [
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/password/reset/",
        "/accounts/password/reset/sent/",
        "/accounts/password/reset/complete/",
    ],
)
def test_account_pages_open_for_anonymous_visitors(db, url):
    assert Client().get(url).status_code == 200


def test_a_logged_in_visitor_skips_the_login_and_signup_pages(owner):
    client = logged_in(owner)
    assert client.get("/accounts/login/").status_code == 302
    assert client.get("/accounts/signup/").status_code == 302
