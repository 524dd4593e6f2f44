"""Writes to a league's players: link one to an account, rename, merge two (previewed, undone
from the league's changes); each one transaction under the league's row lock, refused with
``LeagueError``."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.core import names as player_names
from scoring.events import services as event_services
from scoring.leagues.services import LeagueError, league_event_record, league_locked
from scoring.models import MAX_NAME, League, LeagueEvent, Membership, Player, Seat, Series
from scoring.standings.running_totals import results_changed


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
    results_changed(league_id, since=first or (None, 0))


@transaction.atomic
def player_link_user(*, league: League, player_id: int, user_id: int | None) -> Player:
    """Say which member's account a league player is (or none); one player per member."""
    league = league_locked(league)
    player = _league_player(league, player_id)
    if user_id is not None:
        if not Membership.objects.filter(league=league, user_id=user_id).exists():
            raise LeagueError(_("Only a member of the league can be linked to a player."))
        Player.objects.filter(league=league, user_id=user_id).exclude(pk=player.pk).update(
            user=None
        )
    player.user_id = user_id
    player.save(update_fields=["user"])
    return player


def _league_player(league: League, player_id: int) -> Player:
    player = Player.objects.select_for_update().filter(league=league, pk=player_id).first()
    if player is None:
        raise LeagueError(_("There is no such player in this league."))
    return player


@transaction.atomic
def player_rename(*, league: League, player_id: int, name: str, user: User | None) -> Player:
    """Give a league player another name; a name another player has is refused (merge them)."""
    league = league_locked(league)
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
    league_event_record(
        league, LeagueEvent.Action.RENAMED, user, player=player.pk, before=before, after=clean
    )
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
    league = league_locked(league)
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
    event = league_event_record(
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
    """Take a merge back: the merged player comes back with the seats that were theirs, unless
    something since prevents it (the player it went into merged on, a moved seat now another's,
    a new player of the old name)."""
    league = league_locked(league)
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
    league_event_record(
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
