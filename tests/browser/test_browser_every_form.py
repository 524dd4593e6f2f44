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
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import resolve, reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Locator

from scoring import rules
from scoring.access import SESSION_CREATED
from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import Event, League, LeagueEvent, Membership, Player, Role, Series
from tests.browser.browsing import PHONE, Tab
from tests.browser.data import finished
from tests.helpers import PASSWORD, make_user, record, run_tasks, start_series

pytestmark = pytest.mark.browser

BACKEND = "django.contrib.auth.backends.ModelBackend"
POST_FORMS = "form[method=post i]"
SUBMITS = "button:not([type=button]):not([type=reset]), input[type=submit]"


@pytest.fixture
def width() -> int:
    """This test runs at phone size only (the shared fixture runs every test at two sizes)."""
    return PHONE


# The world every submission starts from ----------------------------------------------------


class World:
    """What one submission starts from, each part made on first use (a page needs few of them).

    The league: owner olga, scorer sergei, viewer vika, an invite link that makes scorers (the
    one nina follows) and the public link on.
    """

    @cached_property
    def league(self) -> League:
        league = league_services.league_create(name="Thursday club", user=user("olga"))
        for username, role in (("sergei", Role.SCORER), ("vika", Role.VIEWER)):
            league = league_services.invite_renew(league=league, role=role)
            league_services.league_join(token=league.invite_token, user=user(username))
        league = league_services.invite_renew(league=league, role=Role.SCORER)
        return league_services.share_renew(league=league)

    @cached_property
    def live(self) -> Series:
        """A league series in progress, two deals in."""
        return in_play(start_series(names=("Anna", "Boris", "Vera", "Gleb"), league=self.league))

    @cached_property
    def done(self) -> Series:
        """A finished league series."""
        return finished(start_series(names=("Vera", "Gleb", "Dasha", "Egor"), league=self.league))

    @cached_property
    def merged(self) -> LeagueEvent:
        """Anna (of the live series) typed as "Dasha" in the finished one, merged since."""
        self.done  # noqa: B018 (Dasha sits in it)
        self.live  # noqa: B018 (Anna sits in it)
        players = {p.name: p for p in Player.objects.filter(league=self.league)}
        return league_players.players_merge(
            league=self.league,
            source_id=players["Dasha"].pk,
            target_id=players["Anna"].pk,
            user=user("olga"),
        )

    @cached_property
    def archived(self) -> League:
        return league_services.league_archive(league=self.league, user=user("olga"))

    @cached_property
    def event(self) -> Event:
        """A club night of the league, four players, its first round in play."""
        return event_services.event_create(
            league=self.league,
            name="Thursday night",
            players=[],
            names=["Anna", "Boris", "Vera", "Gleb"],
            rounds=2,
            length="goat",
            length_value=None,
            ruleset=rules.PRESETS["classic"],
            three_player_tables=False,
            tie_break="difference",
            seed=1,
            user=user("olga"),
        )

    @cached_property
    def quick(self) -> Series:
        """A quick game in progress, two deals in."""
        return in_play(start_series(names=("Anna", "Boris", "Vera", "Gleb")))

    @cached_property
    def quick_done(self) -> Series:
        """A finished quick game."""
        return finished(start_series(names=("Olga", "Pavel", "Rita", "Stas")))


def user(username: str):
    return get_user_model().objects.get(username=username)


def in_play(series: Series) -> Series:
    for _deal in range(2):
        record(series, (40, 80))
    return series


@dataclass(frozen=True)
class Account:
    """Who holds the phone: logged in as ``username`` (or not), holding these games' links."""

    username: str | None = None
    holds: Callable[[World], list[Series]] = lambda world: []
    # The quick games this phone started: it manages them (links, moving into a league).
    started: Callable[[World], list[Series]] = lambda world: []


ACCOUNTS = {
    "anonymous": Account(),
    # A phone without an account that started the quick games: it holds their scoring links.
    "scorekeeper": Account(
        holds=lambda world: [world.quick, world.quick_done],
        started=lambda world: [world.quick, world.quick_done],
    ),
    # Holds the quick game's scoring link someone shared: scores it, manages nothing.
    "owner": Account("olga", holds=lambda world: [world.quick]),
    # Logged in on the phone that started the quick game too: may move it into the league.
    "scorer": Account("sergei", started=lambda world: [world.quick]),
    "viewer": Account("vika"),
    # An account outside the league, with its invite link: it taps Join in its own browser.
    "newcomer": Account("nina"),
}


# The pages, who uses each, and the forms it must offer them ---------------------------------


@dataclass
class Page:
    name: str
    path: Callable[[World], str]
    # account -> the URL names of the forms the page must offer that account (besides the
    # language switch, and logging out for an account that is logged in).
    forms: dict[str, set[str]] = field(default_factory=dict)


def page(name: str, path: Callable[[World], str], **accounts: Iterable[str]) -> Page:
    return Page(name, path, {account: set(forms) for account, forms in accounts.items()})


def league_url(name: str) -> Callable[[World], str]:
    return lambda world: reverse(name, args=[world.league.pk])


def reset_link(world: World) -> str:
    """The link of the password-reset mail (Django sends it on to the set-password form)."""
    nina = user("nina")
    uid = urlsafe_base64_encode(force_bytes(nina.pk))
    return reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(nina)])


def players_page(world: World) -> str:
    """The league's players: those of its series in progress."""
    return reverse("league_players", args=[world.live.league_id])


def league_player(world: World, name: str) -> Player:
    world.done  # noqa: B018 (its players are the league's)
    world.live  # noqa: B018
    return Player.objects.get(league=world.league, name=name)


def player_edit_page(world: World) -> str:
    return reverse("player_edit", args=[world.league.pk, league_player(world, "Dasha").pk])


def merge_page(world: World) -> str:
    dasha, anna = league_player(world, "Dasha"), league_player(world, "Anna")
    return reverse("player_merge", args=[world.league.pk, dasha.pk]) + f"?into={anna.pk}"


LEAGUE_OWNER_FORMS = {
    "membership_role",
    "membership_remove",
    "invite_renew",
    "invite_revoke",
    "ownership_transfer",
    "league_leave",
}

PAGES = [
    # The table.
    page("home", lambda w: "/", scorekeeper={"series_quick"}, owner={"series_quick"}),
    page("new game", lambda w: "/new/", anonymous={"series_new"}, owner={"series_new"}),
    page(
        "new league series",
        lambda w: f"/new/?league={w.league.pk}",
        owner={"series_new"},
        scorer={"series_new"},
    ),
    page(
        "scoreboard",
        lambda w: w.quick.get_absolute_url(),
        scorekeeper={"deal_record", "deal_undo", "link_revoke", "series_players"},
        owner={"deal_record", "deal_undo"},
    ),
    page(
        "finished scoreboard",
        lambda w: w.quick_done.get_absolute_url(),
        scorekeeper={"series_rematch", "deal_undo", "link_revoke"},
    ),
    page(
        "league scoreboard",
        lambda w: w.live.get_absolute_url(),
        owner={"deal_record", "deal_undo"},
        scorer={"deal_record", "deal_undo"},
        viewer=(),
    ),
    page(
        "finished league scoreboard",
        lambda w: w.done.get_absolute_url(),
        scorer={"series_rematch", "deal_undo"},
        viewer=(),
    ),
    page(
        "deal edit",
        lambda w: reverse("deal_edit", args=[w.quick.pk, 2]),
        scorekeeper={"deal_edit"},
    ),
    page(
        "league deal edit",
        lambda w: reverse("deal_edit", args=[w.live.pk, 1]),
        scorer={"deal_edit"},
    ),
    # History.
    page("history", lambda w: "/history/", owner=()),
    page("score sheet", lambda w: reverse("series_sheet", args=[w.done.pk]), viewer=()),
    page(
        "player",
        lambda w: reverse("player_detail", args=[w.live.seats.first().player_id]),
        viewer=(),
    ),
    # Leagues.
    page(
        "move a game", lambda w: reverse("series_move", args=[w.quick.pk]), scorer={"series_move"}
    ),
    page("leagues", lambda w: "/leagues/", newcomer=()),
    page("new league", lambda w: "/leagues/new/", owner={"league_new"}, newcomer={"league_new"}),
    page("league", league_url("league_detail"), owner=(), viewer=()),
    page("standings", league_url("league_standings"), viewer=()),
    page("head to head", league_url("league_head_to_head"), viewer=()),
    page(
        "members",
        league_url("league_members"),
        owner=LEAGUE_OWNER_FORMS,
        scorer={"league_leave"},
        viewer={"league_leave"},
    ),
    page("players", players_page, owner={"player_link"}, viewer=()),
    page(
        "settings",
        league_url("league_settings"),
        owner={"league_settings", "share_renew", "share_revoke", "league_archive"},
    ),
    page(
        "archived league's settings",
        lambda w: reverse("league_settings", args=[w.archived.pk]),
        owner={"league_unarchive"},
    ),
    # An archived league offers no form that changes it, but for taking it out of the archive
    # and handing it over (or leaving it).
    page(
        "archived league's scoreboard",
        lambda w: (w.done, w.archived)[0].get_absolute_url(),  # played, then archived
        owner=(),
        scorer=(),
    ),
    page(
        "archived league's members",
        lambda w: reverse("league_members", args=[w.archived.pk]),
        owner={"ownership_transfer", "league_leave"},
        viewer={"league_leave"},
    ),
    page(
        "archived league's players",
        lambda w: (w.done, reverse("league_players", args=[w.archived.pk]))[1],
        owner=(),
    ),
    page("delete the league", league_url("league_delete"), owner={"league_delete"}),
    page("player", player_edit_page, owner={"player_rename"}),
    page("merge preview", merge_page, owner={"player_merge"}),
    page(
        "changes",
        lambda w: reverse("league_changes", args=[w.merged.league_id]),
        owner={"merge_undo"},
        viewer=(),
    ),
    page(
        "invite",
        lambda w: reverse("league_join", args=[w.league.invite_token]),
        newcomer={"league_join"},
        anonymous=(),
        viewer=(),
    ),
    page(
        "public standings",
        lambda w: reverse("public_standings", args=[w.league.share_token]),
        anonymous=(),
        newcomer=(),
        viewer=(),
    ),
    page(
        "public history",
        lambda w: reverse("public_history", args=[w.league.share_token]),
        anonymous=(),
        newcomer=(),
        viewer=(),
    ),
    # Club nights: the organiser's screen (finishing asks first), the question itself, and
    # the players' "Find your seat" by the evening's public link (a button per name).
    page(
        "club night",
        lambda w: w.event.get_absolute_url(),
        owner={"event_round_finish", "event_share_revoke"},
        viewer=(),
    ),
    page(
        "finishing a round",
        lambda w: reverse("event_round_finish", args=[w.league.pk, w.event.pk]),
        scorer={"event_round_finish"},
    ),
    page(
        "find your seat",
        lambda w: reverse("event_seat", args=[w.event.share_token]),
        anonymous={"event_seat"},
    ),
    # Accounts.
    page("account", lambda w: "/accounts/", newcomer=()),
    page("sign up", lambda w: "/accounts/signup/", anonymous={"signup"}),
    page("log in", lambda w: "/accounts/login/", anonymous={"login"}),
    page("password change", lambda w: "/accounts/password/", newcomer={"password_change"}),
    page("password changed", lambda w: "/accounts/password/done/", newcomer=()),
    page("password reset", lambda w: "/accounts/password/reset/", anonymous={"password_reset"}),
    page("password reset sent", lambda w: "/accounts/password/reset/sent/", anonymous=()),
    page("new password", reset_link, anonymous={"password_reset_confirm"}),
    page("password reset done", lambda w: "/accounts/password/reset/complete/", anonymous=()),
]


def refused_on_purpose(account: Account, name: str, kwargs: dict) -> int | None:
    """The refusals this test causes on purpose, announced: the status they must answer.

    The league has one owner, who may neither leave it nor remove themselves: the page says why
    with 422. Every other submission here is one its user may make, and must succeed.
    """
    if account.username != "olga":
        return None
    if name == "league_leave":
        return 422
    if name == "membership_remove":
        removed = Membership.objects.get(pk=kwargs["membership_pk"])
        return 422 if removed.user.get_username() == "olga" else None
    return None


# Filling a form ----------------------------------------------------------------------------

_words = (f"Name{n}" for n in itertools.count(1))


def fill_generic(form: Locator) -> None:
    """Fill every empty visible field with a valid value and tick a choice in every radio group
    that has none; keep what the page filled in or chose itself."""
    for control in form.locator("input:visible, textarea:visible").all():
        kind = (control.get_attribute("type") or "text").lower()
        if kind in ("radio", "checkbox", "submit", "button", "hidden", "reset"):
            continue
        if not control.is_editable() or control.input_value():
            continue
        if kind == "email":
            control.fill("nobody@example.org")
        elif kind == "password":
            control.fill(PASSWORD)
        elif kind == "number":
            control.fill(control.get_attribute("min") or "1")
        else:
            control.fill(next(_words))
    form.evaluate(
        """form => {
          const radios = [...form.querySelectorAll("input[type=radio]")];
          for (const name of new Set(radios.map(radio => radio.name))) {
            const group = radios.filter(radio => radio.name === name);
            if (!group.some(radio => radio.checked)) group[0].click();
          }
        }"""
    )


def fill_deal(form: Locator) -> None:
    """One side's card points; the other side gets the rest of 120."""
    form.locator("input[data-points]").first.fill("40")


def fill_league_delete(form: Locator) -> None:
    form.locator("[name=name]").fill("Thursday club")


def fill_login(form: Locator) -> None:
    form.locator("[name=username]").fill("vika")
    form.locator("[name=password]").fill(PASSWORD)


# Forms the generic filling cannot fill, by URL name.
FILLERS: dict[str, Callable[[Locator], None]] = {
    "deal_record": fill_deal,
    "league_delete": fill_league_delete,
    "login": fill_login,
}


def click(form: Locator, button: Locator) -> None:
    button.click()


def pick_language(form: Locator, button: Locator) -> None:
    """The picker has no button to press once the script runs: choosing another language in
    its list sends the form (static/js/app.js)."""
    select = form.locator("select")
    current = select.input_value()
    other = next(code for code, _name in settings.LANGUAGES if code != current)
    select.select_option(other)


# Forms sent otherwise than by a click on their button, by URL name.
SUBMITTERS: dict[str, Callable[[Locator, Locator], None]] = {"set_language": pick_language}


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
            client.post(reverse("link_join", args=[series.score_token]))
        if account.started(world):
            session = client.session
            session[SESSION_CREATED] = [series.pk for series in account.started(world)]
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
    "link_revoke",
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
