// The JavaScript rules (static/js/kozel-rules.js) score exactly as the Python engine does.
//
// Every line of the golden vectors (tests/js/vectors.py, `python -m tests.js.vectors`) is
// replayed here and compared step by step: each deal's outcome and the series' state after it,
// or the refusal (message id, params, side, field, deal number) and a state left unchanged.
// KOZEL_RULES_VECTORS names the vectors file (`make test` writes one); without it this test
// writes a small one with .venv/bin/python (KOZEL_PYTHON). KOZEL_RULES_MODULE replaces the
// module under test (tests/rules/test_js_engine.py checks that a changed rule fails here).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MODULE = process.env.KOZEL_RULES_MODULE || join(ROOT, "static/js/kozel-rules.js");
const R = await import(pathToFileURL(MODULE).href);

function readVectors() {
  let path = process.env.KOZEL_RULES_VECTORS;
  let scratch = null;
  if (!path) {
    scratch = mkdtempSync(join(tmpdir(), "kozel-vectors-"));
    path = join(scratch, "vectors.jsonl");
    const python = process.env.KOZEL_PYTHON || join(ROOT, ".venv/bin/python");
    const args = ["-m", "tests.js.vectors", "--count", "500", "--output", path];
    execFileSync(python, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  }
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean).map((text) => JSON.parse(text));
  if (scratch) rmSync(scratch, { recursive: true });
  return lines;
}

const LINES = readVectors();
const byKind = (kind) => LINES.filter((line) => line.kind === kind);

// The JS engine's answers in the vectors' (Python's) names.
function plainState(state, firstDealer, seatSides) {
  const plain = {
    deals: state.deals.length,
    totals: state.totals,
    in_play: state.inPlay,
    out: state.out,
    goats: state.goats,
    winner: state.winner,
    finished: state.finished,
    eggs: state.eggs,
    multiplier: state.multiplier,
    to_target: state.toTarget,
    goats_with_eggs: state.goatsWithEggs,
    closed_winner: R.resultWinner(state, true),
  };
  if (seatSides) {
    plain.dealer = R.dealerSeat(firstDealer, seatSides, state);
    plain.leader = R.firstLeaderSeat(plain.dealer, seatSides, state);
  }
  return plain;
}

function plainOutcome(outcome) {
  return {
    number: outcome.number,
    points: outcome.deal.points,
    tricks: outcome.deal.tricks,
    in_play: outcome.inPlay,
    defeat: outcome.defeat,
    eggs: outcome.eggs,
    multiplier: outcome.multiplier,
    totals: outcome.totals,
    out: outcome.out,
    naked: outcome.naked,
  };
}

function refusal(error) {
  if (!(error instanceof R.InvalidDeal)) throw error;
  const { template, params, side, field, number } = error;
  return { template, params, side, field, number };
}

// Run `act`; its result, or the InvalidDeal it threw as plain data.
function attempt(act) {
  try {
    return { value: act() };
  } catch (error) {
    return { refused: refusal(error) };
  }
}

function expectRefusal(got, expected, where) {
  assert.ok(got.refused, `${where}: Python refuses (${expected.template}), JS accepted`);
  assert.deepEqual(got.refused, expected, `${where}: another refusal`);
}

test("the constants and presets are Python's", () => {
  const [engine] = byKind("engine");
  assert.ok(engine, "the vectors start with the engine line");
  assert.equal(engine.format, 1, "a vectors format this test reads");
  assert.equal(R.DEAL_TOTAL, engine.deal_total);
  assert.deepEqual(R.CARD_POINTS, engine.card_points);
  assert.deepEqual(R.POSSIBLE_SIDE_POINTS, engine.possible_side_points);
  assert.deepEqual(R.NAKED_CHOICES, engine.naked_choices);
  assert.deepEqual(R.EGGS_CHOICES, engine.eggs_choices);
  assert.deepEqual(R.ENDING_CHOICES, engine.ending_choices);
  assert.deepEqual({ ...R.PRESETS }, engine.presets);
  assert.deepEqual(R.SEAT_SIDES, engine.seat_sides);
});

test("every series scores step by step as in Python", (t) => {
  const lines = byKind("series");
  assert.ok(lines.length > 0, "no series in the vectors");
  let steps = 0;
  let refused = 0;
  for (const line of lines) {
    const where = `series ${line.id}`;
    const series = new R.Series(line.seat_sides.length === 3 ? 3 : 2, R.rulesFrom(line.rules));
    let expected = line.start;
    assert.deepEqual(plainState(series.state, line.first_dealer, line.seat_sides), expected, `${where}: start`);
    line.steps.forEach((step, index) => {
      const at = `${where}, step ${index + 1} (${JSON.stringify([step.points, step.tricks])})`;
      const got = attempt(() => series.add(new R.Deal(step.points, step.tricks)));
      if (step.refused) {
        expectRefusal(got, step.refused, at);
        refused += 1;
      } else {
        assert.ok(!got.refused, `${at}: Python accepts, JS refused: ${got.refused && got.refused.template}`);
        assert.deepEqual(plainOutcome(got.value), step.outcome, `${at}: outcome`);
        expected = step.state;
      }
      // After a refusal, nothing has changed.
      assert.deepEqual(plainState(series.state, line.first_dealer, line.seat_sides), expected, `${at}: state`);
      steps += 1;
    });
  }
  t.diagnostic(`${lines.length} series, ${steps} deals entered (${refused} refused) compared`);
});

test("every replay of raw points ends as in Python", (t) => {
  const lines = byKind("replay");
  assert.ok(lines.length > 0, "no replays in the vectors");
  for (const line of lines) {
    const got = attempt(() => R.replay(line.sides, line.deals, R.rulesFrom(line.rules)));
    if (line.refused) expectRefusal(got, line.refused, `replay ${line.id}`);
    else assert.deepEqual(plainState(got.value), line.state, `replay ${line.id}`);
  }
  t.diagnostic(`${lines.length} replays compared`);
});

test("every deal scored on its own scores as in Python", (t) => {
  const lines = byKind("score");
  assert.ok(lines.length > 0, "no scores in the vectors");
  for (const line of lines) {
    const where = `score ${line.id} (${JSON.stringify([line.points, line.tricks, line.multiplier])})`;
    const got = attempt(() => R.scoreDeal(line.points, line.tricks, R.rulesFrom(line.rules), line.multiplier));
    if (line.refused) expectRefusal(got, line.refused, where);
    else assert.deepEqual(got.value, line.score, where);
  }
  t.diagnostic(`${lines.length} scores compared`);
});

test("house rules are read, and refused, as in Python", (t) => {
  const lines = byKind("ruleset");
  assert.ok(lines.length > 0, "no rulesets in the vectors");
  for (const line of lines) {
    const where = `ruleset ${line.id} (${JSON.stringify(line.data)})`;
    let got;
    try {
      got = { ...R.rulesFrom(line.data) };
    } catch (error) {
      got = "refused";
    }
    assert.deepEqual(got, line.refused ? "refused" : line.rules, where);
  }
  t.diagnostic(`${lines.length} rulesets compared`);
});

test("refusals read in English as the site's messages do", () => {
  const series = new R.Series(2);
  series.add([60, 60]);
  assert.throws(() => series.add([1, 119]), {
    message: "Deal 2: 1 is impossible: no set of cards is worth that.",
  });
  assert.throws(() => new R.Deal([60, "x".repeat(30)]), {
    message: "Card points are whole numbers; xxxxxxxxxxxxxxxxxxx… is not one.",
  });
  const error = (() => {
    try {
      series.add([30, 30, 60]);
    } catch (caught) {
      return caught;
    }
  })();
  const russian = {
    "Deal %(number)s: %(reason)s": "Раздача %(number)s: %(reason)s",
    "%(expected)s sides are in play, but this deal has points for %(count)s.":
      "В игре сторон: %(expected)s, а очки даны для %(count)s.",
  };
  assert.equal(error.render((text) => russian[text]), "Раздача 2: В игре сторон: 2, а очки даны для 3.");
  assert.equal(error.message, "Deal 2: 2 sides are in play, but this deal has points for 3.");
});

test("the module stays small", (t) => {
  const source = readFileSync(MODULE);
  const gzip = gzipSync(source, { level: 9 }).length;
  // Comments and indentation out: about what a minifier leaves (the site serves the file as it is).
  const stripped = source
    .toString()
    .replace(/^\s*\/\/.*$/gm, "")
    .replace(/^\s+/gm, "")
    .replace(/\n+/g, "\n");
  const strippedGzip = gzipSync(stripped, { level: 9 }).length;
  t.diagnostic(
    `kozel-rules.js: ${source.length} B raw, ${gzip} B gzip; ` +
      `without comments and indentation ${stripped.length} B, ${strippedGzip} B gzip`,
  );
  assert.ok(gzip <= 6 * 1024, `kozel-rules.js is ${gzip} B gzipped: the scoreboard's budget is 50 KB in all`);
});
