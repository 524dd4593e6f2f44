"""Every write to a club night: create it, start and finish rounds, re-seat, share the board.

Each table of a round is a normal league series (``table.services.series_start``), so the
league's history, sheets, standings and ratings count it like any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring import rules
from scoring.events import seating
from scoring.models import (
    Event,
    EventRound,
    EventTable,
    EventTableLink,
    League,
    Player,
    Series,
    new_token,
)
from scoring.modes import Mode
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


def _with_new(players: Sequence[Player], names: Sequence[str], league: League) -> list[Player]:
    """The ticked players and those named (found in the league or created), each once."""
    found = table_services.players_resolve(names=names, league=league) if names else []
    unique: dict[int, Player] = {}
    for player in [*players, *found]:
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
    players = _with_new(players, names, league)
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
        created_by=user if user is not None and user.is_authenticated else None,
    )
    _link_tables(event)
    round_start(event=event, user=user)
    return event


def _link_tables(event: Event) -> None:
    """A link for the evening for every table its plan seats (``EventTableLink``)."""
    tables = max((len(planned["tables"]) for planned in event.plan), default=0)
    have = set(event.table_links.values_list("number", flat=True))
    EventTableLink.objects.bulk_create(
        EventTableLink(event=event, number=number)
        for number in range(1, tables + 1)
        if number not in have
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
    played = EventRound.objects.create(event=event, number=number, out=planned["out"])
    # A round of N deals: each table takes no deal after the Nth; of N minutes, none after the
    # one being played when the time is up.
    deal_limit = event.length_value if event.length == Event.Length.DEALS else None
    closes_at = None
    if event.length == Event.Length.MINUTES and event.length_value:
        closes_at = played.started_at + timedelta(minutes=event.length_value)
    games: dict[int, Series] = {}
    for position, seats in enumerate(planned["tables"], start=1):
        series = table_services.series_start(
            mode=Mode.TEAMS if len(seats) == 4 else Mode.THREE,
            players=[players[p] for p in seats],
            first_dealer=0,
            ruleset=event.ruleset,
            league=event.league,
            user=user,
            deal_limit=deal_limit,
            closes_at=closes_at,
        )
        EventTable.objects.create(round=played, number=position, series=series)
        games[position] = series
    # Each table's link shows this round's game at it (or none: fewer tables this round).
    for link in EventTableLink.objects.filter(event=event):
        link.series = games.get(link.number)
        link.save(update_fields=["series"])
    _bump(event)
    return played


def standing_winner(totals: Sequence[int]) -> int | None:
    """The rule for a series the round's end cut short: the side with the fewest defeat points
    wins; sides level, nobody does."""
    if not totals:
        return None
    least = min(totals)
    leaders = [side for side, total in enumerate(totals) if total == least]
    return leaders[0] if len(leaders) == 1 else None


class TablesPlaying(Exception):
    """Finishing was asked first and tables still play: nothing was changed."""

    def __init__(self, numbers: list[int]) -> None:
        super().__init__(f"tables still playing: {numbers}")
        self.numbers = numbers


@transaction.atomic
def round_finish(*, event: Event, ask_first: bool = False) -> EventRound:
    """End the round in play: its tables close (a deal being recorded at one is in the round's
    result, or refused), and a series not over is scored by its standing defeat points.

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
        series = table_services.series_close(series_id=table.series_id)
        if not series.finished:
            table.adjudicated = True
            table.adjudicated_winner = standing_winner(series.totals)
            table.save(update_fields=["adjudicated", "adjudicated_winner"])
    last.finished_at = timezone.now()
    last.save(update_fields=["finished_at"])
    _bump(event)
    return last


@transaction.atomic
def players_change(*, event: Event, players: Sequence[Player], names: Sequence[str] = ()) -> Event:
    """Late arrivals and early leavers: re-seat the rounds not started, keep the others."""
    event = _locked(event)
    players = _with_new(players, names, event.league)
    _check_players(players, three_player_tables=event.three_player_tables)
    started = event.played_rounds.count()
    kept = plan_rounds(event.plan[:started])
    ids = [p.pk for p in players]
    plan = seating.schedule(
        ids,
        event.rounds - started,
        seed=event.seed + started,
        three_player_tables=event.three_player_tables,
        played=kept,
    )
    event.present = ids
    event.plan = [r.as_json() for r in plan]
    event.save(update_fields=["present", "plan"])
    _link_tables(event)
    _bump(event)
    return event


@transaction.atomic
def share_renew(*, event: Event) -> Event:
    """A new public link to the leaderboard (the old one stops working)."""
    event.share_token = new_token()
    event.save(update_fields=["share_token"])
    return event


@transaction.atomic
def share_revoke(*, event: Event) -> Event:
    event.share_token = None
    event.save(update_fields=["share_token"])
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
