"""{% phone_board board %}: the scoreboard as data for the phone's engine, in a
<script type="application/json" id="board-data"> element (inert, so the CSP allows it)."""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from scoring.table.phone import board_data
from scoring.table.scoreboard import Scoreboard

register = template.Library()


@register.simple_tag
def phone_board(board: Scoreboard) -> SafeString:
    return json_script(board_data(board), "board-data")
