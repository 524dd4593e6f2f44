"""Every POST form on every page, submitted in a real browser by each account that may use it.

PAGES lists the pages and, for each, the accounts that use it and the forms it must offer them.
The crawler opens each page as each of its accounts, finds every ``form[method=post]`` on it (each
submit button of a form apart), fills it with valid values and submits it. A form nobody listed
is submitted all the same, so a new form on a listed page is exercised without touching this
file; one that needs more than the generic filling (an empty field filled, the page's own
choices kept) answers 422 and fails here until it gets a filler.

Every submission of a page's own forms starts from a fresh world (league, games, links made
again) and a freshly set-up browser (cookies cleared; a session made by Django, logged in and
holding the account's links), so no form sees another's effect: leaving a league or renewing a
link hides nothing that comes after it. The forms of every page, the language switch and logging
out, come last. Each account has its own browser context, as each person has their own phone.

A submission fails the test when the form's answer or the page it leads to is a 4xx or 5xx the
test did not announce (``refused_on_purpose``: the only owner leaving), or the browser reports an
error. Phone viewport only: the forms are the same at every width (test_browser_pages covers the
layouts), and one run already takes a while.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import resolve, reverse

from scoring.web.sessions import SESSION_STARTED
from tests.browser.browsing import PHONE, Tab
from tests.browser.every_form import (
    ACCOUNTS,
    BACKEND,
    FILLERS,
    LEAGUE_OWNER_FORMS,
    PAGES,
    POST_FORMS,
    SUBMITS,
    SUBMITTERS,
    Page,
    World,
    click,
    fill_generic,
    refused_on_purpose,
    user,
)
from tests.helpers import make_user, run_tasks

pytestmark = pytest.mark.browser


@pytest.fixture
def width() -> int:
    """This test runs at phone size only (the shared fixture runs every test at two sizes)."""
    return PHONE


# The crawler -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Submission:
    """One submit button of one form, found again on the same page of another world by the
    form's URL name, its place among the page's forms of that name, and the button's place."""

    url_name: str
    nth: int
    button: int


def post_forms(tab: Tab) -> list[tuple[str, str, int, bool]]:
    """(URL name, action path, submit buttons, sent by htmx) of each POST form, in page order."""
    found = tab.page.eval_on_selector_all(
        POST_FORMS,
        """(forms, submits) => forms.map(form => [
             form.action,
             // The language picker's list is its submitter once the script runs.
             form.querySelectorAll(submits).length
               || (form.hasAttribute("data-language-picker") ? 1 : 0),
             form.hasAttribute("hx-post")])""",
        SUBMITS,
    )
    return [
        (resolve(urlsplit(action).path).url_name, urlsplit(action).path, buttons, htmx)
        for action, buttons, htmx in found
    ]


def submissions(forms: list[tuple[str, str, int, bool]]) -> list[Submission]:
    seen: dict[str, int] = {}
    result = []
    for url_name, _path, buttons, _htmx in forms:
        nth = seen.get(url_name, 0)
        seen[url_name] = nth + 1
        result.extend(Submission(url_name, nth, button) for button in range(buttons))
    return result


# The forms of every page (base.html), submitted after the page's own, in this order.
LAST = {"set_language": 1, "logout": 2}


class Crawler:
    def __init__(self, tabs: dict[str, Tab]) -> None:
        self.tabs = tabs
        self.failures: list[str] = []
        self.submitted: set[str] = set()
        self.count = 0
        self._last: dict[str, str] = {}  # account -> its last submission, for late problems

    def open(self, page: Page, account_name: str, world: World) -> None:
        """This account's phone set up afresh (cookies, login, links held) and on the page.

        The session is made by Django's test client (logged in, the links opened) and handed
        to the browser as its cookie: the login form and the links have their own submissions.
        """
        tab, account = self.tabs[account_name], ACCOUNTS[account_name]
        self.collect(account_name)
        # Off the last page first: a poll of it still in flight would otherwise answer after
        # the cookies are cleared and set its CSRF cookie again over the new page's.
        tab.page.goto("about:blank")
        tab.context.clear_cookies()
        client = Client()
        if account.username:
            client.force_login(user(account.username), backend=BACKEND)
        for series in account.holds(world):
            client.post(reverse("table_link", args=[series.table.score_token]))
        if account.started(world):
            session = client.session
            session[SESSION_STARTED] = [series.table_id for series in account.started(world)]
            session.save()
        if settings.SESSION_COOKIE_NAME in client.cookies:
            cookie = client.cookies[settings.SESSION_COOKIE_NAME]
            tab.context.add_cookies(
                [{"name": cookie.key, "value": cookie.value, "url": tab.url("/")}]
            )
        tab.goto(page.path(world))

    def collect(self, account_name: str) -> None:
        """What the browser reported late (a console line after the page loaded) goes to the
        submission before it."""
        tab = self.tabs[account_name]
        if tab.problems:
            where = self._last.get(account_name, f"before any submission as {account_name}")
            self.failures.extend(f"{where}: {problem}" for problem in tab.problems)
            tab.problems.clear()

    def visit(self, page: Page, account_name: str) -> None:
        account = ACCOUNTS[account_name]
        world = World()
        self.open(page, account_name, world)
        found = submissions(post_forms(self.tabs[account_name]))
        wanted = page.forms[account_name] | {"set_language"}
        if account.username:
            wanted.add("logout")
        missing = wanted - {submission.url_name for submission in found}
        if missing:
            self.failures.append(
                f"{page.name} as {account_name}: no form for {', '.join(sorted(missing))}"
            )
        # The page's own forms first, in page order, each in a fresh world; then the language
        # switch, which changes nothing but a cookie: the same page is loaded again, now in the
        # other language, and logging out comes last.
        found.sort(key=lambda submission: LAST.get(submission.url_name, 0))
        for number, submission in enumerate(found):
            if number and found[number - 1].url_name == "set_language":
                self.tabs[account_name].goto(page.path(world))
            elif number:
                world = World()
                self.open(page, account_name, world)
            self.submit(page, account_name, submission)
        self.collect(account_name)

    def submit(self, page: Page, account_name: str, submission: Submission) -> None:
        tab, account = self.tabs[account_name], ACCOUNTS[account_name]
        forms = post_forms(tab)
        places = [n for n, form in enumerate(forms) if form[0] == submission.url_name]
        where = f"{page.name} as {account_name}: {submission.url_name} form"
        if len(places) <= submission.nth:
            self.failures.append(f"{where}: not on the page in a fresh world")
            return
        place = places[submission.nth]
        url_name, path, _buttons, htmx = forms[place]
        form = tab.page.locator(POST_FORMS).nth(place)
        button = form.locator(SUBMITS).nth(submission.button)
        if url_name == "set_language" and not button.count():
            button = form.locator("select")  # no button once the script runs (pick_language)
            label = "language list"
        else:
            label = button.inner_text().strip() or button.get_attribute("value")
        where += f" ({label!r})"
        self._last[account_name] = where
        # A form folded away (renewing a link, changing names) is unfolded first, as people do.
        form.evaluate("form => { const fold = form.closest('details'); if (fold) fold.open = 1; }")
        FILLERS.get(url_name, fill_generic)(form)
        expected = refused_on_purpose(account, url_name, resolve(path).kwargs)

        def is_the_post(response) -> bool:
            return response.request.method == "POST" and urlsplit(response.url).path == path

        with contextlib.ExitStack() as stack:
            if expected:
                stack.enter_context(tab.expecting(expected))
            with tab.page.expect_response(is_the_post) as answer:
                send = SUBMITTERS.get(url_name, click)
                if htmx:
                    send(form, button)
                else:
                    with tab.page.expect_navigation():
                        send(form, button)
            if htmx:
                tab.page.wait_for_load_state("networkidle")
        status = answer.value.status
        if url_name in EXPORTS:
            run_tasks()  # the worker makes it: the person's next download may be asked for
        self.count += 1
        self.submitted.add(url_name)
        if expected and status != expected:
            self.failures.append(f"{where}: answered {status}, not the announced {expected}")
        elif not expected and status >= 400:
            text = tab.page.locator("body").inner_text().split("\n")
            lines = [line.strip() for line in text if line.strip()]
            self.failures.append(f"{where}: answered {status}: {' / '.join(lines[:4])}")
        self.collect(account_name)


# Forms that must have been submitted somewhere, whatever the pages above turn out to hold.
EVERY_KIND = {
    "league_join",
    "set_language",
    "logout",
    "series_new",
    "series_quick",
    "series_players",
    "deal_record",
    "deal_undo",
    "deal_edit",
    "series_rematch",
    "link_renew",
    "series_move",
    "league_new",
    "league_settings",
    "share_renew",
    "share_revoke",
    "player_link",
    "player_rename",
    "player_merge",
    "merge_undo",
    "league_archive",
    "league_unarchive",
    "league_delete",
    "event_round_finish",
    "event_share_revoke",
    "event_seat",
    "tv",
    *LEAGUE_OWNER_FORMS,
    "signup",
    "login",
    "password_change",
    "password_reset",
    "password_reset_confirm",
}


#: Forms that ask for a download made off the request (one at a time per person).
EXPORTS = {"history_export_json", "history_export_csv", "account_data"}


def test_every_post_form_on_every_page_works_for_whoever_may_use_it(open_tab, exports_storage):
    for username in ("olga", "sergei", "vika", "nina"):
        make_user(username)
    tabs = {name: open_tab() for name in ACCOUNTS}  # one browser context per person
    crawler = Crawler(tabs)
    for page_ in PAGES:
        for account_name in page_.forms:
            crawler.visit(page_, account_name)
    for account_name in ACCOUNTS:
        crawler.collect(account_name)
    if crawler.failures:
        pytest.fail(
            f"{len(crawler.failures)} problems in {crawler.count} submissions:\n"
            + "\n".join(crawler.failures),
            pytrace=False,
        )
    assert crawler.submitted >= EVERY_KIND, EVERY_KIND - crawler.submitted
