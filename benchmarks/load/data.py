"""The site's data, made through the project's own code in a child process with Django loaded
(``loadtest.py --data``), before the site's server starts: both kinds of tables, each with its
phones' sessions, and how often the pages ask (read from them).

Club nights: per ten tables a league, its organiser and 40 players, and a few club nights
(``events.services.event_create`` starts round 1's tables), whose tables a table plays one after
the other (a game ends at the goat after ten or eleven deals); each phone's session holds its
table's link for every one of those evenings (``web.sessions.hold_link``, on a request made
here: a browser would open each evening's link with a POST, 4 × 800 × a dozen of them).

Kitchen tables: each started as a phone starts one, and its links opened as phones open them,
through Django's test client: the scoring phone posts the home page's "Quick game" (a new table
with its score and watch links; this phone holds the score link and manages the table), the
three others post the watch link's page. Each table says its own network in X-Forwarded-For
(the quick games' limit counts per network). Its first game has had some deals already
(``plan.played_before``, through ``table.deals.deal_record``).
"""

from __future__ import annotations

import math
import os
import re
import time
import uuid
from http.cookies import SimpleCookie

from load.plan import (
    PHONES,
    PLAYERS_PER_TABLE,
    ROUNDS,
    TABLES_PER_SCREEN,
    played_before,
    points,
)

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
HOST = "127.0.0.1"


def make_data(tables: int, supply: int, kinds: list[str]) -> dict:
    """``tables`` tables of each of ``kinds`` ("club", "kitchen"), ``supply`` pre-made games a
    club-night table; and how often the pages ask."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("flush", interactive=False, verbosity=0)
    made: dict = {}
    for kind, make in (("club", club_nights), ("kitchen", kitchen_tables)):
        if kind in kinds:
            started = time.perf_counter()
            made[kind] = make(tables, supply) if kind == "club" else make(tables)
            made[kind]["seconds"] = time.perf_counter() - started
    if connection.vendor == "postgresql":
        # A database in use has its planner's statistics (autovacuum's ANALYZE); this machine's
        # PostgreSQL runs without autovacuum, and the tables just filled would be planned blind.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {**made, **pages_read(made)}


def club_nights(tables: int, supply: int) -> dict:
    """Club nights of up to ten tables, ``supply`` games a table, four phones' sessions a
    table, and a big screen's leaderboard per club night."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.http import HttpRequest
    from django.urls import reverse

    from scoring import rules
    from scoring.events import services as events
    from scoring.leagues.services import league_create
    from scoring.table.live import live_version
    from scoring.web.sessions import hold_link

    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore
    made_tables, screens = [], []
    for club in range(math.ceil(tables / TABLES_PER_SCREEN)):
        size = min(TABLES_PER_SCREEN, tables - club * TABLES_PER_SCREEN)
        organiser = get_user_model().objects.create_user(f"organiser-{club + 1}", password=None)
        league = league_create(name=f"Club {club + 1}", user=organiser)
        names = [f"Player {club + 1}.{n + 1}" for n in range(size * PLAYERS_PER_TABLE)]
        nights, links = [], []
        for night in range(supply):
            event = events.event_create(
                league=league,
                name=f"Club night {night + 1}",
                players=[],
                names=names,
                rounds=ROUNDS,
                length="goat",
                length_value=None,
                ruleset=rules.PRESETS["classic"],
                three_player_tables=False,
                tie_break="difference",
                seed=night + 1,
                user=organiser,
            )
            event = events.share_renew(event=event)
            links.append(reverse("event_public", args=[event.share_token]) + "?present=1")
            # Each table with the version a phone that opened its link holds.
            seated = event.tables.filter(series__isnull=False).order_by("number")
            nights.append([(table, live_version(table.score_token)) for table in seated])
        screens.append(links)
        for number in range(size):
            supplied = [night[number] for night in nights]
            phones = []
            for _ in range(PHONES):  # every phone at the table opened the table's link
                request = HttpRequest()
                request.session = SessionStore()
                for table, _version in supplied:
                    hold_link(request, table, table.score_token)
                request.session.create()
                cookies = {settings.SESSION_COOKIE_NAME: request.session.session_key}
                phones.append({"cookies": cookies, "network": None})
            games = []
            for table, version in supplied:
                link = _links(table.score_token)
                games.append({"links": [link] * PHONES, "version": version})
            made_tables.append({"phones": phones, "games": games})
    return {"tables": made_tables, "screens": screens}


def kitchen_tables(tables: int) -> dict:
    """``tables`` quick games, each started and watched by its phones as browsers do: one
    scoring phone (it started the game: it holds the score link), three watching phones."""
    from django.test import Client
    from django.urls import resolve, reverse

    from scoring.models import Table
    from scoring.table import deals
    from scoring.table.live import live_version

    # One client for every phone, each with its own cookies (a client loads the middleware,
    # WhiteNoise's list of static files: half a second). A CSRF cookie and a token for it, as
    # the home page gives any browser; the client checks them as a browser's are checked.
    browser = Client(enforce_csrf_checks=True, SERVER_NAME=HOST)
    token = CSRF_INPUT.search(browser.get(reverse("home")).content.decode())
    if token is None:
        raise SystemExit("loadtest: the home page no longer has a form with a CSRF token")
    form = {"csrfmiddlewaretoken": token.group(1)}
    csrf_cookie = browser.cookies["csrftoken"].value

    def phone(network: str, path: str) -> tuple[dict, str]:
        """A new phone on ``network`` posts the page ``path``: its cookies, and where it was
        sent."""
        browser.cookies = SimpleCookie({"csrftoken": csrf_cookie})
        answer = browser.post(path, form, HTTP_X_FORWARDED_FOR=network)
        if answer.status_code != 302:
            raise SystemExit(f"loadtest: {path} answered {answer.status_code}, not a redirect")
        cookies = {name: morsel.value for name, morsel in browser.cookies.items()}
        return {"cookies": cookies, "network": network}, answer["Location"]

    made_tables = []
    for number in range(tables):
        network = f"10.{(number + 1) >> 16 & 255}.{(number + 1) >> 8 & 255}.{(number + 1) & 255}"
        scorer, page = phone(network, reverse("series_quick"))
        table = Table.objects.get(score_token=resolve(page).kwargs["token"])
        watch_page = reverse("table_link", args=[table.watch_token])
        watchers = [phone(network, watch_page)[0] for _ in range(PHONES - 1)]
        for deal in range(1, played_before(number) + 1):
            scored = points(number, deal)
            outcome = deals.deal_record(
                series_id=table.series_id,
                number=deal,
                points=(scored, 120 - scored),
                tricks=None,
                entry_key=uuid.uuid4(),
            )
            if not outcome.recorded:
                raise SystemExit(f"loadtest: a deal played before the run: {outcome.entry}")
        score, watch = _links(table.score_token), _links(table.watch_token)
        version = live_version(table.score_token)
        games = [{"links": [score] + [watch] * (PHONES - 1), "version": version}]
        made_tables.append({"phones": [scorer, *watchers], "games": games})
    return {"tables": made_tables}


def _links(token: str) -> dict[str, str]:
    """A table's page and its live view through the link ``token``."""
    from django.urls import reverse

    return {
        "board": reverse("table_link", args=[token]),
        "live": reverse("table_live", args=[token]),
    }


def pages_read(made: dict) -> dict:
    """How often a board and a big screen ask (read from the pages, as the phones read them),
    checking on the way that each kind's phones see what the load test expects."""
    from django.test import Client

    from load.wire import deal_form

    every: dict[str, float | None] = {"poll_every": None, "screen_every": None}

    client = Client(SERVER_NAME=HOST)

    def browser(phone: dict) -> Client:
        client.cookies = SimpleCookie(phone["cookies"])
        return client

    def board(phone: dict, link: dict, version: str, *, scores: bool) -> str:
        client = browser(phone)
        page = client.get(link["board"]).content.decode()
        if (deal_form(page) is not None) != scores:
            said = "lacks" if scores else "has"
            raise SystemExit(f"loadtest: the board at {link['board']} {said} a deal form")
        if client.get(link["live"], {"version": version}).status_code != 204:
            raise SystemExit("loadtest: a phone's first poll has news: its version is not live")
        return page

    for kind, data in made.items():
        first = data["tables"][0]
        game = first["games"][0]
        page = board(first["phones"][0], game["links"][0], game["version"], scores=True)
        if kind == "kitchen":
            board(first["phones"][1], game["links"][1], game["version"], scores=False)
        found = re.search(r'id="scoreboard"[^>]*data-every="([0-9.]+)"', page)
        if found is None:
            raise SystemExit("loadtest: the board no longer says how often it asks")
        every["poll_every"] = float(found.group(1))
        if kind == "club":
            screen = browser({"cookies": {}}).get(data["screens"][0][0]).content.decode()
            found = re.search(r'hx-trigger="every ([0-9.]+)s"', screen)
            if found is None:
                raise SystemExit("loadtest: the leaderboard no longer says how often it asks")
            every["screen_every"] = float(found.group(1))
    return every
