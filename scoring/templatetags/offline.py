"""{% phone_board board %}: the scoreboard as data for the phone's engine, as the text of a
hidden ``<div id="board-data">`` (inert, so the CSP allows it; the browser undoes its HTML
escaping, so its ``textContent`` is the JSON).

Not a ``<script type="application/json">``: htmx drops every script from the content it swaps
in (``allowScriptTags`` is off), so a board swapped in after a deal recorded online lost its
data, and the next deal typed with no network was neither kept nor refused.
"""

from __future__ import annotations

import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString

from scoring.table.phone import board_data
from scoring.table.scoreboard import Scoreboard

register = template.Library()


@register.simple_tag
def phone_board(board: Scoreboard) -> SafeString:
    data = json.dumps(board_data(board), cls=DjangoJSONEncoder)
    return format_html('<div id="board-data" hidden>{}</div>', data)
