"""The way back into an account that strangers' wrong passwords closed to new browsers (#38):
the lockout page's words, and login links (the operator's ``manage.py login_link``, or one made
on the account page of a browser already logged in)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client

from scoring.accounts import login_links
from scoring.web import logins
from tests.helpers import PASSWORD, csrf_token, logged_in

LOCKED = 429


@pytest.fixture(autouse=True)
def no_earlier_failures(db):
    cache.clear()  # a table that tests on a live server commit to


@pytest.fixture
def no_mail(settings):
    """A site that sends no mail (production without EMAIL_HOST): no reset by e-mail."""
    settings.PASSWORD_RESET_BY_EMAIL = False
    settings.SUPPORT_CONTACT = ""
    return settings


def login(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def page(response) -> str:
    return response.content.decode()


def spread_attack(username: str, networks: int) -> None:
    """A guesser spread over many networks: one wrong password from each, every one checked."""
    for n in range(networks):
        guess = Client(REMOTE_ADDR=f"192.0.2.{n + 1}")
        assert login(guess, username, "wrong").status_code == 422


def operators_link(username: str, *args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    call_command("login_link", username, *args, stdout=out, stderr=err)
    assert "Works once" in err.getvalue()
    return out.getvalue().strip()


def logged_in_as(client: Client) -> str:
    response = client.get("/accounts/")
    return response.context["user"].get_username() if response.status_code == 200 else ""


# The spread attack: the owner's new browser refused, then let in by the operator's link


def test_after_a_spread_attack_the_operators_link_lets_the_owner_in_once(owner, no_mail):
    spread_attack(owner.username, no_mail.LOGIN_FAILURES_PER_ACCOUNT)
    laptop = Client(REMOTE_ADDR="198.51.100.30")
    refused = login(laptop, owner.username, PASSWORD)
    assert refused.status_code == LOCKED
    words = page(refused)
    assert "takes them only from browsers that have logged in to it before" in words
    assert "Ask whoever runs this site for a login link" in words
    assert "Reset your password" not in words  # no mail here: no way that cannot work

    url = operators_link(owner.username, "--site", "https://kozel.example.org")
    path = url.removeprefix("https://kozel.example.org")
    assert re.fullmatch(r"/accounts/login/link/[\w-]+/[\w-]+/", path), url
    opened = laptop.get(path)
    assert opened.status_code == 200
    assert f"Log in as {owner.username}" in page(opened)
    assert logged_in_as(laptop) == ""  # opening the link logs nobody in: only its button does
    pressed = laptop.post(path)
    assert (pressed.status_code, pressed["Location"]) == (302, "/accounts/")
    assert logged_in_as(laptop) == owner.username

    # The browser is known now: its password gets in while strangers keep the account capped.
    laptop.post("/accounts/logout/")
    assert login(laptop, owner.username, PASSWORD).status_code == 302
    # The link worked once.
    again = Client(REMOTE_ADDR="203.0.113.40")
    assert again.get(path).status_code == 200
    assert "expired or was already used" in page(again.get(path))
    assert again.post(path).status_code == 422
    assert logged_in_as(again) == ""


def test_a_link_ends_when_the_owner_logs_in_anywhere_first(owner):
    path = login_links.login_link_path(user=owner)
    assert login(Client(), owner.username, PASSWORD).status_code == 302
    assert Client().post(path).status_code == 422


def test_a_link_ends_with_a_new_password(owner):
    path = login_links.login_link_path(user=owner)
    owner.set_password("a-new-long-secret-91")
    owner.save()
    assert Client().post(path).status_code == 422


def test_a_link_ends_after_the_password_reset_timeout(owner, settings):
    path = login_links.login_link_path(user=owner)
    settings.PASSWORD_RESET_TIMEOUT = -1  # made a second ago, older than allowed
    assert Client().post(path).status_code == 422
    settings.PASSWORD_RESET_TIMEOUT = 60
    assert Client().post(path).status_code == 302


def test_a_link_opens_no_deactivated_account(owner):
    path = login_links.login_link_path(user=owner)
    owner.is_active = False
    owner.save()
    assert Client().post(path).status_code == 422


def test_a_password_reset_token_is_no_login_link_nor_the_reverse(owner):
    from django.contrib.auth.tokens import default_token_generator

    path = login_links.login_link_path(user=owner)
    uidb64 = path.split("/")[-3]
    reset_token = default_token_generator.make_token(owner)
    assert Client().post(f"/accounts/login/link/{uidb64}/{reset_token}/").status_code == 422
    assert not default_token_generator.check_token(owner, path.split("/")[-2])


@pytest.mark.parametrize("uidb64", ["MQ", "", "%C3%28", "OTk5OTk5OTk5OTk5OTk5OTk5OTk5", "_-_"])
def test_a_broken_link_says_it_no_longer_works(owner, uidb64):
    path = f"/accounts/login/link/{uidb64 or 'x'}/abc-123/"
    response = Client().get(path)
    assert response.status_code == 200
    assert "expired or was already used" in page(response)
    assert Client().post(path).status_code == 422


# The operator's command


def test_the_command_names_the_site_from_its_settings(owner, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://kozel.example.org"]
    assert operators_link(owner.username).startswith("https://kozel.example.org/accounts/login/")
    settings.CSRF_TRUSTED_ORIGINS = []
    settings.ALLOWED_HOSTS = [".kozel.example.net"]
    settings.DEBUG = False
    assert operators_link(owner.username).startswith("https://kozel.example.net/accounts/login/")


def test_the_command_refuses_an_unknown_or_deactivated_account(owner):
    with pytest.raises(CommandError, match="did you mean 'olga'"):
        call_command("login_link", "OLGA", stdout=io.StringIO(), stderr=io.StringIO())
    owner.is_active = False
    owner.save()
    with pytest.raises(CommandError, match="deactivated"):
        call_command("login_link", "olga", stdout=io.StringIO(), stderr=io.StringIO())


# A login link made on the account page, for another browser of mine


def test_a_logged_in_browser_makes_a_link_for_another(owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    spread_attack(owner.username, 2)
    phone = logged_in(owner)
    account = page(phone.get("/accounts/"))
    assert "Make a login link" in account
    made = phone.post("/accounts/login/link/?from=x", headers={"Accept-Encoding": "gzip"})
    assert made.status_code == 200
    assert made.headers["Cache-Control"].startswith("max-age=0")
    assert "Content-Encoding" not in made.headers  # a secret beside a query: not compressed
    url = re.search(r'id="login-link" type="text" readonly value="([^"]+)"', page(made))[1]
    assert "<svg" in page(made)  # its QR code, for the other phone's camera
    tablet = Client(REMOTE_ADDR="203.0.113.41")
    assert login(tablet, owner.username, PASSWORD).status_code == LOCKED
    assert tablet.post(url.removeprefix("http://testserver")).status_code == 302
    assert logged_in_as(tablet) == owner.username


def test_only_a_logged_in_post_makes_a_link(owner):
    assert Client().post("/accounts/login/link/")["Location"].startswith("/accounts/login/")
    assert logged_in(owner).get("/accounts/login/link/").status_code == 405


def test_the_link_page_needs_its_csrf_token(owner):
    """The button's form is a real form: a page elsewhere cannot press it for a visitor."""
    path = login_links.login_link_path(user=owner)
    strict = Client(enforce_csrf_checks=True)
    assert strict.post(path).status_code == 403
    token = csrf_token(page(strict.get(path)))
    assert strict.post(path, {"csrfmiddlewaretoken": token}).status_code == 302


# The lockout page's words: every way back this site has


def test_with_mail_the_lockout_page_offers_the_reset_too(owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    spread_attack(owner.username, 2)
    refused = page(login(Client(REMOTE_ADDR="203.0.113.42"), owner.username, PASSWORD))
    assert "the browser that sets the new password gets in at once" in refused
    assert 'href="/accounts/password/reset/"' in refused
    assert "On a phone or computer that has logged in to your account before" in refused
    assert "On its account page, make a login link" in refused


def test_the_lockout_page_names_the_operator_when_the_site_does(owner, no_mail):
    no_mail.SUPPORT_CONTACT = "Olga <olga@example.org>"
    no_mail.LOGIN_FAILURES_PER_ACCOUNT = 2
    spread_attack(owner.username, 2)
    refused = page(login(Client(REMOTE_ADDR="203.0.113.43"), owner.username, PASSWORD))
    assert "Ask the site's operator (Olga &lt;olga@example.org&gt;) for a login link" in refused


def test_the_failure_that_locks_a_network_is_answered_with_the_ways_back(owner, settings):
    attacker = Client(REMOTE_ADDR="203.0.113.44")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(attacker, owner.username, "wrong")
    locked = login(attacker, owner.username, "wrong")  # django-axes' own answer
    assert locked.status_code == LOCKED
    assert "Too many wrong passwords for this account came from your network" in page(locked)
    assert "for a login link" in page(locked)
    assert logins.COOKIE not in locked.cookies
