"""Accounts: sign up, log in and out, change and reset a password, and the failed-login limit."""

from __future__ import annotations

import os
import re

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from kozel_site import settings as project_settings
from tests.helpers import PASSWORD, creator_client, logged_in
from tests.site.test_settings import production

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


@pytest.mark.parametrize("target", ["account", "²", "leagues", "%ED%A0%80"])
def test_a_next_that_is_not_a_path_is_ignored_not_taken_for_a_view_name(db, target):
    """``redirect("²")`` looked for a view named "²": a server error for a signed-in visitor."""
    response = signup(Client(), next_url=target)
    assert response["Location"] == "/accounts/"
    signed_in = Client()
    signed_in.force_login(get_user_model().objects.get(username="nadia"))
    response = signed_in.get(f"/accounts/signup/?next={target}")
    assert (response.status_code, response["Location"]) == (302, "/accounts/")


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


def test_a_network_makes_as_many_accounts_an_hour_as_allowed_and_no_more(db, settings):
    """Regression: twenty sign-ups from one address in minutes were all accepted."""
    assert settings.SIGNUPS_PER_ADDRESS == 10
    made = [
        signup(Client(REMOTE_ADDR=f"2001:db8:5:5::{n + 1}"), username=f"bot{n}").status_code
        for n in range(12)
    ]
    assert made == [302] * 10 + [422] * 2  # one /64 is one network, whatever its addresses
    refused = signup(Client(REMOTE_ADDR="2001:db8:5:5::77"), username="nadia")
    assert "10 accounts were made from your network in the last hour" in refused.content.decode()
    assert 'value="nadia"' in refused.content.decode()  # the form is kept
    assert get_user_model().objects.count() == 10
    assert signup(Client(REMOTE_ADDR="203.0.113.5"), username="nadia").status_code == 302


def test_a_refused_sign_up_form_is_not_counted(db, settings):
    settings.SIGNUPS_PER_ADDRESS = 1
    assert signup(Client(), password="123").status_code == 422
    assert signup(Client()).status_code == 302


def test_the_same_username_cannot_sign_up_twice(owner):
    response = signup(Client(), username=owner.username)
    assert response.status_code == 422
    assert get_user_model().objects.filter(username=owner.username).count() == 1


def test_games_on_this_phone_stay_reachable_after_signing_up(quick_series):
    client = creator_client(quick_series)
    signup(client)
    assert client.get(f"/series/{quick_series.pk}/").status_code == 200
    response = client.get(f"/series/{quick_series.pk}/move/")  # and still this phone's to move
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


# The lockout counts failures per username and client address: behind the TLS proxy the
# connection's address is the proxy's for everybody, so the client's comes from X-Forwarded-For,
# but only when a proxy is trusted to write it (TRUSTED_PROXY_COUNT).

ATTACKER, OWNER_PHONE, PROXY = "203.0.113.9", "198.51.100.7", "10.0.0.2"


def fail_until_locked(client: Client, username: str) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, username, "wrong").status_code == 422
    assert login(client, username, "wrong").status_code == 429  # the last failure allowed
    assert login(client, username, PASSWORD).status_code == 429  # even the right password


def test_without_a_trusted_proxy_x_forwarded_for_cannot_pass_for_the_owner(owner, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    # The attacker claims to be the owner's phone: the claim is ignored.
    attacker = Client(REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=OWNER_PHONE)
    fail_until_locked(attacker, owner.username)
    assert login(Client(REMOTE_ADDR=OWNER_PHONE), owner.username, PASSWORD).status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


def test_behind_a_trusted_proxy_the_owner_is_not_locked_out_by_someone_else(owner, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    # Both come through the proxy; the attacker also writes the owner's address in the header.
    attacker = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=f"{OWNER_PHONE}, {ATTACKER}")
    fail_until_locked(attacker, owner.username)
    phone = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=OWNER_PHONE)
    assert login(phone, owner.username, PASSWORD).status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


def test_behind_a_trusted_proxy_two_clients_are_locked_separately(owner, scorer, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    first = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=ATTACKER)
    second = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=OWNER_PHONE)
    fail_until_locked(first, scorer.username)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(second, scorer.username, "wrong").status_code == 422
    assert login(second, scorer.username, PASSWORD).status_code == 302  # one short: not locked
    assert login(first, scorer.username, PASSWORD).status_code == 429  # still locked


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


# A site that sends no mail (production without EMAIL_HOST) offers no password reset.


@pytest.fixture
def production_mail(monkeypatch, settings):
    """The mail settings production has without a mail server, read from the settings module."""
    values = production(monkeypatch)
    settings.EMAIL_BACKEND = values["EMAIL_BACKEND"]
    settings.PASSWORD_RESET_BY_EMAIL = values["PASSWORD_RESET_BY_EMAIL"]
    settings.SUPPORT_CONTACT = ""
    return settings


def test_without_mail_the_reset_page_says_it_is_not_available(owner, production_mail):
    owner.email = "olga@example.com"
    owner.save()
    client = Client()
    page = client.get("/accounts/password/reset/").content.decode()
    assert "This site sends no e-mail, so a password cannot be reset by e-mail here." in page
    assert "ask whoever runs this site" in page
    assert 'name="email"' not in page and "Send the link" not in page
    response = client.post("/accounts/password/reset/", {"email": "olga@example.com"})
    assert response.status_code == 200
    assert "This site sends no e-mail" in response.content.decode()
    assert mail.outbox == []
    # The login page's "Forgot your password?" leads to that explanation.
    login_page = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password/reset/"' in login_page


def test_without_mail_the_account_page_says_how_to_get_help(owner, production_mail):
    page = logged_in(owner).get("/accounts/").content.decode()
    assert "This site sends no e-mail, so a password cannot be reset by e-mail here." in page
    assert "ask whoever runs this site" in page
    production_mail.SUPPORT_CONTACT = "Olga <olga@example.org>"
    page = logged_in(owner).get("/accounts/").content.decode()
    assert "For help with your account, ask Olga &lt;olga@example.org&gt;." in page
    reset = Client().get("/accounts/password/reset/").content.decode()
    assert "ask Olga &lt;olga@example.org&gt;." in reset


def test_with_mail_the_account_page_says_where_the_reset_link_goes(owner):
    assert "cannot be reset by e-mail" in logged_in(owner).get("/accounts/").content.decode()
    owner.email = "olga@example.com"
    owner.save()
    page = logged_in(owner).get("/accounts/").content.decode()
    assert "sends a link to choose a new one to olga@example.com" in page
    assert "This site sends no e-mail" not in page


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
