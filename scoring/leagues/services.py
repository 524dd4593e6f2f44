"""Writes for leagues: create, house rules, invites, members and roles, players, share links.

Every function is one transaction and checks the league's invariants itself (a league always
keeps an owner), so a view only has to decide who may call it. Refusals raise ``LeagueError``
with a message a player understands; nothing changes then.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import names as player_names
from scoring import rules
from scoring.events import services as event_services
from scoring.models import (
    MAX_NAME,
    Event,
    League,
    LeagueEvent,
    Membership,
    Player,
    Role,
    Seat,
    Series,
    new_token,
)
from scoring.table import services

logger = logging.getLogger(__name__)


class LeagueError(Exception):
    """A league change that is refused; ``str(error)`` is shown to the player."""


def _owners(league: League) -> int:
    return Membership.objects.filter(league=league, role=Role.OWNER).count()


def archived_message() -> str:
    return _(
        "This league is archived: it can be read but not changed. "
        "Its owner can take it out of the archive in Settings."
    )


def _locked_league(league: League, *, archived_ok: bool = False) -> League:
    """The league's row, locked; refused (``LeagueError``) while it is archived."""
    locked = League.objects.select_for_update().get(pk=league.pk)
    if locked.archived_at is not None and not archived_ok:
        raise LeagueError(archived_message())
    return locked


def _results_rewritten(league_id: int, series_ids: list[int]) -> None:
    """The one place league writes say "these series of the league were rewritten" (players
    merged or a merge undone): the standings' running totals go back to before the first of
    them to finish, and are folded again from there."""
    first = (
        Series.objects.filter(pk__in=series_ids, finished_at__isnull=False)
        .order_by("finished_at", "pk")
        .values_list("finished_at", "pk")
        .first()
    )
    services.results_changed(league_id, since=first or (None, 0))


@transaction.atomic
def league_create(*, name: str, user: User, ruleset: rules.Ruleset | None = None) -> League:
    """A new league whose only member, its owner, is ``user``."""
    clean = " ".join(name.split())
    if not clean:
        raise LeagueError(_("Give the league a name."))
    league = League.objects.create(
        name=clean, rules=(ruleset or rules.PRESETS["classic"]).to_dict()
    )
    Membership.objects.create(league=league, user=user, role=Role.OWNER)
    return league


@transaction.atomic
def league_update_rules(
    *, league: League, ruleset: rules.Ruleset, name: str | None = None
) -> League:
    """Change the league's default house rules (and its name); started series keep theirs."""
    league = _locked_league(league)
    league.rules = ruleset.to_dict()
    fields = ["rules"]
    if name is not None:
        clean = " ".join(name.split())
        if not clean:
            raise LeagueError(_("Give the league a name."))
        league.name = clean
        fields.append("name")
    league.save(update_fields=fields)
    return league


@transaction.atomic
def invite_renew(*, league: League, role: str = Role.SCORER) -> League:
    """A new invite link for ``role`` (scorer or viewer); the old link stops working."""
    if role not in (Role.SCORER, Role.VIEWER):
        raise LeagueError(_("An invite makes scorers or viewers; owners are made by transfer."))
    league = _locked_league(league)
    league.invite_token = new_token()
    league.invite_role = role
    league.save(update_fields=["invite_token", "invite_role"])
    return league


@transaction.atomic
def invite_revoke(*, league: League) -> League:
    """Nobody can join through an invite link until a new one is made."""
    league = _locked_league(league)
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
    league = _locked_league(league)
    membership = _membership(league, membership_id)
    if membership.role == Role.OWNER and role != Role.OWNER and _owners(league) == 1:
        raise LeagueError(_("The league needs an owner: make someone else owner first."))
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def membership_remove(*, league: League, membership_id: int) -> int:
    """Take a member out of the league (the last owner cannot be); returns their user id."""
    league = _locked_league(league)
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
    league = _locked_league(league, archived_ok=True)
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
    league = _locked_league(league, archived_ok=True)
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
    league = _locked_league(league, archived_ok=True)
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
def player_link_user(*, league: League, player_id: int, user_id: int | None) -> Player:
    """Say which member's account a league player is (or none); one player per member."""
    league = _locked_league(league)
    player = Player.objects.filter(league=league, pk=player_id).first()
    if player is None:
        raise LeagueError(_("There is no such player in this league."))
    if user_id is not None:
        if not Membership.objects.filter(league=league, user_id=user_id).exists():
            raise LeagueError(_("Only a member of the league can be linked to a player."))
        Player.objects.filter(league=league, user_id=user_id).exclude(pk=player.pk).update(
            user=None
        )
    player.user_id = user_id
    player.save(update_fields=["user"])
    return player


@transaction.atomic
def series_move_to_league(*, series: Series, league: League, user: User) -> Series:
    """Move a quick game into a league where ``user`` scores, matching players by name.

    Only the game's creator may do it (``access.series_access`` says who; the view checks). Each
    seat's player becomes the league's player of the same name, created if the league has none.
    Both links are renewed: a league's games are open to its members by role, so whoever the
    quick game's links were shared with (to score or to watch) loses access with the move.
    """
    series = Series.objects.select_for_update().get(pk=series.pk)
    if series.league_id is not None:
        raise LeagueError(_("This series already belongs to a league."))
    role = (
        Membership.objects.filter(league=league, user=user).values_list("role", flat=True).first()
    )
    if role not in (Role.OWNER, Role.SCORER):
        raise LeagueError(_("You can only move games into a league where you score."))
    _locked_league(league)  # not into an archived league
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
    series.score_token = new_token()
    series.watch_token = new_token()
    series.version += 1  # standings of the league now include it; live views refresh
    series.save(update_fields=["league", "score_token", "watch_token", "version", "updated_at"])
    if series.finished:
        # It may have finished long ago: the league's totals are refolded from it.
        services.results_changed(league.pk, since=(series.finished_at, series.pk))
    # Quick-game players that no other game uses would only clutter name suggestions.
    Player.objects.filter(pk__in=old_players, league=None, seats=None).delete()
    return series


@transaction.atomic
def share_renew(*, league: League) -> League:
    """A new read-only share link to the standings; the old link stops working."""
    league = _locked_league(league)
    league.share_token = new_token()
    league.save(update_fields=["share_token"])
    return league


@transaction.atomic
def share_revoke(*, league: League) -> League:
    """The standings are no longer shared with anyone outside the league."""
    league = _locked_league(league)
    league.share_token = None
    league.save(update_fields=["share_token"])
    return league


# Players: rename, merge, undo a merge --------------------------------------------------------


def _league_player(league: League, player_id: int) -> Player:
    player = Player.objects.select_for_update().filter(league=league, pk=player_id).first()
    if player is None:
        raise LeagueError(_("There is no such player in this league."))
    return player


def _event(league: League, action: str, user: User | None, **data) -> LeagueEvent:
    actor = user if user is not None and user.is_authenticated else None
    return LeagueEvent.objects.create(league=league, action=action, actor=actor, data=data)


@transaction.atomic
def player_rename(*, league: League, player_id: int, name: str, user: User | None) -> Player:
    """Give a league player another name; a name another player has is refused (merge them)."""
    league = _locked_league(league)
    player = _league_player(league, player_id)
    clean = player_names.name_clean(name)
    if not clean:
        raise LeagueError(_("Give the player a name."))
    if len(clean) > MAX_NAME:
        raise LeagueError(_("A name can have at most %(count)d characters.") % {"count": MAX_NAME})
    key = player_names.stored_key(clean, player.name_key)
    other = Player.objects.filter(league=league, name_key=key).exclude(pk=player.pk).first()
    if other is not None:
        raise LeagueError(
            _(
                "%(name)s is already a player of this league. If they are one person, merge "
                "%(old)s into %(name)s instead."
            )
            % {"name": other.name, "old": player.name}
        )
    if clean == player.name:
        return player
    before = player.name
    player.name = clean
    player.save(update_fields=["name", "name_key"])
    # Open scoreboards show the new name.
    Series.objects.filter(seats__player=player).update(version=F("version") + 1)
    _event(league, LeagueEvent.Action.RENAMED, user, player=player.pk, before=before, after=clean)
    return player


@dataclass(frozen=True)
class MergePreview:
    source: Player
    target: Player
    series: int  # the source's series, which become the target's
    shared: int  # series where both sat: the merge is refused while there is one
    #: The club nights that name both (present, seated or sitting out): refused too.
    nights: tuple[str, ...] = ()

    @property
    def refusal(self) -> str:
        if self.source.pk == self.target.pk:
            return _("Choose two different players.")
        if self.shared:
            return _(
                "%(source)s and %(target)s sat at the same table in %(count)d series: they are "
                "two people, so they cannot be merged."
            ) % {"source": self.source.name, "target": self.target.name, "count": self.shared}
        if self.nights:
            return _(
                "%(source)s and %(target)s were both at the club night %(night)s: they are two "
                "people, so they cannot be merged."
            ) % {"source": self.source.name, "target": self.target.name, "night": self.nights[0]}
        if (
            self.source.user_id is not None
            and self.target.user_id is not None
            and self.source.user_id != self.target.user_id
        ):
            return _(
                "%(source)s and %(target)s are linked to two different accounts. Unlink one of "
                "them first."
            ) % {"source": self.source.name, "target": self.target.name}
        return ""


def merge_preview(*, league: League, source_id: int, target_id: int) -> MergePreview:
    """What merging ``source`` into ``target`` would do (nothing is changed)."""
    source = Player.objects.filter(league=league, pk=source_id).first()
    target = Player.objects.filter(league=league, pk=target_id).first()
    if source is None or target is None:
        raise LeagueError(_("There is no such player in this league."))
    return _preview(source, target)


def _preview(source: Player, target: Player) -> MergePreview:
    series = Seat.objects.filter(player=source).values("series_id")
    shared = Seat.objects.filter(player=target, series_id__in=series).count()
    nights = event_services.nights_together(
        league_id=source.league_id, first_id=source.pk, second_id=target.pk
    )
    return MergePreview(
        source=source, target=target, series=series.count(), shared=shared, nights=tuple(nights)
    )


@transaction.atomic
def players_merge(
    *, league: League, source_id: int, target_id: int, user: User | None
) -> LeagueEvent:
    """Make ``source`` (a typo, say) one player with ``target``: every seat of the source
    becomes the target's, the source is gone, the standings count again; undoable
    (``merge_undo``) from the event returned."""
    league = _locked_league(league)
    source = _league_player(league, source_id)
    target = _league_player(league, target_id)
    preview = _preview(source, target)
    if preview.refusal:
        raise LeagueError(preview.refusal)
    seats = list(Seat.objects.filter(player=source).values_list("pk", "series_id"))
    series_ids = sorted({series_id for _pk, series_id in seats})
    moved_user = source.user_id is not None and target.user_id is None
    Seat.objects.filter(player=source).update(player=target)
    # The club nights the source was at seat the target in the rounds still to start.
    nights = event_services.player_replace(league_id=league.pk, old_id=source.pk, new_id=target.pk)
    if moved_user:
        target.user_id = source.user_id
        target.save(update_fields=["user"])
    event = _event(
        league,
        LeagueEvent.Action.MERGED,
        user,
        source={
            "id": source.pk,
            "name": source.name,
            "name_key": source.name_key,
            "user": source.user_id,
            "created_at": source.created_at.isoformat(),
        },
        target={"id": target.pk, "name": target.name, "user_moved": moved_user},
        seats=sorted(pk for pk, _series in seats),
        series=series_ids,
        nights=nights,
    )
    source.delete()
    Series.objects.filter(pk__in=series_ids).update(version=F("version") + 1)
    _results_rewritten(league.pk, series_ids)
    return event


@transaction.atomic
def merge_undo(*, league: League, event_id: int, user: User | None) -> Player:
    """Take a merge back: the merged player comes back with the seats that were theirs.

    Refused when something since makes it impossible: the merge was undone already, the player
    it went into is gone (merged on into another, undo that first), one of the moved seats is
    another player's now, or the league has a player of the old name again.
    """
    league = _locked_league(league)
    event = (
        LeagueEvent.objects.select_for_update()
        .filter(league=league, pk=event_id, action=LeagueEvent.Action.MERGED)
        .first()
    )
    if event is None:
        raise LeagueError(_("There is no such merge in this league."))
    if event.undone_at is not None:
        raise LeagueError(_("This merge has been undone already."))
    data = event.data
    source, target_data = data["source"], data["target"]
    target = Player.objects.select_for_update().filter(league=league, pk=target_data["id"]).first()
    if target is None:
        raise LeagueError(
            _("%(name)s has since been merged into another player: undo that merge first.")
            % {"name": target_data["name"]}
        )
    seats = Seat.objects.filter(pk__in=data["seats"])
    if seats.exclude(player=target).exists():
        raise LeagueError(
            _("Some of these seats belong to another player now: undo the later merge first.")
        )
    key = player_names.stored_key(source["name"], source["name_key"])
    if Player.objects.filter(league=league, name_key=key).exists():
        raise LeagueError(
            _("The league has a player called %(name)s again: rename or merge them first.")
            % {"name": source["name"]}
        )
    if Player.objects.filter(pk=source["id"]).exists():
        raise LeagueError(_("This merge can no longer be undone."))
    give_back = target_data["user_moved"] and target.user_id == source["user"]
    restored_user = source["user"] if give_back else None
    if (
        restored_user is not None
        and not Membership.objects.filter(league=league, user_id=restored_user).exists()
    ):
        restored_user = None
    restored = Player(
        pk=source["id"], name=source["name"], name_key=source["name_key"], league=league
    )
    restored.user_id = restored_user
    restored.save(force_insert=True)
    Player.objects.filter(pk=source["id"]).update(
        created_at=source["created_at"]  # kept as it was
    )
    if give_back:
        target.user_id = None
        target.save(update_fields=["user"])
    series_ids = list(seats.values_list("series_id", flat=True))
    seats.update(player=restored)
    event_services.player_replace(
        league_id=league.pk, old_id=target.pk, new_id=restored.pk, only=data.get("nights", [])
    )
    event.undone_at = timezone.now()
    event.save(update_fields=["undone_at"])
    _event(
        league,
        LeagueEvent.Action.UNMERGED,
        user,
        merge=event.pk,
        source={"id": restored.pk, "name": restored.name},
        target={"id": target.pk, "name": target.name},
    )
    Series.objects.filter(pk__in=series_ids).update(version=F("version") + 1)
    _results_rewritten(league.pk, series_ids)
    return restored


def league_events(league: League) -> list[LeagueEvent]:
    return list(LeagueEvent.objects.filter(league=league).select_related("actor"))


# Archive and delete -------------------------------------------------------------------------


@transaction.atomic
def league_archive(*, league: League, user: User | None) -> League:
    """Make the league read-only and take it out of the lists; its public link still works."""
    league = _locked_league(league, archived_ok=True)
    if league.archived_at is not None:
        raise LeagueError(_("This league is archived already."))
    league.archived_at = timezone.now()
    league.save(update_fields=["archived_at"])
    _event(league, LeagueEvent.Action.ARCHIVED, user)
    return league


@transaction.atomic
def league_unarchive(*, league: League, user: User | None) -> League:
    league = _locked_league(league, archived_ok=True)
    if league.archived_at is None:
        raise LeagueError(_("This league is not archived."))
    league.archived_at = None
    league.save(update_fields=["archived_at"])
    _event(league, LeagueEvent.Action.UNARCHIVED, user)
    return league


#: What becomes of a deleted league's series.
SERIES_DELETE = "delete"
SERIES_KEEP = "keep"  # they become quick games


@transaction.atomic
def league_delete(*, league: League, user: User, confirm_name: str, series: str) -> int:
    """Delete the league (archived or not); its series go with it or become quick games, which
    stay with whoever started them (and their links). Returns how many series were kept."""
    league = _locked_league(league, archived_ok=True)
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
            game.score_token = new_token()
            game.watch_token = new_token()
            game.version += 1
        Series.objects.bulk_update(games, ["league", "score_token", "watch_token", "version"])
        kept = len(games)
    else:
        # A club night's tables hold on to their series: the nights go first.
        Event.objects.filter(league=league).delete()
        Series.objects.filter(league=league).delete()
    logger.info(
        "league %s deleted by user %s, %s series kept as quick games", league.pk, user.pk, kept
    )
    league.delete()
    return kept
