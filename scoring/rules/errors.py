"""Errors the engine raises, with messages a player understands.

The engine has no Django import, yet the site shows its messages in the player's language: each
message is an English template marked with ``gettext_noop`` (so ``makemessages`` extracts it) plus
its parameters, and the web layer translates the template before filling it in.
"""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """Mark a message for translation, untranslated (Django's name, so xgettext finds it)."""
    return message


class InvalidRuleset(ValueError):
    """A house-rule value the engine does not know."""


class InvalidDeal(ValueError):
    """A deal RULES.md refuses ("Bad input is refused"), or any deal after the series is over.

    ``template`` and ``params`` give the message untranslated; ``side`` is the index (in the
    deal's side order) of the side the message is about, when it is about one, and ``field``
    says whether it is about that side's ``"points"`` or its ``"tricks"``; ``number`` is the
    deal's number in the series when the error comes from ``replay``.
    """

    def __init__(
        self,
        template: str,
        params: dict[str, Any] | None = None,
        *,
        side: int | None = None,
        field: str | None = None,
        number: int | None = None,
    ) -> None:
        self.template = template
        self.params = dict(params or {})
        self.side = side
        self.field = field
        self.number = number
        super().__init__(self.render(lambda text: text))

    def render(self, translate) -> str:
        """The message with ``translate`` applied to its templates (identity gives English)."""
        reason = translate(self.template) % self.params
        if self.number is None:
            return reason
        return translate(DEAL_PREFIX) % {"number": self.number, "reason": reason}

    def in_deal(self, number: int) -> InvalidDeal:
        """The same error, now saying which deal of the series it is about."""
        return InvalidDeal(
            self.template, self.params, side=self.side, field=self.field, number=number
        )


DEAL_PREFIX = gettext_noop("Deal %(number)s: %(reason)s")
