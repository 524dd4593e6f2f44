"""``{% player_rows %}``, ``{% pair_rows %}`` and ``{% sort_link %}`` write the standings table
exactly as the loops and the include they replaced did, in every language's number format."""

# ruff: noqa: E501 (the template's rows are kept verbatim, long lines and all)

from __future__ import annotations

import pytest
from django.template import Context, RequestContext, Template
from django.test import RequestFactory
from django.test.html import parse_html
from django.utils import translation

from scoring.leagues.ranking import SORTS, RankedRow, Ranking
from scoring.leagues.ratings import Rating
from scoring.leagues.standings import PairRow, PlayerRow

#: The rows as _standings.html wrote them before the tags (their reference, kept verbatim).
TEMPLATE_PLAYERS = """{% load l10n %}<tbody>{% localize off %}
        {% for entry in players %}{% with row=entry.row %}
          <tr>
            <th scope="row" class="name"><span class="place">{{ entry.place }}</span> {{ row.name }}</th>
            <td>{{ row.won }}</td>
            <td>{{ row.goats }}</td>
            <td class="rating">{% if entry.rating is not None %}{{ entry.rating }}{% else %}—{% endif %}</td>
            <td>{{ row.played }}</td>
            <td>{{ row.win_percent }}</td>
            <td>{{ row.average_text }}</td>
            <td>{{ row.eggs }}</td>
            <td>{{ row.naked }}</td>
          </tr>
        {% endwith %}{% endfor %}
      {% endlocalize %}</tbody>"""
TEMPLATE_PAIRS = """{% load l10n %}<tbody>{% localize off %}
        {% for pair in pairs %}
          <tr>
            <th scope="row" class="name">{{ pair.first }} &amp; {{ pair.second }}</th>
            <td>{{ pair.played }}</td>
            <td>{{ pair.won }}</td>
            <td>{{ pair.win_percent }}</td>
            <td>{{ pair.goats }}</td>
            <td>{{ pair.average_text }}</td>
          </tr>
        {% endfor %}
      {% endlocalize %}</tbody>"""
TAG_PLAYERS = "{% load standings_table %}<tbody>{% player_rows players %}</tbody>"
TAG_PAIRS = "{% load standings_table %}<tbody>{% pair_rows pairs %}</tbody>"

NAMES = ["Anna", 'O\'Neil <b>&amp; "Co"</b>', "Сергей", "Zoë", "1234567"]


def players() -> list[RankedRow]:
    rows = []
    for number, name in enumerate(NAMES):
        rating = None if number == 1 else Rating(mu=25 + number * 1.7, sigma=8.3 - number, series=3)
        row = PlayerRow(
            player_id=number + 1,
            name=name,
            played=7 * number,
            won=3 * number,
            goats=number,
            defeat=17 * number + 3,
            eggs=number * 2,
            naked=number % 3,
            rating=rating,
        )
        rows.append(RankedRow(place=min(number + 1, 3), row=row))
    return rows


def pairs() -> list[PairRow]:
    return [
        PairRow(
            first_id=1,
            second_id=2,
            first=NAMES[0],
            second=NAMES[1],
            played=9,
            won=5,
            goats=2,
            defeat=41,
        ),
        PairRow(
            first_id=3,
            second_id=4,
            first=NAMES[2],
            second=NAMES[3],
            played=0,
            won=0,
            goats=0,
            defeat=0,
        ),
    ]


def rendered(source: str) -> str:
    return Template(source).render(Context({"players": players(), "pairs": pairs()}))


@pytest.mark.parametrize("language", ["en", "ru", "de"])
@pytest.mark.parametrize(
    ("old", "new"), [(TEMPLATE_PLAYERS, TAG_PLAYERS), (TEMPLATE_PAIRS, TAG_PAIRS)]
)
def test_the_tags_write_what_the_loops_wrote(language, old, new):
    with translation.override(language):
        before, after = rendered(old), rendered(new)
    assert parse_html(after) == parse_html(before)
    assert "<b>" not in after  # a name is text, never markup
    assert after.count("<tr>") == (len(NAMES) if new == TAG_PLAYERS else 2)


def test_a_decimal_comma_where_the_language_writes_one():
    with translation.override("ru"):
        text = rendered(TAG_PAIRS)
    assert "4,6" in text  # 41 defeat points over 9 series


#: The column heads' include (scoring/leagues/_sort_link.html) before the tag, kept verbatim.
SORT_LINK_INCLUDE = """{% load i18n static %}{# The inside of a sortable column's <th ...>: aria-sort, then a link that sorts by `key`. Needs `players`, `label` (`title`, `icon` optional). #}{% if players.sort == key %} aria-sort="{{ players.direction }}"{% endif %}><a class="sort" id="sort-{{ key }}" href="{% if key == 'won' %}{% querystring sort=None %}{% else %}{% querystring sort=key %}{% endif %}" hx-get="{% if key == 'won' %}{% querystring sort=None %}{% else %}{% querystring sort=key %}{% endif %}" hx-target="#standings" hx-swap="outerHTML" hx-push-url="true">{% if icon %}<img class="goat-icon" src="{% static 'img/goat.svg' %}" alt="{{ label }}" title="{{ label }}" width="18" height="18">{% elif title %}<abbr title="{{ title }}">{{ label }}</abbr>{% else %}{{ label }}{% endif %}{% if players.sort == key %}<span class="sort-mark" aria-hidden="true">{% if players.direction == "ascending" %}▲{% else %}▼{% endif %}</span>{% endif %}</a>"""
HEADS = [
    ("name", {"label": "Player"}),
    ("won", {"label": "Won"}),
    ("goats", {"label": "Times the goat", "icon": True}),
    ("played", {"label": "Played", "title": "Series played"}),
    ("rate", {"label": "%", "title": "Win rate"}),
]


@pytest.mark.parametrize("query", ["", "?sort=goats", "?date_from=2025-01-01&sort=name&everyone=1"])
@pytest.mark.parametrize("sort", list(SORTS))
@pytest.mark.parametrize(("key", "words"), HEADS)
def test_a_sort_link_is_the_include_it_replaced(query, sort, key, words):
    request = RequestFactory().get("/leagues/1/standings/" + query)
    ranking = Ranking(rows=[], sort=sort, hidden=0)
    context = {"players": ranking, "key": key, **words}
    old = Template("<th" + SORT_LINK_INCLUDE + "</th>").render(RequestContext(request, context))
    arguments = " ".join(f"{name}={name}" for name in ("title", "icon") if name in words)
    new = Template(
        "{% load standings_table %}<th{% sort_link key label " + arguments + " %}</th>"
    ).render(RequestContext(request, context))
    assert parse_html(new) == parse_html(old)
    assert ('aria-sort="' in new) == (sort == key)
