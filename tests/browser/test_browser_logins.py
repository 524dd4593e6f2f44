"""In a real browser: a stranger hammered an account; its owner's phone, which logged in to it
before, still gets in, and a browser the account does not know is told why not and what to do,
in its own language; the way back from a new browser is a login link (#38): made on the phone's
account page, or by the site's operator."""

from __future__ import annotations

import io
import re

from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from playwright.sync_api import expect

from tests.browser.browsing import Tab
from tests.helpers import PASSWORD

LOCKED = 429


def log_in(tab: Tab, username: str, password: str) -> None:
    tab.goto("/accounts/login/")
    form = tab.page.locator("form.account-form")
    form.locator("[name=username]").fill(username)
    form.locator("[name=password]").fill(password)
    with tab.page.expect_navigation():
        form.locator("button[type=submit]").click()


def test_the_owners_phone_gets_in_while_strangers_are_told_why_not(open_tab, owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    cache.clear()  # a table the live server commits to: no failures of an earlier test count
    phone = open_tab()
    log_in(phone, owner.username, PASSWORD)  # the phone the owner always uses
    expect(phone.page.locator("form.logout button")).to_be_visible()
    with phone.page.expect_navigation():
        phone.page.locator("form.logout button").click()

    for n in range(3):  # a guesser, from three networks
        guess = Client(REMOTE_ADDR=f"192.0.2.{n + 1}")
        guess.post("/accounts/login/", {"username": owner.username, "password": "wrong"})

    stranger = open_tab(locale="ru-RU", extra_http_headers={"Accept-Language": "ru"})
    with stranger.expecting(LOCKED):
        log_in(stranger, owner.username, PASSWORD)
    expect(stranger.page.get_by_role("heading", level=1)).to_have_text(
        "Слишком много неудачных входов"
    )
    expect(stranger.page.get_by_role("link", name="Сбросить пароль")).to_be_visible()

    log_in(phone, owner.username, PASSWORD)
    expect(phone.page.locator("form.logout button")).to_be_visible()


def spread_attack(username: str, networks: int) -> None:
    """A guesser spread over many networks, one wrong password from each."""
    for n in range(networks):
        guess = Client(REMOTE_ADDR=f"192.0.2.{n + 1}")
        guess.post("/accounts/login/", {"username": username, "password": "wrong"})


def press_the_links_button(tab: Tab, path: str, username: str) -> None:
    """Open a login link as a person does: its page, then its one button."""
    tab.goto(path)
    expect(tab.page.locator("form.logout button")).to_have_count(0)  # the page alone: nobody
    button = tab.page.get_by_role("button", name=f"Log in as {username}")
    with tab.page.expect_navigation():
        button.click()
    expect(tab.page.get_by_role("heading", level=1)).to_have_text(f"Hello, {username}")
    expect(
        tab.page.get_by_text("This browser can log in to your account from now on")
    ).to_be_visible()


def test_the_phone_makes_a_login_link_that_lets_the_new_laptop_in(open_tab, owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    cache.clear()
    spread_attack(owner.username, 3)
    laptop = open_tab()
    with laptop.expecting(LOCKED):
        log_in(laptop, owner.username, PASSWORD)
    ways = laptop.page.locator("ul.ways-back")
    expect(ways).to_contain_text("On its account page, make a login link and open it here.")
    expect(ways).to_contain_text("the browser that sets the new password gets in at once")

    phone = open_tab()
    phone.login(owner)
    phone.goto("/accounts/")
    with phone.page.expect_navigation():
        phone.page.get_by_role("button", name="Make a login link").click()
    link = phone.page.get_by_role("textbox", name="Login link")
    expect(link).to_have_value(re.compile(r"^http://.+/accounts/login/link/[\w-]+/[\w-]+/$"))
    path = link.input_value().removeprefix(phone.base_url)
    assert path.startswith("/accounts/login/link/"), path
    phone.page.get_by_text("QR code").click()
    expect(phone.page.get_by_label("QR code of the login link")).to_be_visible()

    press_the_links_button(laptop, path, owner.username)
    # The laptop is known now: it logs in with its password while the account stays capped.
    with laptop.page.expect_navigation():
        laptop.page.locator("form.logout button").click()
    log_in(laptop, owner.username, PASSWORD)
    expect(laptop.page.locator("form.logout button")).to_be_visible()


def test_without_mail_the_operators_link_lets_the_owner_in_once(open_tab, owner, settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.PASSWORD_RESET_BY_EMAIL = False
    settings.SUPPORT_CONTACT = ""
    cache.clear()
    spread_attack(owner.username, 3)
    phone = open_tab()  # the owner's new phone: the old one is lost
    with phone.expecting(LOCKED):
        log_in(phone, owner.username, PASSWORD)
    expect(phone.page.get_by_role("alert")).to_contain_text(
        "takes them only from browsers that have logged in to it before"
    )
    ways = phone.page.locator("ul.ways-back")
    expect(ways).to_contain_text("Ask whoever runs this site for a login link")
    expect(ways).not_to_contain_text("Reset your password")

    out = io.StringIO()
    call_command("login_link", owner.username, "--site", phone.base_url, stdout=out,
                 stderr=io.StringIO())  # fmt: skip
    path = out.getvalue().strip().removeprefix(phone.base_url)
    press_the_links_button(phone, path, owner.username)

    again = open_tab()  # the link, forwarded on: it worked once
    again.goto(path)
    expect(again.page.get_by_role("alert")).to_contain_text("expired or was already used")
    expect(again.page.get_by_role("button", name=f"Log in as {owner.username}")).to_have_count(0)
