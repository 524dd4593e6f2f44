"""Failed log-ins capped per network, per account and per browser (scoring.web.logins), without a
stranger being able to lock a person out: the browsers an account knows keep getting in."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from scoring.web import logins
from tests.helpers import PASSWORD, make_user

LOCKED = 429


@pytest.fixture(autouse=True)
def no_earlier_failures(db):
    """Counts start from nothing: the cache is a table that tests on a live server commit to."""
    cache.clear()


def login(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def stranger(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def known_browser(user, address: str = "198.51.100.7") -> Client:
    """The person's own phone: it has logged in to the account before (and logged out)."""
    phone = Client(REMOTE_ADDR=address)
    assert login(phone, user.username, PASSWORD).status_code == 302
    assert phone.post("/accounts/logout/").status_code == 302
    return phone


def page(response) -> str:
    return response.content.decode()


# One network: an IPv6 /64 is one address ---------------------------------------------------


def test_failures_from_seven_addresses_of_one_ipv6_64_lock_the_username_there(owner, settings):
    """Regression: django-axes counted each address apart, so a /64 never locked."""
    assert settings.AXES_FAILURE_LIMIT == 5
    answers = [
        login(stranger(f"2001:db8:1:2::{n:x}"), owner.username, "wrong").status_code
        for n in range(1, 8)
    ]
    assert answers == [422, 422, 422, 422, LOCKED, LOCKED, LOCKED]
    right = login(stranger("2001:db8:1:2:ffff::9"), owner.username, PASSWORD)
    assert right.status_code == LOCKED  # the right password from that /64 waits too
    assert login(stranger("2001:db8:1:3::1"), owner.username, PASSWORD).status_code == 302


def test_failures_from_one_network_at_any_accounts_are_capped(db, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 6
    someone = make_user("zoya")
    for n in range(6):
        assert login(stranger(f"2001:db8:9:9::{n + 1}"), f"guess{n}", "wrong").status_code == 422
    refused = login(stranger("2001:db8:9:9::99"), someone.username, PASSWORD)
    assert refused.status_code == LOCKED
    assert "Too many failed log-ins came from your network" in page(refused)
    assert login(stranger("203.0.113.50"), someone.username, PASSWORD).status_code == 302


def test_ipv4_addresses_are_never_lumped_together(db, settings):
    """Many people share one IPv4 address already (a carrier's NAT, a club's wifi): its
    neighbours are other people."""
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    someone = make_user("zoya")
    for n in range(3):
        login(stranger("203.0.113.9"), f"guess{n}", "wrong")
    assert login(stranger("203.0.113.9"), someone.username, PASSWORD).status_code == LOCKED
    assert login(stranger("203.0.113.10"), someone.username, PASSWORD).status_code == 302


# One account: strangers capped, the person's own browser still gets in ---------------------


def hammer(username: str, times: int) -> None:
    """A guesser spread over ``times`` networks, one wrong password from each."""
    for n in range(times):
        assert login(stranger(f"192.0.2.{n + 1}"), username, "wrong").status_code == 422


def test_the_owners_known_browser_gets_in_while_a_stranger_hammered_the_account(owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 8
    phone = known_browser(owner)
    hammer(owner.username, 8)
    # Now the account takes no password from a browser it does not know, not even the right one:
    refused = login(stranger("203.0.113.77"), owner.username, PASSWORD)
    assert refused.status_code == LOCKED
    assert "only from browsers that have logged in to it before" in page(refused)
    # ... but the owner's phone is one it knows, wherever it is now.
    assert login(phone, owner.username, PASSWORD).status_code == 302
    assert phone.get("/accounts/").status_code == 200


def test_a_known_browser_on_the_strangers_own_network_still_gets_in(owner, settings):
    """The café's wifi: the stranger locked the username at that network (django-axes) and the
    network itself; the owner's phone there is still let in."""
    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    phone = known_browser(owner, address="203.0.113.5")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(stranger("203.0.113.5"), owner.username, "wrong")
    assert login(stranger("203.0.113.5"), owner.username, PASSWORD).status_code == LOCKED
    assert login(phone, owner.username, PASSWORD).status_code == 302


def test_a_known_browsers_own_wrong_passwords_are_capped_like_anyone_elses(owner, settings):
    phone = known_browser(owner)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert login(phone, owner.username, "wrong").status_code == 422
    refused = login(phone, owner.username, PASSWORD)
    assert refused.status_code == LOCKED
    assert "This browser has given too many wrong passwords" in page(refused)
    assert login(stranger("203.0.113.77"), owner.username, PASSWORD).status_code == 302


def test_a_browser_is_known_only_to_the_accounts_it_logged_in_to(owner, scorer, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    scorers_phone = known_browser(scorer)
    hammer(owner.username, 3)
    assert login(scorers_phone, owner.username, PASSWORD).status_code == LOCKED
    assert login(scorers_phone, scorer.username, PASSWORD).status_code == 302


def test_a_forged_or_copied_cookie_is_no_known_browser(owner, scorer, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    phone = known_browser(owner)
    hammer(owner.username, 3)
    signed = phone.cookies[logins.COOKIE].value
    forger = stranger("203.0.113.80")
    browser_id, _colon, rest = signed.partition(":")
    forger.cookies[logins.COOKIE] = f"{browser_id}x:{rest}"  # the signature no longer fits
    assert login(forger, owner.username, PASSWORD).status_code == LOCKED
    other = known_browser(scorer)  # a real cookie of the site, for another account
    assert login(other, owner.username, PASSWORD).status_code == LOCKED


def test_the_browser_that_sets_a_new_password_from_the_mail_is_known(owner, settings, mailoutbox):
    import re

    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    owner.email = "olga@example.com"
    owner.save()
    hammer(owner.username, 3)
    laptop = stranger("203.0.113.60")
    assert login(laptop, owner.username, PASSWORD).status_code == LOCKED
    laptop.post("/accounts/password/reset/", {"email": owner.email})
    link = re.search(r"https?://[^/]+(/accounts/password/reset/\S+/)", mailoutbox[0].body)
    form = laptop.get(link.group(1), follow=True)
    new = "a-new-long-secret-91"
    laptop.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert login(laptop, owner.username, new).status_code == 302


def test_the_locked_out_page_is_in_the_persons_language(owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    hammer(owner.username, 2)
    russian = Client(REMOTE_ADDR="203.0.113.70", HTTP_ACCEPT_LANGUAGE="ru")
    refused = login(russian, owner.username, PASSWORD)
    assert refused.status_code == LOCKED
    assert '<html lang="ru"' in page(refused)
    assert "Too many failed log-ins" not in page(refused)
    assert "Back to log in" not in page(refused)
    # The reason itself, in the person's language.
    assert "поэтому пока в неё пускают только браузеры" in page(refused)


def test_failures_older_than_an_hour_no_longer_count(owner, settings, monkeypatch):
    from scoring.web import throttle

    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    now = 1_800_000_000.0
    monkeypatch.setattr(throttle.time, "time", lambda: now)
    hammer(owner.username, 2)
    assert login(stranger("203.0.113.71"), owner.username, PASSWORD).status_code == LOCKED
    monkeypatch.setattr(throttle.time, "time", lambda: now + throttle.WINDOW + 1)
    assert login(stranger("203.0.113.72"), owner.username, PASSWORD).status_code == 302


# Refused attempts count nowhere (#38, item 7) --------------------------------------------------


def test_a_stranger_hammering_from_one_address_does_not_lock_the_owner_out_elsewhere(owner):
    """21 failed log-ins from one address, 16 of them refused by the lockout there: only the
    ones whose password was checked count towards the account's cap."""
    attacker = stranger("203.0.113.66")
    answers = [login(attacker, owner.username, "wrong").status_code for _ in range(21)]
    assert answers == [422] * 4 + [LOCKED] * 17
    assert login(attacker, owner.username, PASSWORD).status_code == LOCKED  # still, there
    laptop = stranger("198.51.100.20")  # a browser the account does not know, elsewhere
    assert login(laptop, owner.username, PASSWORD).status_code == 302
    assert laptop.get("/accounts/").status_code == 200


def test_attempts_refused_by_the_caps_are_not_counted(owner, settings):
    """A network refused by its own cap piles up nothing at the accounts it names."""
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    settings.LOGIN_FAILURES_PER_ACCOUNT = 5
    for n in range(3):
        login(stranger(f"2001:db8:7:7::{n + 1}"), f"guess{n}", "wrong")
    for n in range(10):  # all refused by the network's cap
        assert login(stranger(f"2001:db8:7:7::{n + 10}"), owner.username, "x").status_code == 429
    assert login(stranger("203.0.113.90"), owner.username, PASSWORD).status_code == 302


def test_the_lockout_is_not_extended_by_attempts_it_refused(owner, settings):
    from axes.models import AccessAttempt

    attacker = stranger("203.0.113.67")
    for _ in range(settings.AXES_FAILURE_LIMIT + 6):
        login(attacker, owner.username, "wrong")
    attempt = AccessAttempt.objects.get(username=owner.username)
    assert attempt.failures_since_start == settings.AXES_FAILURE_LIMIT
