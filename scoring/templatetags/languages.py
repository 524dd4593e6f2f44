"""``{% picker_languages as languages %}``: the languages of the picker, each named in itself."""

from __future__ import annotations

from django import template

from scoring.accounts.languages import offered

register = template.Library()


@register.simple_tag
def picker_languages() -> list[tuple[str, str]]:
    return offered()
