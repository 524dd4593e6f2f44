"""The bare Django project: ``startproject`` with one trivial view per request of the mix, made
on the fly, run under the same gunicorn as the site; and its tables for the phones."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

from load.plan import PHONES, TABLES_PER_SCREEN, Kind, mean_series_length
from load.servers import BIN

VIEWS = '''
"""One trivial view per request of the mix: club nights (tables/), kitchen tables (kitchen/)."""
import random
import uuid

from django.http import HttpResponse
from django.shortcuts import redirect
from django.template import engines
from django.views.decorators.http import require_GET, require_POST

#: A kitchen table's deal ends its game one time in this many, as the site's tables do: the
#: answer is then the goat's board, with the rematch form instead of the deal form.
GAME = GAME_LENGTH
BOARD = engines["django"].from_string(
    '<!doctype html><title>Table</title><section id="scoreboard" data-version="1">'
    '{% if goat %}<form method="post" action="/{{ kind }}/{{ pk }}/rematch/">{% csrf_token %}'
    "<button>Rematch</button></form>{% else %}"
    '<form method="post" class="deal-form" action="/{{ kind }}/{{ pk }}/deals/">{% csrf_token %}'
    '<input type="hidden" name="number" value="1">'
    '<input type="hidden" name="entry_key" value="{{ key }}">'
    '<input type="number" name="points_0" value="" data-points>'
    '<input type="number" name="points_1" value="" data-points>'
    "<button>Record deal</button></form>{% endif %}</section>"
)
SCREEN = "<!doctype html><title>Leaderboard</title><table>" + "<tr><td>Player</td></tr>" * 40


def _board(request, kind, pk, goat=False):
    context = {"kind": kind, "pk": pk, "key": uuid.uuid4(), "goat": goat}
    return HttpResponse(BOARD.render(context, request))


@require_GET
def board(request, kind, pk):
    return _board(request, kind, pk)


@require_POST
def deal(request, kind, pk):
    return _board(request, kind, pk, goat=kind == "kitchen" and random.random() < 1 / GAME)


@require_POST
def rematch(request, kind, pk):
    return redirect(f"/{kind}/{pk}/")


@require_GET
def live(request, kind, pk):
    return HttpResponse(status=204)


@require_GET
def screen(request, token):
    return HttpResponse(SCREEN + "</table>")
'''
URLS = """
from django.urls import path, re_path

from bare import views

kind = "(?P<kind>tables|kitchen)/(?P<pk>[0-9]+)"
urlpatterns = [
    re_path(f"^{kind}/$", views.board),
    re_path(f"^{kind}/deals/$", views.deal),
    re_path(f"^{kind}/rematch/$", views.rematch),
    re_path(f"^{kind}/live/$", views.live),
    path("public/events/<str:token>/", views.screen),
]
"""
READY = "/tables/1/live/"  # what the bare server answers once it is up


def bare_project(work: Path) -> Path:
    """``startproject`` with the mix's trivial views; DEBUG off, as the site runs."""
    home = work / "bare"
    home.mkdir()
    subprocess.run([BIN / "django-admin", "startproject", "bare", str(home)], check=True)
    views = VIEWS.replace("GAME_LENGTH", f"{mean_series_length():.2f}")
    (home / "bare" / "views.py").write_text(views)
    (home / "bare" / "urls.py").write_text(URLS)
    settings = home / "bare" / "settings.py"
    text = settings.read_text().replace("DEBUG = True", "DEBUG = False")
    text = text.replace("ALLOWED_HOSTS = []", 'ALLOWED_HOSTS = ["127.0.0.1", "localhost"]')
    settings.write_text(text)
    return home


def bare_tables(kind: Kind, tables: int) -> dict:
    """The tables of ``kind`` in the shape the site's data has, for the bare project (its views
    take any id)."""
    path = "tables" if kind.key == "club" else "kitchen"
    made = []
    for n in range(1, tables + 1):
        link = {"board": f"/{path}/{n}/", "live": f"/{path}/{n}/live/"}
        phones = [{"cookies": {}, "network": None} for _ in range(PHONES)]
        made.append({"phones": phones, "games": [{"links": [link] * PHONES, "version": "1"}]})
    shown: dict = {"tables": made}
    if kind.screens:
        clubs = math.ceil(tables / TABLES_PER_SCREEN)
        shown["screens"] = [[f"/public/events/{club}/?present=1"] for club in range(clubs)]
    return shown
