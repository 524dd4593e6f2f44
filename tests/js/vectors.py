"""Golden vectors: random series scored by this engine, for its JavaScript port to replay.

``static/js/kozel-rules.js`` scores deals on the phone; ``tests/js/rules.test.mjs`` replays every
line written here and compares every step, so a rule changed in one language only fails the
build (make rules-js: ``python -m tests.js.vectors``). It imports nothing from Django.

What the series cover is said in docs/ARCHITECTURE.md ("The rules in JavaScript"). Each line
is a JSON object whose ``kind`` says what it holds:

- ``engine``: the constants (card points, which sums are possible, the house-rule choices, the
  presets, which side each seat plays for).
- ``series``: ``rules`` (``Ruleset.to_dict()``), ``mode``, ``seat_sides``, ``first_dealer``,
  ``start`` (the state before any deal) and ``steps``: per deal entered, its raw ``points`` and
  ``tricks`` as the site hands them to ``Deal`` then ``Series.add``, and either ``outcome`` and
  ``state`` (with ``closed_winner``: the result were the series closed then) or ``refused`` (the
  ``InvalidDeal``: template, params, side, field, number; the state is then unchanged).
- ``replay``: ``replay(sides, raw points, rules)``: the final ``state`` or the ``refused``.
- ``score``: ``score_deal(points, tricks, rules, multiplier)``: ``score`` or ``refused``.
- ``ruleset``: ``Ruleset.from_dict(data)``: its ``rules`` or ``refused`` (True).

Only what JSON says alike in both languages is written: a float is never whole where Python
would tell 2.0 from 2 (a multiplier, a house rule), no number is past JavaScript's safe
integers, and a mapping is never given where Python would read its keys as a sequence (the raw
deals of ``replay`` and ``score_deal``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

from scoring.rules.cards import CARD_POINTS, DEAL_TOTAL, POSSIBLE_SIDE_POINTS, is_possible_split
from scoring.rules.deal import Deal
from scoring.rules.errors import InvalidDeal, InvalidRuleset
from scoring.rules.ruleset import (
    EGGS_CHOICES,
    ENDING_CHOICES,
    MAX_TARGET,
    NAKED_CHOICES,
    PRESETS,
    Ruleset,
)
from scoring.rules.scoring import score_deal
from scoring.rules.series import Series, SeriesState, replay, result_winner
from scoring.rules.table import SEAT_SIDES, dealer_seat, first_leader_seat

FORMAT = 1
#: Seats per mode (the site's ``scoring.core.modes``, which imports Django).
MODES = {"teams": 4, "duel": 2, "three": 3}
#: The share of entered deals that are invalid, and the most deals one series is given.
INVALID_SHARE = 0.15
MAX_STEPS = 150

#: Values that are not card points, each refused as "not a whole number".
NOT_WHOLE: tuple[Any, ...] = (
    60.5,
    30.25,
    -0.5,
    120.5,
    "60",
    "",
    "abc",
    "x" * 25,
    "шестьдесят очков за взятки",
    "🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡🂡",
    None,
    True,
    False,
    [60],
    [1.5, "a", None, True],
    {"a": 1},
)


def generate(count: int, seed: int) -> Iterator[dict[str, Any]]:
    """The vectors: the engine line, then per series its ``series``, ``replay`` and ``score``
    lines, and a ``ruleset`` line every fifth series. The same ``seed`` gives the same lines."""
    rng = random.Random(seed)
    yield engine_line()
    for index in range(count):
        line = series_line(rng, index)
        yield line
        yield replay_line(line)
        yield score_line(rng, index)
        if index % 5 == 0:
            yield ruleset_line(rng, index)


def engine_line() -> dict[str, Any]:
    return {
        "kind": "engine",
        "format": FORMAT,
        "deal_total": DEAL_TOTAL,
        "card_points": CARD_POINTS,
        "possible_side_points": sorted(POSSIBLE_SIDE_POINTS),
        "naked_choices": list(NAKED_CHOICES),
        "eggs_choices": list(EGGS_CHOICES),
        "ending_choices": list(ENDING_CHOICES),
        "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
        "seat_sides": {str(seats): list(sides) for seats, sides in SEAT_SIDES.items()},
    }


def series_line(rng: random.Random, index: int) -> dict[str, Any]:
    rules = random_rules(rng)
    mode = rng.choice(list(MODES))
    seat_sides = SEAT_SIDES[MODES[mode]]
    first_dealer = rng.randrange(len(seat_sides))
    series = Series(len(set(seat_sides)), rules=rules)

    def state() -> dict[str, Any]:
        return _state(series.state, first_dealer, seat_sides)

    steps: list[dict[str, Any]] = []
    after_end = rng.choice((0, 0, 1, 2))  # deals entered after the series is over
    eggs_before = False
    while len(steps) < MAX_STEPS:
        if series.finished:
            if not after_end:
                break
            after_end -= 1
        sides = len(series.in_play)
        if sides < 2:  # over: the winner alone is left; enter a deal for two or for everyone
            sides = rng.choice((2, len(set(seat_sides))))
        if rng.random() < INVALID_SHARE:
            points, tricks = invalid_deal(rng, sides)
        else:
            points, tricks = valid_deal(rng, sides, rules, eggs_before)
        step: dict[str, Any] = {"points": points, "tricks": tricks}
        try:
            # What the site does with a deal form's values (deals.deal_record).
            outcome = series.add(Deal(_tupled(points), _tupled(tricks)))
        except InvalidDeal as error:
            step["refused"] = _refusal(error)
        else:
            eggs_before = outcome.eggs
            step["outcome"] = {
                "number": outcome.number,
                "points": list(outcome.deal.points),
                "tricks": _listed(outcome.deal.tricks),
                "in_play": list(outcome.in_play),
                "defeat": list(outcome.defeat),
                "eggs": outcome.eggs,
                "multiplier": outcome.multiplier,
                "totals": list(outcome.totals),
                "out": list(outcome.out),
                "naked": list(outcome.naked),
            }
            step["state"] = state()
        steps.append(step)
    return {
        "kind": "series",
        "id": index,
        "rules": rules.to_dict(),
        "mode": mode,
        "seat_sides": list(seat_sides),
        "first_dealer": first_dealer,
        "start": _state(Series(len(set(seat_sides)), rules=rules).state, first_dealer, seat_sides),
        "steps": steps,
    }


def replay_line(series: dict[str, Any]) -> dict[str, Any]:
    """The series' deals replayed from their points alone (a 0 then needs its trick answer)."""
    deals = [step["points"] for step in series["steps"] if not isinstance(step["points"], dict)]
    rules = Ruleset.from_dict(series["rules"])
    sides = len(set(series["seat_sides"]))
    line: dict[str, Any] = {"kind": "replay", "id": series["id"], "rules": series["rules"]}
    line |= {"sides": sides, "deals": deals}
    try:
        state = replay(sides, [_tupled(points) for points in deals], rules=rules)
    except InvalidDeal as error:
        line["refused"] = _refusal(error)
    else:
        line["state"] = _state(state, None, None)
    return line


def score_line(rng: random.Random, index: int) -> dict[str, Any]:
    rules = random_rules(rng)
    sides = rng.choice((2, 3))
    while True:
        if rng.random() < 0.3:
            points, tricks = invalid_deal(rng, sides)
        else:
            points, tricks = valid_deal(rng, sides, rules, rng.random() < 0.5)
        if not isinstance(points, dict) and not isinstance(tricks, dict):
            break
    multiplier: Any = rng.choice((1, 1, 1, 2, 3, 4, 7, 0, -1, 1.5, True, "2", None, [2]))
    line: dict[str, Any] = {"kind": "score", "id": index, "rules": rules.to_dict()}
    line |= {"points": points, "tricks": tricks, "multiplier": multiplier}
    try:
        score = score_deal(points, tricks, rules=rules, multiplier=multiplier)
    except InvalidDeal as error:
        line["refused"] = _refusal(error)
    else:
        line["score"] = {"defeat": list(score.defeat), "eggs": score.eggs}
    return line


def ruleset_line(rng: random.Random, index: int) -> dict[str, Any]:
    data: Any = {
        name: value for name, value in random_rules(rng).to_dict().items() if rng.random() < 0.7
    }
    spoil = rng.randrange(8)
    if spoil == 0:
        data = rng.choice(([], None, "classic", 12, [["target", 12]]))
    elif spoil == 1:
        data[rng.choice(("goal", "toString", "__proto__", "Target", ""))] = 12
    elif spoil == 2:
        name = rng.choice(("target", "save_line", "save_line_three"))
        data[name] = rng.choice((0, -1, 61, 1000, MAX_TARGET, 60, 1, True, "12", 12.5, None))
    elif spoil == 3:
        name = rng.choice(("naked", "eggs", "ending"))
        data[name] = rng.choice(("bogus", "", None, 1, True, ["none"], "Tricks", "first out"))
    line: dict[str, Any] = {"kind": "ruleset", "id": index, "data": data}
    try:
        line["rules"] = Ruleset.from_dict(data).to_dict()
    except InvalidRuleset:
        line["refused"] = True
    return line


def random_rules(rng: random.Random) -> Ruleset:
    """A preset, or custom house rules with every setting drawn from its whole range."""
    if rng.random() < 0.4:
        return rng.choice(list(PRESETS.values()))
    roll = rng.random()
    if roll < 0.1:
        target = rng.randint(1, 4)
    elif roll < 0.85:
        target = rng.randint(5, 30)
    elif roll < 0.95:
        target = rng.randint(31, 100)
    else:
        target = rng.randint(101, MAX_TARGET)
    return Ruleset(
        target=target,
        save_line=rng.choice((31, 21, rng.randint(1, 60))),
        save_line_three=rng.choice((21, 31, rng.randint(1, 60))),
        naked=rng.choice(NAKED_CHOICES),
        eggs=rng.choice(EGGS_CHOICES),
        ending=rng.choice(ENDING_CHOICES),
    )


def valid_deal(
    rng: random.Random, sides: int, rules: Ruleset, eggs_before: bool
) -> tuple[list[Any], list[bool] | None]:
    """Points and trick answers of a deal the engine accepts, often one the rules single out."""
    line = rules.save_line_for(sides)
    roll = rng.random()
    if sides == 2:
        if roll < (0.4 if eggs_before else 0.12):
            points = [60, 60]  # eggs, and runs of eggs for the multiplier
        else:
            if roll < 0.25:
                loser = 0  # naked, or a trick worth nothing
            elif roll < 0.5:
                loser = rng.choice((line - 1, line, line + 1, 30, 31, 20, 21, 59))
            else:
                loser = rng.randint(0, 59)
            if loser not in POSSIBLE_SIDE_POINTS or not 0 <= loser < 60:
                loser = rng.choice((0, 2, 30, 40, 59))
            points = [DEAL_TOTAL - loser, loser]
            rng.shuffle(points)
    else:
        if roll < 0.06:
            points = [40, 40, 40]
        elif roll < 0.18:
            top = rng.choice((41, 45, 50, 55, 60))
            points = [top, top, DEAL_TOTAL - 2 * top]  # a shared top
        elif roll < 0.4:
            low = rng.choice((0, 0, line - 1, line, line + 1, 20, 21))  # naked, the save line
            high = rng.randint(0, DEAL_TOTAL - low)
            points = [low, high, DEAL_TOTAL - low - high]
        else:
            first = rng.randint(0, DEAL_TOTAL)
            second = rng.randint(0, DEAL_TOTAL - first)
            points = [first, second, DEAL_TOTAL - first - second]
        if not is_possible_split(tuple(points)):
            points = [50, 40, 30]
        rng.shuffle(points)
    return points, _answers(rng, points)


def invalid_deal(rng: random.Random, sides: int) -> tuple[Any, Any]:
    """Points and trick answers of a deal refused for one reason or another (or, now and then,
    accepted after all: whole floats are whole numbers)."""
    points: Any = _split(rng, sides)
    tricks: Any = _answers(rng, points)
    kind = rng.randrange(12)
    side = rng.randrange(sides)
    if kind == 0:  # the wrong total
        points[side] = min(max(points[side] + rng.choice((-10, -2, -1, 1, 3, 30)), 0), DEAL_TOTAL)
        tricks = _answers(rng, points)
    elif kind == 1:  # outside 0..120
        points[side] = rng.choice((-1, -20, 121, 200, 1000, -(10**6)))
    elif kind == 2:  # a value no set of cards is worth
        points = rng.choice(([1, 119], [119, 1])) if sides == 2 else [1, 59, 60]
        rng.shuffle(points)
    elif kind == 3:  # not a whole number
        points[side] = rng.choice(NOT_WHOLE)
    elif kind == 4:  # too few or too many sides for any deal
        points = rng.choice(([], [120], [30, 30, 30, 30], [20] * 6))
    elif kind == 5:  # a valid deal for the wrong number of sides in play
        points = _split(rng, 5 - sides)
        tricks = _answers(rng, points)
    elif kind == 6:  # a side with 0 points and no answer about tricks
        points = [DEAL_TOTAL, 0] if sides == 2 else [70, 50, 0]
        rng.shuffle(points)
        tricks = None
    elif kind == 7:  # trick answers of the wrong shape
        tricks = rng.choice(("yes", True, 1, {"0": True}, [True] * (sides - 1), [True] * 4, []))
    elif kind == 8:  # a trick answer that is not yes or no
        tricks = [True] * sides
        tricks[side] = rng.choice((1, 0, "yes", None, "true", [True]))
    elif kind == 9:  # "no trick" for a side with points
        points = _split(rng, sides)
        tricks = [True] * sides
        tricks[points.index(max(points))] = False
    elif kind == 10:  # not a list of points at all
        points = rng.choice((None, "60 60", 120, True, {"points": [60, 60]}))
    else:  # whole floats are whole numbers: accepted
        points = [float(value) for value in points]
    return points, tricks


def _split(rng: random.Random, sides: int) -> list[int]:
    while True:
        first = rng.randint(0, DEAL_TOTAL)
        second = rng.randint(0, DEAL_TOTAL - first) if sides == 3 else DEAL_TOTAL - first
        points = [first, second] + ([DEAL_TOTAL - first - second] if sides == 3 else [])
        if is_possible_split(tuple(points)):
            return points


def _answers(rng: random.Random, points: list[Any]) -> list[bool] | None:
    """Trick answers as the deal form gives them: asked for a side with 0 points only."""
    if 0 in points:
        return [value != 0 or rng.random() < 0.5 for value in points]
    return None if rng.random() < 0.7 else [True] * len(points)


def _state(
    state: SeriesState, first_dealer: int | None, seat_sides: tuple[int, ...] | None
) -> dict[str, Any]:
    data = {
        "deals": len(state.deals),
        "totals": list(state.totals),
        "in_play": list(state.in_play),
        "out": list(state.out),
        "goats": list(state.goats),
        "winner": state.winner,
        "finished": state.finished,
        "eggs": state.eggs,
        "multiplier": state.multiplier,
        "to_target": list(state.to_target),
        "goats_with_eggs": state.goats_with_eggs,
        # Every way a game ends: its result were it closed now (its limit, its time, the
        # organiser), as RULES.md's "A game that ends before the goat" scores it.
        "closed_winner": result_winner(state, closed=True),
    }
    if first_dealer is not None and seat_sides is not None:
        dealer = dealer_seat(first_dealer, seat_sides, state)
        data["dealer"] = dealer
        data["leader"] = first_leader_seat(dealer, seat_sides, state)
    return data


def _refusal(error: InvalidDeal) -> dict[str, Any]:
    return {
        "template": error.template,
        "params": error.params,
        "side": error.side,
        "field": error.field,
        "number": error.number,
    }


def _tupled(value: Any) -> Any:
    """A list as the tuple the site passes; anything else as it is, for ``Deal`` to refuse."""
    return tuple(value) if isinstance(value, list) else value


def _listed(value: tuple[Any, ...] | None) -> list[Any] | None:
    return None if value is None else list(value)


def write(count: int, seed: int, output: str) -> tuple[int, int]:
    """Write ``count`` series of ``seed`` as JSON lines to ``output`` (- for stdout); how many
    series and deals entered."""
    series = steps = 0
    stream = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for line in generate(count, seed):
            if line["kind"] == "series":
                series += 1
                steps += len(line["steps"])
            stream.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    finally:
        if stream is not sys.stdout:
            stream.close()
    return series, steps


if __name__ == "__main__":  # python -m tests.js.vectors (make rules-js)
    parser = argparse.ArgumentParser(description="Golden vectors for static/js/kozel-rules.js.")
    parser.add_argument("--count", type=int, default=3000, help="how many series (3000)")
    parser.add_argument("--seed", type=int, default=15, help="the random seed (15)")
    parser.add_argument("--output", default="-", help="the file to write (- for stdout)")
    arguments = parser.parse_args()
    started = time.perf_counter()
    written, entered = write(arguments.count, arguments.seed, arguments.output)
    print(
        f"rules vectors: {written} series, {entered} deals entered, seed {arguments.seed}, "
        f"in {time.perf_counter() - started:.1f} s -> {arguments.output}",
        file=sys.stderr,
    )
