"""Every write to a club night: create it, start and finish rounds, re-seat, share the board.

Each table of a round is a normal league series (``table.services.series_start``), so the
league's history, sheets, standings and ratings count it like any other.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import rules
from scoring.core.modes import Mode
from scoring.events import seating
from scoring.models import (
    TV_CODE_ALPHABET,
    TV_CODE_LENGTH,
    DealEvent,
    Event,
    EventRound,
    EventTable,
    League,
    Player,
    Seat,
    Series,
    Table,
    new_token,
)
from scoring.table import life
from scoring.table import services as table_services

MAX_PLAYERS = 80
MAX_ROUNDS = 12


class EventError(Exception):
    """A change the club night refuses, with the reason in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def plan_rounds(plan: Sequence[dict]) -> list[seating.Round]:
    """The stored plan as the seating's rounds."""
    return [
        seating.Round(tables=tuple(tuple(t) for t in r["tables"]), out=tuple(r["out"]))
        for r in plan
    ]


def _named(names: Sequence[str], league: League) -> dict[str, Player]:
    """Each name's player, found in the league or created."""
    found = table_services.players_resolve(names=names, league=league) if names else []
    return dict(zip(names, found, strict=True))


def _with_new(players: Sequence[Player], named: Mapping[str, Player]) -> list[Player]:
    """The ticked players and those named, each once."""
    unique: dict[int, Player] = {}
    for player in [*players, *named.values()]:
        unique.setdefault(player.pk, player)
    return list(unique.values())


def _check_players(players: Sequence[Player], *, three_player_tables: bool) -> None:
    least = 3 if three_player_tables else 4
    if len(players) < least:
        raise EventError(_("Tick at least %(count)s present players.") % {"count": least})
    if len(players) > MAX_PLAYERS:
        raise EventError(
            _("A club night seats at most %(count)s players.") % {"count": MAX_PLAYERS}
        )


def _bump(event: Event) -> None:
    Event.objects.filter(pk=event.pk).update(version=F("version") + 1)
    event.refresh_from_db(fields=["version"])


def _boards_changed(played: EventRound) -> None:
    """The boards of a round's games say where their players sit in the next round: a new
    version for each, so that a phone still showing one (an old round's game, opened by its own
    address) hears of the next round, or of a seating changed, at its next poll."""
    Series.objects.filter(event_table__round=played).update(version=F("version") + 1)


def _tv_code() -> str:
    """A big screen's code that no other evening holds."""
    while True:
        code = "".join(secrets.choice(TV_CODE_ALPHABET) for _ in range(TV_CODE_LENGTH))
        if not Event.objects.filter(tv_code=code).exists():
            return code


@transaction.atomic
def event_create(
    *,
    league: League,
    name: str,
    players: Sequence[Player],
    names: Sequence[str] = (),
    rounds: int,
    length: str,
    length_value: int | None,
    ruleset: rules.Ruleset,
    three_player_tables: bool,
    tie_break: str,
    seed: int,
    user=None,
) -> Event:
    """A club night with its whole schedule, and its first round's tables started."""
    players = _with_new(players, _named(names, league))
    _check_players(players, three_player_tables=three_player_tables)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise EventError(_("Pick between 1 and %(count)s rounds.") % {"count": MAX_ROUNDS})
    ids = [p.pk for p in players]
    plan = seating.schedule(ids, rounds, seed=seed, three_player_tables=three_player_tables)
    event = Event.objects.create(
        league=league,
        name=name,
        rules=ruleset.to_dict(),
        rounds=rounds,
        length=length,
        length_value=length_value if length != Event.Length.GOAT else None,
        three_player_tables=three_player_tables,
        tie_break=tie_break,
        seed=seed,
        present=ids,
        plan=[r.as_json() for r in plan],
        share_token=new_token(),  # the players' page and the big screen's QR code
        tv_code=_tv_code(),  # the big screen on a TV, typed with its remote
        created_by=user if user is not None and user.is_authenticated else None,
    )
    _link_tables(event)
    round_start(event=event, user=user)
    return event


def _link_tables(event: Event) -> None:
    """A table with its link for the evening for every table its plan seats (``Table``)."""
    tables = max((len(planned["tables"]) for planned in event.plan), default=0)
    have = set(event.tables.values_list("number", flat=True))
    Table.objects.bulk_create(
        Table(event=event, number=number) for number in range(1, tables + 1) if number not in have
    )


def _locked(event: Event) -> Event:
    return Event.objects.select_for_update().get(pk=event.pk)


def current_round(event: Event) -> EventRound | None:
    return event.played_rounds.order_by("-number").first()


@transaction.atomic
def round_start(*, event: Event, user=None) -> EventRound:
    """The next round of the plan: a series for each of its tables."""
    event = _locked(event)
    last = current_round(event)
    if last is not None and last.finished_at is None:
        raise EventError(_("Finish the round in play first."))
    number = 1 if last is None else last.number + 1
    if number > event.rounds or number > len(event.plan):
        raise EventError(_("Every round of this club night has been played."))
    planned = event.plan[number - 1]
    players = Player.objects.in_bulk([p for t in planned["tables"] for p in t])
    if len(players) < sum(len(t) for t in planned["tables"]):
        # A plan from before merges rewrote club nights may name a player merged away since.
        raise EventError(
            _("A player of this round is no longer in the league: change who is present first.")
        )
    if last is not None:
        _boards_changed(last)  # its boards now say where their players sit, not "waiting"
    played = EventRound.objects.create(event=event, number=number, out=planned["out"])
    # A round of N deals: each table takes no deal after the Nth; of N minutes, none after the
    # one being played when the time is up.
    deal_limit = event.length_value if event.length == Event.Length.DEALS else None
    closes_at = None
    if event.length == Event.Length.MINUTES and event.length_value:
        closes_at = played.started_at + timedelta(minutes=event.length_value)
    at = {table.number: table for table in Table.objects.filter(event=event)}
    playing: set[int] = set()
    for position, seats in enumerate(planned["tables"], start=1):
        # Each table's links show this round's game at it (``series_start``).
        series = table_services.series_start(
            mode=Mode.TEAMS if len(seats) == 4 else Mode.THREE,
            players=[players[p] for p in seats],
            first_dealer=0,
            ruleset=event.ruleset,
            league=event.league,
            user=user,
            deal_limit=deal_limit,
            closes_at=closes_at,
            table=at[position],
        )
        EventTable.objects.create(round=played, number=position, series=series)
        playing.add(position)
    # Fewer tables this round: the others show no game.
    Table.objects.filter(event=event).exclude(number__in=playing).update(series=None)
    _bump(event)
    return played


class TablesPlaying(Exception):
    """Finishing was asked first and tables still play: nothing was changed."""

    def __init__(self, numbers: list[int]) -> None:
        super().__init__(f"tables still playing: {numbers}")
        self.numbers = numbers


@transaction.atomic
def round_finish(*, event: Event, ask_first: bool = False) -> EventRound:
    """End the round in play: its tables close (a deal being recorded at one is in the round's
    result, or refused), and a series not over is scored by its standing defeat points
    (``table.services.series_close``: its result, its league's standings folded).

    ``ask_first``: refuse with ``TablesPlaying`` (changing nothing) while a table is neither
    over nor closed at its limit, read under the tables' locks; the organiser confirms, then
    finishes without asking."""
    event = _locked(event)
    last = current_round(event)
    if last is None or last.finished_at is not None:
        raise EventError(_("No round is in play."))
    if ask_first:
        playing = Series.objects.select_for_update(of=("self",)).filter(
            event_table__round=last, finished=False, closed_at__isnull=True
        )
        numbers = sorted(playing.values_list("event_table__number", flat=True))
        if numbers:
            raise TablesPlaying(numbers)
    for table in EventTable.objects.filter(round=last).order_by("number"):
        table_services.series_close(series_id=table.series_id)
    last.finished_at = timezone.now()
    last.save(update_fields=["finished_at"])
    _bump(event)
    return last


@dataclass(frozen=True)
class Substituted:
    """A substitute who took a seat in the round under way: at which table, in whose place, and
    from which deal of its game on."""

    table: int
    left: str
    joined: str
    from_deal: int


@dataclass(frozen=True)
class PresentChanged:
    """What a change of who is present did: the substitutes seated in the round under way, and
    whether the seating changed (the printed table cards then show an older seating number)."""

    event: Event
    substituted: list[Substituted] = field(default_factory=list)
    reseated: bool = False


@transaction.atomic
def players_change(
    *,
    event: Event,
    players: Sequence[Player],
    names: Sequence[str] = (),
    substitutes: Mapping[int, int | str] | None = None,
    user=None,
) -> PresentChanged:
    """Late arrivals and early leavers: in the round under way, each substitute takes the seat
    of the player they replace (``substitutes``: the leaving player's id, and the substitute's,
    or a name of ``names``); the rounds not started are seated again for the players present,
    the rounds started are kept."""
    event = _locked(event)
    named = _named(names, event.league)
    players = _with_new(players, named)
    _check_players(players, three_player_tables=event.three_player_tables)
    present = {player.pk: player for player in players}
    substituted = []
    for leaving, joining in (substitutes or {}).items():
        substitute = named.get(joining) if isinstance(joining, str) else present.get(joining)
        if substitute is None:
            raise EventError(_("A substitute must be one of the players present."))
        if leaving in present:
            raise EventError(_("A player who stays keeps their seat: untick who leaves."))
        substituted.append(_seat_give(event, leaving=leaving, joining=substitute, user=user))
    started = event.played_rounds.count()
    kept = plan_rounds(event.plan[:started])
    ids = [p.pk for p in players]
    planned = {p for r in event.plan[started:] for t in [*r["tables"], r["out"]] for p in t}
    if set(ids) == set(event.present) and planned <= set(ids) and not substituted:
        return PresentChanged(event)  # the same players, all seated: the seating stays
    plan = seating.schedule(
        ids,
        event.rounds - started,
        seed=event.seed + started,
        three_player_tables=event.three_player_tables,
        played=kept,
    )
    new_plan = [r.as_json() for r in plan]
    reseated = bool(substituted) or new_plan != event.plan
    event.present = ids
    event.plan = new_plan
    if reseated:
        event.seating += 1  # the printed cards name an older seating
    event.save(update_fields=["present", "plan", "seating"])
    _link_tables(event)
    newest = current_round(event)
    if newest is not None and reseated:
        _boards_changed(newest)  # their boards say where the players sit next
    _bump(event)
    return PresentChanged(event, substituted, reseated)


def _seat_give(event: Event, *, leaving: int, joining: Player, user=None) -> Substituted:
    """The seat of ``leaving`` in the round under way goes to ``joining``, from the next deal of
    its game on (``event`` is locked; the caller seats the rounds to come again).

    Who a game counts for, as a Kozel club keeps it: the player in its seat when it ends. A
    series has one player a seat (``Seat``), and its result (won, the goat, defeat points, the
    rating) is the side's, decided at its end, so the substitute who plays it to the end takes
    the seat whole: the league's standings and ratings and the evening's leaderboard count the
    game for the substitute, and nothing of it for the player who left, who neither won nor
    lost it. The game's change log (``DealEvent.Action.SUBSTITUTE``, numbered by the first
    deal the substitute plays, with the seat's player before and after) says from which deal
    on. Only a game that still takes a deal (``life.deal_refusal``) takes a substitute: it has
    no result yet, so the league's running totals hold nothing of it to fold again
    (``running_totals.results_changed``); a game that has ended counts for who played it."""
    played = current_round(event)
    if played is None or played.finished_at is not None:
        raise EventError(_("No round is in play."))
    seat = (
        Seat.objects.filter(series__event_table__round=played, player_id=leaving)
        .select_related("player", "series__event_table")
        .first()
    )
    if seat is None:
        raise EventError(_("Only a player seated in the round in play can be replaced."))
    table = seat.series.event_table.number
    series = table_services.series_locked(seat.series_id)
    if life.deal_refusal(series) is not None:
        raise EventError(
            _("The game at table %(number)s has ended: it counts for who played it.")
            % {"number": table}
        )
    if Seat.objects.filter(series__event_table__round=played, player=joining).exists():
        raise EventError(_("%(name)s already plays in this round.") % {"name": joining.name})
    left = seat.player.name
    from_deal = series.deal_count + 1
    Seat.objects.filter(pk=seat.pk).update(player=joining)
    snapshot = {"position": seat.position}
    table_services.deal_logged(
        series,
        from_deal,
        DealEvent.Action.SUBSTITUTE,
        before={**snapshot, "player": leaving, "name": left},
        after={**snapshot, "player": joining.pk, "name": joining.name},
        user=user,
    )
    series.version += 1  # its phones show the substitute's name
    series.save(update_fields=["version", "updated_at"])
    # The round's plan and sit-outs as it is now played: "Find your seat", the cards and the
    # seating of the rounds to come count the substitute at this table.
    planned = event.plan[played.number - 1]
    planned["tables"] = [[joining.pk if p == leaving else p for p in t] for t in planned["tables"]]
    planned["out"] = [p for p in planned["out"] if p != joining.pk]
    if joining.pk in played.out:
        played.out = [p for p in played.out if p != joining.pk]
        played.save(update_fields=["out"])
    return Substituted(table=table, left=left, joined=joining.name, from_deal=from_deal)


@transaction.atomic
def table_link_renew(*, event: Event, number: int | None = None) -> int:
    """A new link for table ``number`` (every table's, for None): whoever held the old one (a
    phone, a printed card) is locked out and shown that the link no longer works. How many."""
    tables = Table.objects.select_for_update().filter(event=event)
    if number is not None:
        tables = tables.filter(number=number)
    renewed = 0
    for table in tables:
        table.score_token = new_token()
        table.save(update_fields=["score_token"])
        renewed += 1
    if renewed:
        _bump(event)
    return renewed


@transaction.atomic
def table_link_revoke(*, event: Event, number: int | None = None) -> int:
    """No link for table ``number`` (every table's, for None) until it is renewed. How many."""
    tables = Table.objects.filter(event=event, score_token__isnull=False)
    if number is not None:
        tables = tables.filter(number=number)
    revoked = tables.update(score_token=None)
    if revoked:
        _bump(event)
    return revoked


@transaction.atomic
def evening_links_revoke(*, event: Event) -> Event:
    """The evening's every link ends: its public link (the leaderboard, "Find your seat") and
    every table's. The organiser's own pages stay; renewing brings new links."""
    event = _locked(event)
    table_link_revoke(event=event)
    return share_revoke(event=event)


@transaction.atomic
def share_renew(*, event: Event) -> Event:
    """A new public link to the leaderboard, and a new code for the big screen (the old ones
    stop working)."""
    event.share_token = new_token()
    event.tv_code = _tv_code()
    event.save(update_fields=["share_token", "tv_code"])
    return event


@transaction.atomic
def share_revoke(*, event: Event) -> Event:
    """The public link ends, and the big screen's code with it."""
    event.share_token = None
    event.tv_code = None
    event.save(update_fields=["share_token", "tv_code"])
    return event


@transaction.atomic
def tv_code_renew(*, event: Event) -> Event:
    """A new code for the big screen (the old one stops opening it; a screen that opened it
    keeps showing the public board). Only while the public link is on: the code opens it."""
    event = _locked(event)
    if not event.share_token:
        raise EventError(_("Share the leaderboard first: the code opens its public big screen."))
    event.tv_code = _tv_code()
    event.save(update_fields=["tv_code"])
    return event


# A league's players merged (``leagues.services.players_merge``) or a merge undone -------------


def _player_ids(event: Event, rounds: Sequence[EventRound]) -> set[int]:
    """Every player id a club night names: present, seated or out in its plan, out in a round."""
    ids = set(event.present)
    for planned in event.plan:
        ids.update(p for table in planned["tables"] for p in table)
        ids.update(planned["out"])
    for played in rounds:
        ids.update(played.out)
    return ids


def _nights_of(
    league_id: int, player_id: int, *, lock: bool
) -> list[tuple[Event, list[EventRound]]]:
    """The league's club nights that name ``player_id``, each with its rounds (read with them,
    in one more query whatever their number); ``lock``: locked until the transaction ends."""
    events = Event.objects.filter(league_id=league_id).order_by("pk")
    if lock:
        events = events.select_for_update()
    found = []
    for event in events.prefetch_related("played_rounds"):
        rounds = list(event.played_rounds.all())
        if player_id in _player_ids(event, rounds):
            found.append((event, rounds))
    return found


def nights_together(*, league_id: int | None, first_id: int, second_id: int) -> list[str]:
    """The names of the league's club nights that name both players (two people, then); a read
    (a merge's preview), locking nothing."""
    if league_id is None:
        return []  # quick-game players have no club nights
    return [
        event.name
        for event, rounds in _nights_of(league_id, first_id, lock=False)
        if second_id in _player_ids(event, rounds)
    ]


@transaction.atomic
def player_replace(
    *, league_id: int, old_id: int, new_id: int, only: Sequence[int] | None = None
) -> list[int]:
    """``new_id`` wherever the league's club nights (those of ``only``, if given) name ``old_id``:
    present, in the plan and in the rounds' sit-outs, so that the rounds still to start seat a
    player who exists. Returns the ids of the club nights changed."""

    def swap(ids: Sequence[int]) -> list[int]:
        return [new_id if pk == old_id else pk for pk in ids]

    changed = []
    for event, rounds in _nights_of(league_id, old_id, lock=True):
        if only is not None and event.pk not in only:
            continue
        event.present = swap(event.present)
        event.plan = [
            {**planned, "tables": [swap(t) for t in planned["tables"]], "out": swap(planned["out"])}
            for planned in event.plan
        ]
        event.save(update_fields=["present", "plan"])
        for played in rounds:
            if old_id in played.out:
                played.out = swap(played.out)
                played.save(update_fields=["out"])
        _bump(event)
        changed.append(event.pk)
    return changed
