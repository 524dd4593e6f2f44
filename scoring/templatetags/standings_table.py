"""The standings tables' rows and sortable column heads: ``{% player_rows players %}``,
``{% pair_rows pairs %}`` and ``{% sort_link key label %}``.

Written in Python rather than as ``{% for %}`` loops over a cell per column and an include per
column head: the rows are most of a standings page, a big league shows twenty of them or all its
players, and the template engine's lookups per cell made the page's cost grow with the league
(issue #14: a filtered view of a 200-player league at most 1.5 times a 100-deal league's). The
markup is the one the templates wrote (held to it by tests/leagues/test_standings_table.py). The
numbers are whole (or texts formatted in Python), written as they are: nothing to localize.
"""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.template.defaulttags import querystring
from django.templatetags.static import static
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from scoring.leagues.ranking import DEFAULT_SORT, RankedRow
from scoring.leagues.standings import PairRow

register = template.Library()


@register.simple_tag
def player_rows(entries: Iterable[RankedRow]) -> SafeString:
    out = []
    for entry in entries:
        row = entry.row
        rating = entry.rating
        out.append(
            f'<tr><th scope="row" class="name"><span class="place">{entry.place}</span> '
            f"{escape(row.name)}</th><td>{row.won}</td><td>{row.goats}</td>"
            f'<td class="rating">{"—" if rating is None else rating}</td>'
            f"<td>{row.played}</td><td>{row.win_percent}</td><td>{escape(row.average_text)}</td>"
            f"<td>{row.eggs}</td><td>{row.naked}</td></tr>"
        )
    return mark_safe("".join(out))  # every value escaped or a number


@register.simple_tag
def pair_rows(pairs: Iterable[PairRow]) -> SafeString:
    out = [
        f'<tr><th scope="row" class="name">{escape(pair.first)} &amp; {escape(pair.second)}</th>'
        f"<td>{pair.played}</td><td>{pair.won}</td><td>{pair.win_percent}</td>"
        f"<td>{pair.goats}</td><td>{escape(pair.average_text)}</td></tr>"
        for pair in pairs
    ]
    return mark_safe("".join(out))  # every value escaped or a number


@register.simple_tag(takes_context=True)
def sort_link(context, key: str, label: str, title: str = "", icon: bool = False) -> SafeString:
    """The inside of a sortable column's ``<th ...>``: ``aria-sort`` on the column sorted by,
    then the link that sorts by ``key`` (the default sort: the address without ``sort``).
    Needs ``players`` (a ``Ranking``) in the context; ``title`` spells out a short label,
    ``icon`` shows the goat instead of it."""
    players = context["players"]
    sorted_here = players.sort == key
    href = escape(querystring(context, sort=None if key == DEFAULT_SORT else key))
    label = escape(label)
    if icon:
        goat = escape(static("img/goat.svg"))
        text = (
            f'<img class="goat-icon" src="{goat}" alt="{label}" title="{label}" width="18" '
            'height="18">'
        )
    elif title:
        text = f'<abbr title="{escape(title)}">{label}</abbr>'
    else:
        text = label
    if sorted_here:
        mark = "▲" if players.direction == "ascending" else "▼"
        text += f'<span class="sort-mark" aria-hidden="true">{mark}</span>'
    aria = f' aria-sort="{players.direction}"' if sorted_here else ""
    return mark_safe(  # every value escaped
        f'{aria}><a class="sort" id="sort-{escape(key)}" href="{href}" hx-get="{href}" '
        f'hx-target="#standings" hx-swap="outerHTML" hx-push-url="true">{text}</a>'
    )
