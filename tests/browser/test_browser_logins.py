"""In a real browser: a stranger hammered an account; its owner's phone, which logged in to it
before, still gets in, and a browser the account does not know is told why not and what to do,
in its own language."""

from __future__ import annotations

from django.core.cache import cache
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
    alert = stranger.page.get_by_role("alert")
    expect(alert).to_contain_text("только браузеры, из которых в него уже входили")
    expect(stranger.page.get_by_role("link", name="Сбросить пароль")).to_be_visible()

    log_in(phone, owner.username, PASSWORD)
    expect(phone.page.locator("form.logout button")).to_be_visible()
