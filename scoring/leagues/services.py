"""Writes for leagues: create, house rules, invites, members and roles, share links, moving a
quick game in, archive and delete. Each is one transaction that keeps the league's invariants
itself (a league always keeps an owner) and refuses with ``LeagueError``, changing nothing."""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import (
    Event,
    League,
    LeagueEvent,
    Membership,
    Player,
    Role,
    Seat,
    Series,
    Table,
    new_token,
)
from scoring.standings.running_totals import results_changed
from scoring.table import services
from scoring.table.access import archived_message

logger = logging.getLogger(__name__)


class LeagueError(Exception):
    """A league change that is refused; ``str(error)`` is shown to the player."""


def _owners(league: League) -> int:
    return Membership.objects.filter(league=league, role=Role.OWNER).count()


def league_locked(league: League, *, archived_ok: bool = False) -> League:
    """The league's row, locked; refused (``LeagueError``) while it is archived."""
    locked = League.objects.select_for_update().get(pk=league.pk)
    if locked.archived_at is not None and not archived_ok:
        raise LeagueError(archived_message())
    return locked


def _league_name(name: str) -> str:
    clean = " ".join(name.split())
    if not clean:
        raise LeagueError(_("Give the league a name."))
    return clean


def league_event_record(league: League, action: str, user: User | None, **data) -> LeagueEvent:
    """A line of the league's audit trail (its changes), by ``user`` when they are logged in."""
    actor = user if user is not None and user.is_authenticated else None
    return LeagueEvent.objects.create(league=league, action=action, actor=actor, data=data)


@transaction.atomic
def league_create(*, name: str, user: User, ruleset: rules.Ruleset | None = None) -> League:
    """A new league whose only member, its owner, is ``user``."""
    league = League.objects.create(
        name=_league_name(name), rules=(ruleset or rules.PRESETS["classic"]).to_dict()
    )
    Membership.objects.create(league=league, user=user, role=Role.OWNER)
    return league


@transaction.atomic
def league_update_rules(
    *, league: League, ruleset: rules.Ruleset, name: str | None = None
) -> League:
    """Change the league's default house rules (and its name); started series keep theirs."""
    league = league_locked(league)
    league.rules = ruleset.to_dict()
    fields = ["rules"]
    if name is not None:
        league.name = _league_name(name)
        fields.append("name")
    league.save(update_fields=fields)
    return league


@transaction.atomic
def invite_renew(*, league: League, role: str = Role.SCORER) -> League:
    """A new invite link for ``role`` (scorer or viewer); the old link stops working."""
    if role not in (Role.SCORER, Role.VIEWER):
        raise LeagueError(_("An invite makes scorers or viewers; owners are made by transfer."))
    league = league_locked(league)
    league.invite_token = new_token()
    league.invite_role = role
    league.save(update_fields=["invite_token", "invite_role"])
    return league


@transaction.atomic
def invite_revoke(*, league: League) -> League:
    """Nobody can join through an invite link until a new one is made."""
    league = league_locked(league)
    league.invite_token = None
    league.save(update_fields=["invite_token"])
    return league


@transaction.atomic
def league_join(*, token: str, user: User) -> Membership:
    """Join the league whose invite link this is; a member keeps the role they have."""
    league = League.objects.select_for_update().filter(invite_token=token).first()
    if not token or league is None:
        raise LeagueError(_("This invite link no longer works. Ask for a new one."))
    membership, _created = Membership.objects.get_or_create(
        league=league, user=user, defaults={"role": league.invite_role}
    )
    return membership


def _membership(league: League, membership_id: int) -> Membership:
    membership = (
        Membership.objects.select_for_update()
        .select_related("user")
        .filter(league=league, pk=membership_id)
        .first()
    )
    if membership is None:
        raise LeagueError(_("That person is not a member of this league."))
    return membership


@transaction.atomic
def membership_set_role(*, league: League, membership_id: int, role: str) -> Membership:
    """Give a member another role; the league's last owner keeps theirs."""
    if role not in Role.values:
        raise LeagueError(_("Choose owner, scorer or viewer."))
    league = league_locked(league)
    membership = _membership(league, membership_id)
    if membership.role == Role.OWNER and role != Role.OWNER and _owners(league) == 1:
        raise LeagueError(_("The league needs an owner: make someone else owner first."))
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, league: League, membership_id: int) -> int:
    """Take a member out of the league (the last owner cannot be); returns their user id."""
    league = league_locked(league)
    membership = _membership(league, membership_id)
    if membership.role == Role.OWNER and _owners(league) == 1:
        raise LeagueError(_("The league's last owner cannot be removed."))
    _unlink_players(league, membership.user_id)
    membership.delete()
    return membership.user_id


@transaction.atomic
def league_leave(*, league: League, user: User) -> None:
    """Leave a league; an owner must first hand the league to someone else."""
    # Leaving is the member's own business: allowed in an archived league too.
    league = league_locked(league, archived_ok=True)
    membership = Membership.objects.filter(league=league, user=user).first()
    if membership is None:
        raise LeagueError(_("You are not a member of this league."))
    if membership.role == Role.OWNER and _owners(league) == 1:
        raise LeagueError(_("Transfer ownership to another member before you leave."))
    _unlink_players(league, user.pk)
    membership.delete()


@transaction.atomic
def ownership_transfer(*, league: League, user: User, membership_id: int) -> None:
    """``user`` (an owner) makes another member the owner and becomes a scorer; in an archived
    league too (an owner hands it over before deleting their account, say)."""
    league = league_locked(league, archived_ok=True)
    current = Membership.objects.filter(league=league, user=user, role=Role.OWNER).first()
    if current is None:
        raise LeagueError(_("Only an owner can hand the league over."))
    successor = _membership(league, membership_id)
    if successor.pk == current.pk:
        raise LeagueError(_("Choose another member to take over."))
    successor.role = Role.OWNER
    successor.save(update_fields=["role"])
    current.role = Role.SCORER
    current.save(update_fields=["role"])


@transaction.atomic
def ownership_assign(*, league: League, membership_id: int) -> Membership:
    """The site's operators (the admin) make a member the league's owner, its owners until then
    scorers: for a league whose owner is gone or cannot be reached. Archived leagues too."""
    league = league_locked(league, archived_ok=True)
    successor = _membership(league, membership_id)
    Membership.objects.filter(league=league, role=Role.OWNER).exclude(pk=successor.pk).update(
        role=Role.SCORER
    )
    successor.role = Role.OWNER
    successor.save(update_fields=["role"])
    return successor


def _unlink_players(league: League, user_id: int) -> None:
    Player.objects.filter(league=league, user_id=user_id).update(user=None)


@transaction.atomic
def series_move_to_league(*, series: Series, league: League, user: User) -> Series:
    """Move a quick game into a league where ``user`` scores, each seat's player becoming the
    league's player of that name. Both links are renewed: whoever they were shared with loses
    access, the league's games being open to its members by role."""
    series = Series.objects.select_for_update().get(pk=series.pk)
    if series.league_id is not None:
        raise LeagueError(_("This series already belongs to a league."))
    role = (
        Membership.objects.filter(league=league, user=user).values_list("role", flat=True).first()
    )
    if role not in (Role.OWNER, Role.SCORER):
        raise LeagueError(_("You can only move games into a league where you score."))
    league_locked(league)  # not into an archived league
    seats = list(Seat.objects.filter(series=series).select_related("player"))
    names = [seat.player.name for seat in seats]
    players = services.players_resolve(names=names, league=league)
    if len({player.pk for player in players}) != len(players):
        # Only a game started before names had keys can seat two of one name ("ﾊﾅ", "ハナ").
        doubled = next(p for p in players if players.count(p) > 1)
        raise LeagueError(
            _("Two players of this game are both %(name)s in this league; it cannot be moved.")
            % {"name": doubled.name}
        )
    old_players = {seat.player_id for seat in seats}
    for seat, player in zip(seats, players, strict=True):
        seat.player = player
    Seat.objects.bulk_update(seats, ["player"])
    series.league = league
    series.version += 1  # standings of the league now include it; live views refresh
    series.save(update_fields=["league", "version", "updated_at"])
    services.tables_set_apart([series])  # new links: the quick game's old ones stop working
    if series.finished:
        # It may have finished long ago: the league's totals are refolded from it.
        results_changed(league.pk, since=(series.finished_at, series.pk))
    # Quick-game players that no other game uses would only clutter name suggestions.
    Player.objects.filter(pk__in=old_players, league=None, seats=None).delete()
    return series


@transaction.atomic
def share_renew(*, league: League) -> League:
    """A new read-only share link to the standings; the old link stops working."""
    league = league_locked(league)
    league.share_token = new_token()
    league.save(update_fields=["share_token"])
    return league


@transaction.atomic
def share_revoke(*, league: League) -> League:
    """The standings are no longer shared with anyone outside the league."""
    league = league_locked(league)
    league.share_token = None
    league.save(update_fields=["share_token"])
    return league


# Archive and delete -------------------------------------------------------------------------


@transaction.atomic
def league_archive(*, league: League, user: User | None) -> League:
    """Make the league read-only and take it out of the lists; its public link still works."""
    league = league_locked(league, archived_ok=True)
    if league.archived_at is not None:
        raise LeagueError(_("This league is archived already."))
    league.archived_at = timezone.now()
    league.save(update_fields=["archived_at"])
    league_event_record(league, LeagueEvent.Action.ARCHIVED, user)
    return league


@transaction.atomic
def league_unarchive(*, league: League, user: User | None) -> League:
    league = league_locked(league, archived_ok=True)
    if league.archived_at is None:
        raise LeagueError(_("This league is not archived."))
    league.archived_at = None
    league.save(update_fields=["archived_at"])
    league_event_record(league, LeagueEvent.Action.UNARCHIVED, user)
    return league


#: What becomes of a deleted league's series.
SERIES_DELETE = "delete"
SERIES_KEEP = "keep"  # they become quick games


@transaction.atomic
def league_delete(*, league: League, user: User, confirm_name: str, series: str) -> int:
    """Delete the league (archived or not); its series go with it or become quick games, which
    stay with whoever started them (and their links). Returns how many series were kept."""
    league = league_locked(league, archived_ok=True)
    if not Membership.objects.filter(league=league, user=user, role=Role.OWNER).exists():
        raise LeagueError(_("Only an owner can delete the league."))
    if " ".join(confirm_name.split()) != league.name:
        raise LeagueError(
            _("Type the league's name, %(name)s, exactly to delete it.") % {"name": league.name}
        )
    if series not in (SERIES_DELETE, SERIES_KEEP):
        raise LeagueError(_("Choose what becomes of the league's series."))
    kept = 0
    if series == SERIES_KEEP:
        quick: dict[int, Player] = {}
        games = list(Series.objects.select_for_update().filter(league=league))
        seats = list(Seat.objects.filter(series__league=league).select_related("player"))
        for seat in seats:
            if seat.player_id not in quick:
                quick[seat.player_id] = Player.objects.create(name=seat.player.name, league=None)
            seat.player = quick[seat.player_id]
        Seat.objects.bulk_update(seats, ["player"])
        for game in games:
            game.league = None
            game.version += 1
        Series.objects.bulk_update(games, ["league", "version"])
        services.tables_set_apart(games)  # quick games now, each with new links
        kept = len(games)
    else:
        # A club night's tables hold on to their series: the nights go first.
        Event.objects.filter(league=league).delete()
        Table.objects.filter(games__league=league).delete()
        Series.objects.filter(league=league).delete()
    logger.info(
        "league %s deleted by user %s, %s series kept as quick games", league.pk, user.pk, kept
    )
    league.delete()
    return kept
