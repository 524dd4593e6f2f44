"""``{% board_sides board %}`` and ``{% table_facts board %}``: the top of the scoreboard, each
side's defeat points and the way to the goat, then who deals and leads, the eggs and the
multiplier.

Written in Python rather than as template loops and conditions, like the deal rows
(``deal_rows``): every recorded deal renders the board again, and these few lines, a
``{% blocktranslate %}`` or three per side, were a fifth of its rendering
(``docs/PERFORMANCE.md``). The markup and the messages are those the template wrote, held to
its reference by ``tests/table/test_board_head.py``: a ``{% translate %}`` is escaped as the tag
escapes it, a ``{% blocktranslate %}`` keeps its message's markup and escapes its values.
"""

from __future__ import annotations

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from scoring.table.scoreboard import Scoreboard

register = template.Library()


@register.simple_tag
def board_sides(board: Scoreboard) -> SafeString:
    target = board.state.rules.target
    label = escape(gettext("Defeat points"))  # not in the f-string: the extractor reads calls
    out = [f'<ul class="sides sides-{board.sides_count}" aria-label="{label}">']
    for side in board.sides:
        name = escape(side.name)
        classes = "side" + (" out" if side.out else "") + (" goat" if side.goat else "")
        left: str
        if side.goat:
            left = escape(gettext("goat"))
        elif side.out:
            left = escape(gettext("out"))
        elif side.winner:
            left = escape(gettext("winner"))
        else:
            left = ngettext("%(left)s to go", "%(left)s to go", side.to_target) % {
                "left": side.to_target
            }
        total_label = gettext("%(total)s defeat points") % {"total": side.total}
        way_label = gettext("%(name)s: way to the goat") % {"name": name}
        out.append(
            f'<li class="{classes}"><span class="side-name">{name}</span>'
            f'<span class="side-total" aria-label="{total_label}">{side.total}</span>'
            f'<progress max="{target}" value="{min(side.total, target)}" '
            f'aria-label="{way_label}"></progress>'
            f'<span class="side-left">{left}</span></li>'
        )
    out.append("</ul>")
    return mark_safe("".join(out))  # numbers, names escaped, and the catalogue's messages


@register.simple_tag
def table_facts(board: Scoreboard) -> SafeString:
    state = board.state
    facts = []
    if not board.limit_reached:  # the round is played: nobody deals next
        if board.deal_limit and not state.finished:
            deal_of = gettext("Deal <strong>%(k)s</strong> of %(n)s") % {
                "k": board.next_number,
                "n": board.deal_limit,
            }
            facts.append(f'<span class="deal-of">{deal_of}</span>')
        if board.dealer:
            deals = gettext("Deals: <strong>%(dealer)s</strong>") % {"dealer": escape(board.dealer)}
            facts.append(f"<span>{deals}</span>")
        if board.leader:
            leads = gettext("Leads: <strong>%(leader)s</strong>") % {"leader": escape(board.leader)}
            facts.append(f"<span>{leads}</span>")
        elif board.dealer:
            anyone = escape(gettext("Leads: whoever took the last trick"))
            facts.append(f"<span>{anyone}</span>")
        if state.eggs:
            eggs = ngettext("%(eggs)s egg", "%(eggs)s eggs", state.eggs) % {"eggs": state.eggs}
            facts.append(f'<span class="eggs">{EGG} {eggs}</span>')
        if state.multiplier > 1 and not state.finished:
            times = gettext("Next deal counts ×%(m)s") % {"m": state.multiplier}
            facts.append(f'<span class="multiplier">{times}</span>')
    return mark_safe(f'<p class="table-facts">{"".join(facts)}</p>')


#: The eggs' egg, beside their count.
EGG = (
    '<svg class="egg" viewBox="0 0 20 24" width="16" height="19" aria-hidden="true" '
    'focusable="false"><path d="M10 1C5 1 1 9 1 15a9 8.5 0 0 0 18 0C19 9 15 1 10 1z" '
    'fill="currentColor"/></svg>'
)
