"""Who may see, score and manage a series: decided here for every kind of game and every reader.

A game is seen through its table's links (``Table``: the score link scores whichever game the
table plays, the watch link watches it), through a role in its league (owners and scorers score
and correct, viewers watch), or by whoever started its kitchen table (who manages its links and
names, as the account that started it does). Only a game's creator manages a quick game: a score
link's holder who could renew the links could lock out the whole table, creator included.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _

from scoring.core.visitors import Visitor
from scoring.models import Membership, Role, Series, Table

SCORE = "score"
WATCH = "watch"


class LinkRenewed(Http404):
    """This browser held a link to the game's table that was renewed or revoked since: a 404 for
    code that does not ask; the table's pages say what happened (410)."""


def archived_message() -> str:
    return _(
        "This league is archived: it can be read but not changed. "
        "Its owner can take it out of the archive in Settings."
    )


class LeagueArchived(PermissionDenied):
    """A change to an archived league or one of its games: refused, with words (403)."""

    def __init__(self) -> None:
        super().__init__(archived_message())


@dataclass(frozen=True)
class SeriesAccess:
    series: Series
    can_score: bool
    can_manage: bool  # renew its table's links, change a quick game's names, move it
    link: str | None = None  # SCORE or WATCH: the link of its table this browser holds, if any
    archived: bool = False  # a series of an archived league: nobody scores or manages it
    #: The token in the address when the game is shown at its table's page (its phones follow
    #: the table's next game from there), else None.
    token: str | None = None

    @property
    def table(self) -> Table | None:
        return self.series.table


def membership(visitor: Visitor, league_id: int | None) -> tuple[str | None, bool]:
    """The visitor's role in the league (None for outsiders) and whether it is archived."""
    if league_id is None or visitor.user is None:
        return None, False
    found = (
        Membership.objects.filter(league_id=league_id, user=visitor.user)
        .values_list("role", "league__archived_at")
        .first()
    )
    if found is None:
        return None, False
    return found[0], found[1] is not None


def held_link(visitor: Visitor, table: Table | None) -> str | None:
    """SCORE or WATCH: the live link to ``table`` this browser holds, if any."""
    if table is None:
        return None
    for token in (table.score_token, table.watch_token):
        if token is not None and visitor.links.get(token) == table.pk:
            return SCORE if token == table.score_token else WATCH
    return None


def is_creator(visitor: Visitor, series: Series) -> bool:
    """Whether this visitor started the kitchen table of the quick game ``series``."""
    if series.league_id is not None:
        return False  # a league's game is its members', by role
    if series.table_id is not None and series.table_id in visitor.started:
        return True
    return series.created_by_id is not None and series.created_by_id == visitor.user_id


def series_access(visitor: Visitor, series: Series, *, token: str | None = None) -> SeriesAccess:
    """What ``visitor`` may do with ``series`` (read with its table, ``Series.table``); 404 when
    they may not even see it, ``LinkRenewed`` when the link they held to its table is gone.

    ``token``: the link in the address of the table's page, which shows ``series`` as the game
    the table plays now (its board then follows the table's next game); it grants nothing by
    itself: a link is held once the browser opened it (a POST, ``web.sessions.hold_link``)."""
    role, archived = membership(visitor, series.league_id)
    table = series.table
    link = held_link(visitor, table)
    creator = is_creator(visitor, series)
    if role is None and link is None and not creator:
        if table is not None and table.pk in visitor.links.values():
            raise LinkRenewed("The link this browser opened was renewed.")
        raise Http404("No such series.")
    can_manage = creator or role in (Role.OWNER, Role.SCORER)
    can_score = link == SCORE or can_manage
    if role is None and series.league_id is not None:
        league = series.league
        archived = league is not None and league.archived_at is not None
    if archived:
        can_manage = can_score = False
    return SeriesAccess(
        series=series,
        can_score=can_score,
        can_manage=can_manage,
        link=link,
        archived=archived,
        token=token,
    )


def opens(visitor: Visitor, table: Table, token: str) -> bool:
    """Whether the page of ``table`` through its link ``token`` shows its game to ``visitor``
    without asking first: they opened this link on this browser, or may see the game anyway (a
    member of its league, whoever started it, a phone holding its other link), as long as the
    link would not give them more than they have (a score link not yet opened is offered first,
    with the button that opens it)."""
    if visitor.links.get(token) == table.pk:
        return True
    if table.series is None:
        return False
    try:
        access = series_access(visitor, table.series)
    except Http404:
        return False
    return access.can_score or token != table.score_token
