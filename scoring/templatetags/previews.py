"""A result's preview for messengers in a page's head (``og:title``, ``og:description`` and the
``og:image`` the site draws, ``sharing.cards``) and its Share button: the link and a short
text for a chat, with Copy where the phone has no share sheet."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.translation import get_language

from scoring.events import leaderboard
from scoring.models import Event, League, Series, Table
from scoring.sharing import cards, pictures
from scoring.sharing.cards import Preview
from scoring.standings.ranking import Ranking
from scoring.standings.selectors import Standings
from scoring.web.middleware import mark_secret

register = template.Library()

SOCIAL = "scoring/sharing/_social.html"


def _social(context, preview: Preview, image: str) -> dict:
    request = context["request"]
    return {
        "preview": preview,
        "image": request.build_absolute_uri(image),
        "url": request.build_absolute_uri(request.path),
        "width": pictures.WIDTH,
        "height": pictures.HEIGHT,
    }


def _picture(name: str, argument, preview: Preview) -> str:
    """A picture's address: its result's version and the page's language in the query."""
    query = urlencode({"v": preview.version, "lang": get_language() or "en"})
    return f"{reverse(name, args=[argument])}?{query}"


@register.simple_tag
def series_preview(series: Series) -> Preview:
    """A series' preview, for its Share button: ``{% series_preview series as share %}
    {% share_result share series.get_absolute_url %}``."""
    return cards.series_preview(series)


@register.inclusion_tag(SOCIAL, takes_context=True)
def series_social(context, series: Series) -> dict:
    """The series' preview (its seats loaded with their players)."""
    preview = cards.series_preview(series)
    image = _picture("series_picture", series.pk, preview)
    return _social(context, preview, image)


@register.inclusion_tag(SOCIAL, takes_context=True)
def table_social(context, table: Table, token: str) -> dict:
    """The preview of the game a kitchen table plays now, behind one of its links (the page
    that opens the link: what a messenger reads of a link handed to a chat)."""
    assert table.series is not None  # the template asks only for a table with a game
    preview = cards.series_preview(table.series)
    return _social(context, preview, _picture("table_picture", token, preview))


@register.simple_tag
def shared_path(series: Series) -> str:
    """Where a finished game's Share leads: its table's watching link (anyone in the chat may
    watch, as the people around the table do, and a messenger shows its picture), or the
    game's own page where it has none (a club night's table, a revoked link)."""
    table = series.table
    if table is not None and table.event_id is None and table.watch_token:
        return reverse("table_link", args=[table.watch_token])
    return series.get_absolute_url()


@register.simple_tag
def event_preview(event: Event, board: leaderboard.Board) -> Preview:
    """A club night's preview (its version: one query)."""
    return cards.event_preview(event, board, cards.event_version(event))


@register.inclusion_tag(SOCIAL, takes_context=True)
def event_social(context, event: Event, preview: Preview) -> dict:
    """A club night's preview behind its public link (none without one)."""
    image = _picture("event_picture", event.share_token, preview)
    return _social(context, preview, image)


@register.simple_tag
def league_preview(league: League, standings: Standings, players: Ranking) -> Preview:
    return cards.league_preview(league, standings, players)


@register.inclusion_tag(SOCIAL, takes_context=True)
def league_social(context, league: League, token: str, preview: Preview) -> dict:
    image = _picture("league_picture", token, preview)
    return _social(context, preview, image)


@register.inclusion_tag("scoring/sharing/_share_result.html", takes_context=True)
def share_result(context, preview: Preview, path: str, *, field_id: str = "share-result") -> dict:
    """The Share button: the text for a chat and the link (``path`` on this site)."""
    request = context["request"]
    mark_secret(request)  # the link may be secret (the public link): never compressed (BREACH)
    url = request.build_absolute_uri(path)
    return {
        "text": f"{preview.text}\n{url}",
        "url": url,
        "title": preview.title,
        "field_id": field_id,
    }
