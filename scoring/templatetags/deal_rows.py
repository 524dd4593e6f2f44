"""``{% deal_rows board series can_score %}``: the scoreboard's deal table rows, newest first.

Written in Python rather than as nested ``{% for %}`` loops: the rows are most of the board's
markup (a cell per side per deal, an edit link per deal), and the template engine spent most of
a scoreboard's rendering time on them. The markup is the one the template wrote (held to it by
tests/table/test_deal_rows.py): per deal a row with its number, per side the card points (—
for a side out), the defeat points added, "naked", the running total; for a phone that may
score, the edit link and, on the newest deal, the Undo form (``data-undo``, the series'
version); an eggs note under a deal of eggs.
"""

from __future__ import annotations

from django import template
from django.template.defaulttags import CsrfTokenNode
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from scoring.models import Series
from scoring.table.scoreboard import Scoreboard

register = template.Library()
#: A deal number, replaced by each row's (the last number in the address: after the series').
STAND_IN = 987654321


@register.simple_tag(takes_context=True)
def deal_rows(context, board: Scoreboard, series: Series, can_score: bool) -> SafeString:
    naked = escape(gettext("naked"))
    out: list[str] = []
    if can_score:
        edit_word = escape(gettext("Edit"))
        edit_label = gettext("Edit deal %(n)s")
        undo_url = escape(reverse("deal_undo", args=[series.pk]))
        # One reverse() for every row's edit link: the address around a stand-in number.
        edit_any = str(escape(reverse("deal_edit", args=[series.pk, STAND_IN])))
        edit_before, edit_after = edit_any.rsplit(str(STAND_IN), 1)  # the number comes last
        csrf = CsrfTokenNode().render(context)
        undo_word = escape(gettext("Undo"))
    eggs_note = (
        f'<tr class="eggs-note"><td colspan="{board.sides_count + 2}">'
        f"{escape(gettext('Eggs! 60:60.'))}</td></tr>"
    )
    # From the engine's outcomes, not the board's DealRows (``Scoreboard.deals``): the rows
    # need no words, and building a row object per deal cost as much as writing the rows.
    sides = range(board.sides_count)
    for index, outcome in enumerate(reversed(board.state.deals)):
        number, defeats, totals = outcome.number, outcome.defeat, outcome.totals
        in_play, points_in_play = outcome.in_play, outcome.deal.points
        naked_sides = outcome.naked
        out.append('<tr class="is-eggs">' if outcome.eggs else "<tr>")
        out.append(f'<th scope="row">{number}</th>')
        for side in sides:
            defeat = defeats[side]
            out.append("<td>")
            if side in in_play:
                out.append(f'<span class="pts">{points_in_play[in_play.index(side)]}</span>')
            else:
                out.append("—")
            if defeat:
                out.append(f' <span class="plus">+{defeat}</span>')
                if side in naked_sides:
                    out.append(f' <span class="tag">{naked}</span>')
            out.append(f' <span class="running">{totals[side]}</span></td>')
        if can_score:
            edit_url = f"{edit_before}{number}{edit_after}"
            label = escape(edit_label % {"n": number})
            out.append(
                f'<td class="actions"><a href="{edit_url}" aria-label="{label}">{edit_word}</a>'
            )
            if index == 0:
                out.append(
                    f' <form method="post" action="{undo_url}" hx-post="{undo_url}" data-undo>'
                    f"{csrf}"
                    f'<input type="hidden" name="number" value="{number}">'
                    f'<input type="hidden" name="version" value="{series.version}">'
                    f'<button type="submit" class="link">{undo_word}</button></form>'
                )
            out.append("</td>")
        out.append("</tr>\n")
        if outcome.eggs:
            out.append(eggs_note + "\n")
    return mark_safe("".join(out))  # numbers, and words escaped above
