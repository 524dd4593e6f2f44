"""``{% deal_rows %}`` writes the deal table exactly as the nested loops it replaced did."""

# ruff: noqa: E501 (the template's rows are kept verbatim, long lines and all)

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.test import RequestFactory
from django.test.html import parse_html
from django.utils import translation

from scoring.models import Deal
from scoring.table import selectors
from scoring.table.replays import replay_rows
from scoring.table.scoreboard import build
from tests.helpers import THREE, play_deals, record, start_series

pytestmark = pytest.mark.django_db

#: The rows as series.html wrote them before the tag (its reference, kept here verbatim).
TEMPLATE_ROWS = """{% load i18n %}
        {% for deal in board.deals reversed %}
          <tr{% if deal.eggs %} class="is-eggs"{% endif %}>
            <th scope="row">{{ deal.number }}</th>
            {% for cell in deal.cells %}
              <td>
                {% if cell.points is None %}—{% else %}<span class="pts">{{ cell.points }}</span>{% endif %}
                {% if cell.defeat %}<span class="plus">+{{ cell.defeat }}</span>{% endif %}
                {% if cell.naked and cell.defeat %}<span class="tag">{% translate "naked" %}</span>{% endif %}
                <span class="running">{{ cell.total }}</span>
              </td>
            {% endfor %}
            {% if access.can_score %}
              <td class="actions">
                <a href="{% url 'deal_edit' series.pk deal.number %}" aria-label="{% blocktranslate with n=deal.number %}Edit deal {{ n }}{% endblocktranslate %}">{% translate "Edit" %}</a>
                {% if forloop.first %}
                  <form method="post" action="{% url 'deal_undo' series.pk %}" hx-post="{% url 'deal_undo' series.pk %}" data-undo>
                    {% csrf_token %}
                    <input type="hidden" name="number" value="{{ deal.number }}">
                    <input type="hidden" name="version" value="{{ series.version }}">
                    <button type="submit" class="link">{% translate "Undo" %}</button>
                  </form>
                {% endif %}
              </td>
            {% endif %}
          </tr>
          {% if deal.eggs %}<tr class="eggs-note"><td colspan="{{ board.sides_count|add:2 }}">{% translate "Eggs! 60:60." %}</td></tr>{% endif %}
        {% endfor %}
"""
TAG_ROWS = "{% load deal_rows %}{% deal_rows board series access.can_score %}"


def rendered(source: str, series, can_score: bool) -> str:
    series = selectors.series_with_seats(series.pk)
    board = build(series, list(Deal.objects.filter(series=series).order_by("number")))
    context = Context(
        {
            "board": board,
            "series": series,
            "access": {"can_score": can_score},
            "csrf_token": "the-token",
            "request": RequestFactory().get("/"),
        }
    )
    return Template(source).render(context)


TEAMS_DEALS = [(60, 60), ((0, 120), (False, True)), (70, 50), (55, 65), ((120, 0), (True, False))]


def three_with_one_out():
    """Three players: a tie, then the first goes naked until out, then a deal of the other two."""
    series = play_deals(start_series(mode="three", names=THREE), [(40, 40, 40)])
    while not replay_rows(series, Deal.objects.filter(series=series).order_by("number")).out:
        record(series, (0, 60, 60), (False, True, True))
    if not series.finished:
        record(series, (50, 70))
    return series


@pytest.mark.parametrize("can_score", [True, False])
@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("mode", ["teams", "three"])
def test_the_tag_writes_the_rows_the_template_wrote(can_score, language, mode):
    series = play_deals(start_series(), TEAMS_DEALS) if mode == "teams" else three_with_one_out()
    with translation.override(language):
        old = rendered(TEMPLATE_ROWS, series, can_score)
        new = rendered(TAG_ROWS, series, can_score)
    assert parse_html(new) == parse_html(old)
    # What the comparison rests on is there: the one Undo form, eggs, a side out (—), naked.
    assert new.count("data-undo") == (1 if can_score else 0)
    assert new.count('name="csrfmiddlewaretoken" value="the-token"') == (1 if can_score else 0)
    assert ('class="is-eggs"' in new) == (mode == "teams")
    assert ("—" in new) == (mode == "three")
    assert 'class="tag"' in new


def test_the_undo_form_carries_the_newest_deal_and_the_version():
    series = play_deals(start_series(), TEAMS_DEALS)
    series.refresh_from_db()
    new = rendered(TAG_ROWS, series, True)
    undo = new[new.index("<form") : new.index("</form>")]
    assert f'action="/series/{series.pk}/undo/"' in undo
    assert f'name="number" value="{len(TEAMS_DEALS)}"' in undo
    assert f'name="version" value="{series.version}"' in undo
