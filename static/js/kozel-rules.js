// The Kozel rules for the phone: a port of scoring/rules (Python), which stays the one source.
// `manage.py rules_vectors` writes thousands of random series scored by the Python engine and
// tests/js/rules.test.mjs replays every deal here and compares every step, refusals included:
// a rule changed in one language only fails `make test`. An ES module, no DOM, no dependencies.

export const DEAL_TOTAL = 120;
export const CARD_POINTS = { 6: 0, 7: 0, 8: 0, 9: 0, J: 2, Q: 3, K: 4, 10: 10, A: 11 };
export const NAKED_CHOICES = ["tricks", "points"];
export const EGGS_CHOICES = ["none", "both-two", "double-next", "stacking"];
export const ENDING_CHOICES = ["last-standing", "first-out"];
// Which side each seat plays for, by number of seats (partners sit opposite).
export const SEAT_SIDES = { 4: [0, 1, 0, 1], 3: [0, 1, 2], 2: [0, 1] };
const SAVED = 2;
const BEATEN = 4;
const NAKED = 6;
const SIZE = DEAL_TOTAL + 1;

// reach[a * SIZE + b]: the 36 cards can be split into piles worth a, b and 120 - a - b.
// Computed from the card multiset as cards.py does, never from a hand-made list.
const reach = (() => {
  let table = new Uint8Array(SIZE * SIZE);
  table[0] = 1;
  for (const value of Object.values(CARD_POINTS)) {
    for (let suit = 0; value && suit < 4; suit++) {
      const next = table.slice();
      for (let a = 0; a <= DEAL_TOTAL; a++) {
        for (let b = 0; a + b <= DEAL_TOTAL; b++) {
          if (!table[a * SIZE + b]) continue;
          if (a + b + value <= DEAL_TOTAL) {
            next[a * SIZE + b + value] = 1; // the card goes to the second pile
            next[(a + value) * SIZE + b] = 1; // or to the first
          }
        }
      }
      table = next; // (or to the third: the entry stays)
    }
  }
  return table;
})();

// Every total one side's trick pile can be worth (0..120 without 1 and 119).
export const POSSIBLE_SIDE_POINTS = [...Array(SIZE).keys()].filter((a) => reach[a * SIZE]);

function isPossibleSplit(points) {
  if (points.reduce((sum, value) => sum + value, 0) !== DEAL_TOTAL) return false;
  return !!reach[points[0] * SIZE + (points.length === 2 ? 0 : points[1])];
}

const DEFAULTS = {
  target: 12,
  save_line: 31,
  save_line_three: 21,
  naked: "tricks",
  eggs: "none",
  ending: "last-standing",
};

export const PRESETS = Object.freeze({
  classic: rulesFrom({}),
  "eggs-double": rulesFrom({ eggs: "double-next" }),
  "eggs-stacking": rulesFrom({ eggs: "stacking" }),
  "tie-penalty": rulesFrom({ eggs: "both-two", ending: "last-standing" }),
});

// The house rules from their stored form (Ruleset.from_dict): missing settings default,
// unknown ones and bad values are refused with an Error (the server never sends them).
export function rulesFrom(data) {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new Error("house rules must be a mapping of setting names to values");
  }
  const unknown = Object.keys(data).filter((name) => !Object.hasOwn(DEFAULTS, name));
  if (unknown.length) throw new Error(`unknown house-rule setting(s): ${unknown.sort().join(", ")}`);
  const rules = { ...DEFAULTS, ...data };
  for (const [name, high] of [["target", 999], ["save_line", 60], ["save_line_three", 60]]) {
    const value = rules[name];
    if (!Number.isInteger(value) || value < 1 || value > high) {
      throw new Error(`${name} must be a whole number between 1 and ${high}, not ${value}`);
    }
  }
  const choices = { naked: NAKED_CHOICES, eggs: EGGS_CHOICES, ending: ENDING_CHOICES };
  for (const [name, allowed] of Object.entries(choices)) {
    if (!allowed.includes(rules[name])) throw new Error(`${name} must be one of ${allowed.join(", ")}`);
  }
  return Object.freeze(rules);
}

// A deal the rules refuse: `template` is the English message id (translated by the site),
// `params` fill it in, `side` and `field` ("points" or "tricks") say what it is about, and
// `number` is the deal's number when the series refused it.
export class InvalidDeal extends Error {
  constructor(template, params = {}, { side = null, field = null, number = null } = {}) {
    super();
    Object.assign(this, { template, params, side, field, number });
    this.message = this.render();
  }

  render(translate = (text) => text) {
    const reason = format(translate(this.template), this.params);
    return this.number === null ? reason : format(translate(DEAL_PREFIX), { number: this.number, reason });
  }
}

const DEAL_PREFIX = "Deal %(number)s: %(reason)s";
const format = (template, params) => template.replace(/%\((\w+)\)s/g, (_, name) => String(params[name]));

// How Python's str() prints a value the player typed, cut at 20 characters (deal._shown); for
// what a form or JSON holds (nested strings are quoted plainly, without Python's escapes).
function shown(value) {
  const text = Array.from(python(value, false));
  return text.length <= 20 ? text.join("") : text.slice(0, 19).join("") + "…";
}

function python(value, quoted) {
  if (value === null || value === undefined) return "None";
  if (value === true || value === false) return value ? "True" : "False";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return value !== value ? "nan" : value > 0 ? "inf" : "-inf";
    return String(value); // an int, or a float Python prints alike (60.5)
  }
  if (typeof value === "string") return quoted ? `'${value}'` : value;
  if (Array.isArray(value)) return `[${value.map((item) => python(item, true)).join(", ")}]`;
  // No template inside another's ${}: the minifier would squeeze the inner one's spaces.
  const items = Object.entries(value).map(([k, v]) => "'" + k + "': " + python(v, true));
  return "{" + items.join(", ") + "}";
}

// Card points per side in play and, per side, whether it took a trick (null: no side has 0
// points), checked when made as deal.Deal is, with the same refusals in the same order.
export class Deal {
  constructor(points, tricks = null) {
    this.points = wholeNumbers(points);
    this.tricks = checkTricks(tricks, this.points);
    Object.freeze(this);
  }
}

function wholeNumbers(raw) {
  if (!Array.isArray(raw)) throw new InvalidDeal("Enter the card points of every side.");
  if (raw.length < 2 || raw.length > 3) {
    throw new InvalidDeal("A deal has two or three sides, not %(count)s.", { count: raw.length });
  }
  const points = raw.map((value, side) => {
    // Python takes an int, or a float that is whole; never a bool, a string or None.
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new InvalidDeal(
        "Card points are whole numbers; %(value)s is not one.",
        { value: shown(value) },
        { side, field: "points" },
      );
    }
    if (value < 0 || value > DEAL_TOTAL) {
      throw new InvalidDeal(
        "Card points are between 0 and 120; %(value)s is not.",
        { value },
        { side, field: "points" },
      );
    }
    return value + 0; // -0 is 0
  });
  const total = points.reduce((sum, value) => sum + value, 0);
  if (total !== DEAL_TOTAL) {
    throw new InvalidDeal("The card points add up to %(total)s, but every deal has 120 in all.", { total });
  }
  points.forEach((value, side) => {
    if (!POSSIBLE_SIDE_POINTS.includes(value)) {
      throw new InvalidDeal(
        "%(value)s is impossible: no set of cards is worth that.",
        { value },
        { side, field: "points" },
      );
    }
  });
  if (!isPossibleSplit(points)) {
    throw new InvalidDeal("The cards cannot be split into piles worth these points.");
  }
  return points;
}

function checkTricks(raw, points) {
  if (raw === null || raw === undefined) {
    const side = points.indexOf(0);
    if (side >= 0) {
      throw new InvalidDeal("Say whether the side with 0 points took a trick.", {}, { side, field: "tricks" });
    }
    return null;
  }
  if (!Array.isArray(raw) || raw.length !== points.length) {
    throw new InvalidDeal(
      "Say for each of the %(count)s sides whether it took a trick.",
      { count: points.length },
      { field: "tricks" },
    );
  }
  raw.forEach((took, side) => {
    if (typeof took !== "boolean") {
      throw new InvalidDeal("Answer yes or no: did this side take a trick?", {}, { side, field: "tricks" });
    }
    if (points[side] > 0 && !took) {
      throw new InvalidDeal(
        "A side with %(value)s card points took at least one trick.",
        { value: points[side] },
        { side, field: "tricks" },
      );
    }
  });
  return [...raw];
}

// A losing side's defeat points: 2 at or above the save line, else 4, or 6 when naked.
function defeatOfLoser(points, tookTrick, saveLine, naked) {
  if (points >= saveLine) return SAVED;
  if (naked === "points") return points === 0 ? NAKED : BEATEN;
  return tookTrick ? BEATEN : NAKED;
}

// Defeat points per side of a checked deal, before any eggs multiplier (scoring.base_defeat).
function baseDefeat(deal, rules) {
  const { points } = deal;
  const took = deal.tricks || points.map(() => true);
  if (points.length === 2) {
    const [first, second] = points;
    if (first === second) return rules.eggs === "both-two" ? [SAVED, SAVED] : [0, 0];
    if (first > second) return [0, defeatOfLoser(second, took[1], rules.save_line, rules.naked)];
    return [defeatOfLoser(first, took[0], rules.save_line, rules.naked), 0];
  }
  // Three sides: the top side scores 0, or 2 each when several share the top.
  const top = Math.max(...points);
  const shared = points.filter((value) => value === top).length > 1;
  return points.map((value, side) =>
    value === top ? (shared ? SAVED : 0) : defeatOfLoser(value, took[side], rules.save_line_three, rules.naked),
  );
}

// One deal on its own (scoring.score_deal): defeat points per side times `multiplier`, and eggs.
export function scoreDeal(points, tricks, rules, multiplier = 1) {
  const deal = points instanceof Deal ? points : new Deal(points, tricks);
  if (!Number.isInteger(multiplier) || multiplier < 1) {
    throw new InvalidDeal("The eggs multiplier is a whole number from 1 up, not %(value)s.", {
      value: shown(multiplier),
    });
  }
  return { defeat: baseDefeat(deal, rules).map((value) => value * multiplier), eggs: isEggs(deal) };
}

const isEggs = (deal) => deal.points.length === 2 && deal.points[0] === deal.points[1];

// A series being played (series.Series): `add` scores the next deal or throws InvalidDeal
// (and then nothing changes); `state` says where the series stands.
export class Series {
  constructor(sides, rules = PRESETS.classic) {
    if (sides !== 2 && sides !== 3) throw new Error(`a series has two or three sides, not ${sides}`);
    this.rules = rules;
    this.totals = Array(sides).fill(0);
    this.inPlay = [...Array(sides).keys()];
    this.out = [];
    this.goats = [];
    this.winner = null;
    this.finished = false;
    this.eggs = 0;
    this.multiplier = 1;
    this.deals = [];
  }

  // `deal` is a Deal, or just its points (then a refusal names the deal, as in Python).
  add(deal) {
    const number = this.deals.length + 1;
    if (!(deal instanceof Deal)) {
      try {
        deal = new Deal(deal);
      } catch (error) {
        throw new InvalidDeal(error.template, error.params, { ...error, number });
      }
    }
    if (this.finished) throw new InvalidDeal("The series is over; no deal can be added.", {}, { number });
    const inPlay = this.inPlay;
    if (deal.points.length !== inPlay.length) {
      throw new InvalidDeal(
        "%(expected)s sides are in play, but this deal has points for %(count)s.",
        { expected: inPlay.length, count: deal.points.length },
        { number },
      );
    }
    const multiplier = this.multiplier;
    const defeat = this.totals.map(() => 0);
    baseDefeat(deal, this.rules).forEach((value, index) => (defeat[inPlay[index]] = value * multiplier));
    this.totals = this.totals.map((total, side) => total + defeat[side]);
    const eggs = isEggs(deal);
    if (eggs) {
      this.eggs += 1;
      if (this.rules.eggs === "double-next") this.multiplier = 2;
      else if (this.rules.eggs === "stacking") this.multiplier = multiplier + 1;
    } else {
      this.multiplier = 1; // a deal that scores resets the eggs multiplier
    }
    const out = this.whoGoesOut();
    if (out.length) this.leave(out);
    const outcome = { number, deal, inPlay, defeat, eggs, multiplier, totals: this.totals, out };
    outcome.naked = defeat.flatMap((value, side) => (value === NAKED * multiplier ? [side] : []));
    this.deals.push(Object.freeze(outcome));
    return outcome;
  }

  // Sides in play at or above the target go out, unless that is all of them: then only the
  // highest total goes out, and nobody while they are all level.
  whoGoesOut() {
    const over = this.inPlay.filter((side) => this.totals[side] >= this.rules.target);
    if (over.length < this.inPlay.length) return over;
    const top = Math.max(...over.map((side) => this.totals[side]));
    const highest = over.filter((side) => this.totals[side] === top);
    return highest.length === over.length ? [] : highest;
  }

  leave(out) {
    this.out = [...this.out, ...out];
    if (!this.goats.length) this.goats = out; // the side(s) that went out first are the goat
    this.inPlay = this.inPlay.filter((side) => !out.includes(side));
    if (this.inPlay.length === 1) {
      this.finished = true;
      this.winner = this.inPlay[0];
    } else if (this.rules.ending === "first-out") {
      this.finished = true;
      // The side left with the fewest defeat points wins, if it is alone there.
      const fewest = Math.min(...this.inPlay.map((side) => this.totals[side]));
      const leaders = this.inPlay.filter((side) => this.totals[side] === fewest);
      this.winner = leaders.length === 1 ? leaders[0] : null;
    }
  }

  get state() {
    const { rules, totals, inPlay, out, goats, winner, finished, eggs, multiplier } = this;
    return {
      rules,
      sides: totals.length,
      totals,
      inPlay,
      out,
      goats,
      winner,
      finished,
      eggs,
      multiplier,
      deals: [...this.deals],
      toTarget: totals.map((total) => Math.max(rules.target - total, 0)),
      goatsWithEggs: goats.length > 0 && eggs > 0,
    };
  }
}

// The state after `deals` (each a Deal or its points), scored one by one (series.replay).
export function replay(sides, deals, rules = PRESETS.classic) {
  const series = new Series(sides, rules);
  for (const deal of deals) series.add(deal);
  return series.state;
}

// The winner of a series closed before its goat (series.standing_winner): the side with the
// fewest defeat points, if it is alone there; null on a tie.
export function standingWinner(totals) {
  if (!totals.length) return null;
  const fewest = Math.min(...totals);
  const leaders = totals.flatMap((total, side) => (total === fewest ? [side] : []));
  return leaders.length > 1 ? null : leaders[0];
}

// Who won (series.result_winner): the engine's winner once the series is over, else, once it
// is closed, the side with the fewest defeat points; null while it is played, or on a tie.
export function resultWinner(state, closed) {
  if (state.finished) return state.winner;
  return closed ? standingWinner(state.totals) : null;
}

function nextInPlay(seat, seatSides, inPlay) {
  for (let step = 1; step <= seatSides.length; step++) {
    const candidate = (seat + step) % seatSides.length;
    if (inPlay.includes(seatSides[candidate])) return candidate;
  }
  return seat;
}

// The seat that deals the next deal: clockwise each deal, skipping players who are out.
export function dealerSeat(firstDealer, seatSides, state) {
  let dealer = firstDealer;
  for (const outcome of state.deals) {
    const inPlay = outcome.inPlay.filter((side) => !outcome.out.includes(side));
    dealer = nextInPlay(dealer, seatSides, inPlay);
  }
  return dealer;
}

// The seat that leads the first trick of the series (left of the dealer); null after that,
// when whoever took the last trick leads.
export function firstLeaderSeat(dealer, seatSides, state) {
  return state.deals.length ? null : nextInPlay(dealer, seatSides, state.inPlay);
}
