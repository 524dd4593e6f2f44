"""``{% board_sides %}`` and ``{% table_facts %}`` write the top of the scoreboard exactly as
the template did before them: every side's state (playing, out, the goat, the winner), eggs
and their multiplier, a club night's "deal k of n" and a round played, in several languages."""

# ruff: noqa: E501 (the template's markup is kept verbatim, long lines and all)

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.test.html import parse_html
from django.utils import translation

from scoring import rules
from scoring.table import selectors
from scoring.table.scoreboard import build
from tests.helpers import THREE, play_deals, start_series

pytestmark = pytest.mark.django_db

#: The sides and the table's facts as series.html wrote them before the tags (kept verbatim).
TEMPLATE = """{% load i18n %}
  <ul class="sides sides-{{ board.sides_count }}" aria-label="{% translate 'Defeat points' %}">
    {% for side in board.sides %}
      <li class="side{% if side.out %} out{% endif %}{% if side.goat %} goat{% endif %}">
        <span class="side-name">{{ side.name }}</span>
        <span class="side-total" aria-label="{% blocktranslate with total=side.total %}{{ total }} defeat points{% endblocktranslate %}">{{ side.total }}</span>
        <progress max="{{ board.state.rules.target }}" value="{% if side.total > board.state.rules.target %}{{ board.state.rules.target }}{% else %}{{ side.total }}{% endif %}" aria-label="{% blocktranslate with name=side.name %}{{ name }}: way to the goat{% endblocktranslate %}"></progress>
        <span class="side-left">
          {% if side.goat %}{% translate "goat" %}{% elif side.out %}{% translate "out" %}{% elif side.winner %}{% translate "winner" %}{% else %}{% blocktranslate count left=side.to_target %}{{ left }} to go{% plural %}{{ left }} to go{% endblocktranslate %}{% endif %}
        </span>
      </li>
    {% endfor %}
  </ul>
  <p class="table-facts">
    {% if not board.limit_reached %}{# the round is played: nobody deals next #}
    {% if board.deal_limit and not board.state.finished %}<span class="deal-of">{% blocktranslate with k=board.next_number n=board.deal_limit %}Deal <strong>{{ k }}</strong> of {{ n }}{% endblocktranslate %}</span>{% endif %}
    {% if board.dealer %}<span>{% blocktranslate with dealer=board.dealer %}Deals: <strong>{{ dealer }}</strong>{% endblocktranslate %}</span>{% endif %}
    {% if board.leader %}<span>{% blocktranslate with leader=board.leader %}Leads: <strong>{{ leader }}</strong>{% endblocktranslate %}</span>
    {% elif board.dealer %}<span>{% translate "Leads: whoever took the last trick" %}</span>{% endif %}
    {% if board.state.eggs %}<span class="eggs"><svg class="egg" viewBox="0 0 20 24" width="16" height="19" aria-hidden="true" focusable="false"><path d="M10 1C5 1 1 9 1 15a9 8.5 0 0 0 18 0C19 9 15 1 10 1z" fill="currentColor"/></svg> {% blocktranslate count eggs=board.state.eggs %}{{ eggs }} egg{% plural %}{{ eggs }} eggs{% endblocktranslate %}</span>{% endif %}
    {% if board.state.multiplier > 1 and not board.state.finished %}<span class="multiplier">{% blocktranslate with m=board.state.multiplier %}Next deal counts ×{{ m }}{% endblocktranslate %}</span>{% endif %}
    {% endif %}
  </p>
"""
TAGS = "{% load board_head %}{% board_sides board %}{% table_facts board %}"

#: Names that need escaping, in the sides' names, the dealer's and the leader's.
ODD = ("<b>Anna</b>", "Boris & Co", 'Vera "V"', "Gleb's")


def _games():
    """Boards of every kind the top of a scoreboard shows."""
    eggs = rules.PRESETS["eggs-stacking"]
    yield "fresh", start_series()
    yield "eggs twice", play_deals(start_series(ruleset=eggs), [(60, 60), (60, 60)])
    yield "eggs, then a loss", play_deals(start_series(ruleset=eggs), [(60, 60), (70, 50)])
    yield "odd names", play_deals(start_series(names=ODD), [(70, 50), (40, 80)])
    yield "the goat", play_deals(start_series(), [((0, 120), (False, True))] * 2)
    three = play_deals(start_series(mode="three", names=THREE), [(40, 40, 40)])
    yield "three, a tie", three
    yield (
        "three, one out",
        play_deals(
            start_series(mode="three", names=THREE, ruleset=rules.PRESETS["tie-penalty"]),
            [((0, 60, 60), (False, True, True))] * 2,
        ),
    )
    yield "club night", play_deals(start_series(deal_limit=4), [(70, 50)])
    yield "round played", play_deals(start_series(deal_limit=2), [(70, 50), (60, 60)])


def _rendered(source: str, board) -> str:
    return Template(source).render(Context({"board": board}))


@pytest.mark.parametrize("language", ["en", "ru", "de", "ja"])
def test_the_tags_write_what_the_template_wrote(language):
    seen = set()
    for name, series in _games():
        series = selectors.series_with_seats(series.pk)
        board = build(series, selectors.played_deals(series))
        with translation.override(language):
            old, new = _rendered(TEMPLATE, board), _rendered(TAGS, board)
        assert parse_html(new) == parse_html(old), name
        seen |= {
            fact
            for fact in ("deal-of", "eggs", "multiplier", " goat", " out", "<strong>", "&lt;b&gt;")
            if fact in new
        }
    # What the comparison rests on was there at least once.
    assert seen == {"deal-of", "eggs", "multiplier", " goat", " out", "<strong>", "&lt;b&gt;"}
