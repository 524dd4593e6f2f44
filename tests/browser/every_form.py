"""What the every-form crawl (test_browser_every_form.py) knows: the world every submission
starts from, the accounts, the pages with the forms each must offer them, and how to fill the
forms the generic filling cannot."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from playwright.sync_api import Locator

from scoring import rules
from scoring.events import services as event_services
from scoring.leagues import players as league_players
from scoring.leagues import services as league_services
from scoring.models import Event, League, LeagueEvent, Membership, Player, Role, Season, Series
from scoring.seasons import services as season_services
from scoring.seasons.services import SeasonRules
from tests.browser.data import finished
from tests.helpers import PASSWORD, record, start_series

BACKEND = "django.contrib.auth.backends.ModelBackend"
POST_FORMS = "form[method=post i]"
SUBMITS = "button:not([type=button]):not([type=reset]), input[type=submit]"


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
    def season(self) -> Season:
        """A season of the league, spring 2025."""
        return season_services.season_create(
            league=self.league,
            rules=SeasonRules(name="Spring", starts_on=date(2025, 3, 1), ends_on=date(2025, 5, 31)),
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
        scorekeeper={"deal_record", "deal_undo", "link_renew", "series_players"},
        owner={"deal_record", "deal_undo"},
    ),
    page(
        "finished scoreboard",
        lambda w: w.quick_done.get_absolute_url(),
        scorekeeper={"series_rematch", "deal_undo", "link_renew"},
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
    # Seasons: the list (an owner starts one), a season (an owner changes or deletes it).
    page("seasons", league_url("season_list"), owner={"season_new"}, viewer=()),
    page(
        "season",
        lambda w: w.season.get_absolute_url(),
        owner={"season_edit", "season_delete"},
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
    # A TV's way to the big screen: the short address and the evening's code.
    page("big screen's code", lambda w: (w.event, reverse("tv"))[1], anonymous={"tv"}),
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


def fill_tv_code(form: Locator) -> None:
    """The code of the world's club night (the newest: each submission has a world of its own)."""
    form.locator("[name=code]").fill(Event.objects.latest("pk").tv_code or "")


def fill_login(form: Locator) -> None:
    form.locator("[name=username]").fill("vika")
    form.locator("[name=password]").fill(PASSWORD)


def fill_season(form: Locator) -> None:
    """A season's name and days (after the world's season: seasons may not overlap)."""
    form.locator("[name=name]").fill("Autumn")
    form.locator("[name=starts_on]").fill("2025-09-01")
    form.locator("[name=ends_on]").fill("2025-11-30")


# Forms the generic filling cannot fill, by URL name.
FILLERS: dict[str, Callable[[Locator], None]] = {
    "season_new": fill_season,
    "deal_record": fill_deal,
    "league_delete": fill_league_delete,
    "login": fill_login,
    "tv": fill_tv_code,
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
