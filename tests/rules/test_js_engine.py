"""The JavaScript rules (``static/js/kozel-rules.js``) score exactly as this engine does.

``tests/js/vectors.py`` writes golden vectors from the Python engine and Node runs
``tests/js/rules.test.mjs`` over them. Node is required, never skipped: CI machines have Node 20.
The last tests prove the comparison can fail: a wrong expected value, a rule changed in Python
only and a rule changed in JavaScript only each make the Node run fail.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from scoring.rules import EGGS_CHOICES, ENDING_CHOICES, NAKED_CHOICES, PRESETS
from scoring.rules import scoring as rules_scoring
from tests.js import vectors

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = ROOT / "tests" / "js"
MODULE = ROOT / "static" / "js" / "kozel-rules.js"


def _node(vectors_path: Path, module: Path | None = None) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "Node 20 runs the JavaScript rules' tests (tests/js/): install nodejs"
    env = {**os.environ, "KOZEL_RULES_VECTORS": str(vectors_path)}
    if module is not None:
        env["KOZEL_RULES_MODULE"] = str(module)
    return subprocess.run(
        [node, "--test", *map(str, sorted(JS_TESTS.glob("*.test.mjs")))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _write(path: Path, lines) -> Path:
    with path.open("w", encoding="utf-8") as stream:
        for line in lines:
            stream.write(json.dumps(line, ensure_ascii=False) + "\n")
    return path


def _failures(result: subprocess.CompletedProcess[str]) -> str:
    """The Node run's report of what failed (empty when all passed)."""
    return "\n".join(
        line for line in result.stdout.splitlines() if "not ok" in line or "Error" in line
    )


@pytest.mark.slow  # seconds: run by make test, not make test-fast
@pytest.mark.parametrize("served", [False, True], ids=["source", "minified"])
def test_the_js_engine_scores_every_vector_as_python(tmp_path, served):
    """The source, and the engine as phones get it (minified: kozel_site/staticfiles.py)."""
    path = tmp_path / "vectors.jsonl"
    vectors.write(1000, 2025, str(path))
    module = None
    if served:
        module = Path(finders.find("js/kozel-rules.js"))
        assert module != MODULE and len(module.read_bytes()) < len(MODULE.read_bytes())
    result = _node(path, module)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
    assert "# 1000 series" in result.stdout  # the vectors were read, not an empty file
    assert "# 1000 scores compared" in result.stdout


def test_the_command_writes_the_same_lines_for_a_seed(tmp_path):
    first, second, other = (tmp_path / name for name in ("a.jsonl", "b.jsonl", "c.jsonl"))
    vectors.write(20, 3, str(first))
    vectors.write(20, 3, str(second))
    vectors.write(20, 4, str(other))
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    kinds = [json.loads(text)["kind"] for text in first.read_text().splitlines()]
    assert kinds.count("series") == 20
    assert kinds[0] == "engine"


@functools.cache
def _vectors() -> str:
    """400 series and their other lines, as JSON lines (the coverage test says what they hold)."""
    return "".join(
        json.dumps(line, ensure_ascii=False) + "\n" for line in vectors.generate(400, 11)
    )


def _lines() -> list[dict]:
    return [json.loads(text) for text in _vectors().splitlines()]


def _engine_messages() -> set[str]:
    """Every message id the engine marks for translation, read from its source."""
    found: set[str] = set()
    for source in (ROOT / "scoring" / "rules").glob("*.py"):
        found.update(re.findall(r'_\(\s*"([^"]+)"', source.read_text()))
    return found


def test_the_vectors_cover_every_rule_and_every_refusal():
    lines = _lines()
    series = [line for line in lines if line["kind"] == "series"]
    steps = [step for line in series for step in line["steps"]]
    outcomes = [step["outcome"] for step in steps if "outcome" in step]
    refusals = [step.get("refused") for step in steps]
    refusals += [line.get("refused") for line in lines if line["kind"] == "score"]
    refused = {refusal["template"] for refusal in refusals if refusal}

    rulesets = [line["rules"] for line in series]
    for preset in PRESETS.values():
        assert preset.to_dict() in rulesets
    for setting, choices in (
        ("naked", NAKED_CHOICES),
        ("eggs", EGGS_CHOICES),
        ("ending", ENDING_CHOICES),
    ):
        assert set(choices) <= {rules[setting] for rules in rulesets}
    assert {line["mode"] for line in series} == set(vectors.MODES)
    assert len({rules["target"] for rules in rulesets}) > 30
    assert len({rules["save_line"] for rules in rulesets}) > 30

    assert any(outcome["multiplier"] > 2 for outcome in outcomes)  # stacked eggs
    assert any(outcome["naked"] for outcome in outcomes)
    # A trick worth nothing: 0 points, not naked.
    assert any(0 in outcome["points"] and not outcome["naked"] for outcome in outcomes)
    # Three players, then the two left after one is out.
    assert any(len(outcome["in_play"]) < len(outcome["totals"]) for outcome in outcomes)
    finals = [[s["state"] for s in line["steps"] if "state" in s][-1:] for line in series]
    assert any(final and final[0]["finished"] and final[0]["winner"] is None for final in finals)
    assert any(final and len(final[0]["goats"]) > 1 for final in finals)

    # Every refusal the engine can give, except two that no deal entered can reach: every split
    # of 120 avoiding 1 and 119 is possible, and a series' sides come from its mode.
    unreachable = {
        "The cards cannot be split into piles worth these points.",
        "A series has two or three sides, not %(count)s.",
    }
    assert _engine_messages() - unreachable - {"Deal %(number)s: %(reason)s"} <= refused
    assert {line["kind"] for line in lines} == {"engine", "series", "replay", "score", "ruleset"}
    assert any("refused" in line for line in lines if line["kind"] == "ruleset")


@pytest.mark.slow  # a Node process: run by make test, not make test-fast
def test_a_wrong_expected_value_fails_the_js_run(tmp_path):
    lines = _lines()
    line, number, step = next(
        (line, number, step)
        for line in lines
        if line["kind"] == "series"
        for number, step in enumerate(line["steps"], start=1)
        if "state" in step
    )
    step["state"]["totals"][0] += 1
    result = _node(_write(tmp_path / "vectors.jsonl", lines))
    assert result.returncode != 0
    assert f"series {line['id']}, step {number} " in result.stdout, _failures(result)


@pytest.mark.slow  # a Node process: run by make test, not make test-fast
def test_a_wrong_expected_refusal_fails_the_js_run(tmp_path):
    lines = _lines()
    step = next(
        step
        for line in lines
        if line["kind"] == "series"
        for step in line["steps"]
        if "refused" in step and step["refused"]["side"] is not None
    )
    step["refused"]["side"] += 1
    result = _node(_write(tmp_path / "vectors.jsonl", lines))
    assert result.returncode != 0
    assert "another refusal" in result.stdout, _failures(result)


@pytest.mark.slow  # a Node process: run by make test, not make test-fast
def test_a_rule_changed_in_python_only_fails_the_js_run(tmp_path, monkeypatch):
    # Beaten below the save line now costs 5, not 4; a fresh memo so no deal is remembered.
    monkeypatch.setattr(rules_scoring, "BEATEN", 5)
    monkeypatch.setattr(rules_scoring, "_DEFEAT_MEMOS", {})
    lines = vectors.generate(400, 11)  # as _lines(), but scored by the changed rule
    result = _node(_write(tmp_path / "vectors.jsonl", lines))
    assert result.returncode != 0
    assert "outcome" in result.stdout, _failures(result)


@pytest.mark.slow  # a Node process: run by make test, not make test-fast
@pytest.mark.parametrize(
    ("rule", "changed"),
    [
        ("if (points >= saveLine) return SAVED;", "if (points > saveLine) return SAVED;"),
        ("this.multiplier = multiplier + 1;", "this.multiplier = multiplier + 2;"),
        ("if (raw.length < 2 || raw.length > 3) {", "if (raw.length < 2 || raw.length > 4) {"),
        ("leaders.length === 1 ? leaders[0] : null", "leaders[0]"),
        ("return leaders.length > 1 ? null : leaders[0];", "return leaders[0];"),
    ],
    ids=["save-line", "stacking", "sides", "first-out-winner", "closed-winner"],
)
def test_a_rule_changed_in_javascript_only_fails_the_js_run(tmp_path, rule, changed):
    source = MODULE.read_text()
    assert source.count(rule) == 1, f"the module no longer says {rule!r}: update this test"
    module = tmp_path / "kozel-rules.js"
    module.write_text(source.replace(rule, changed))
    path = tmp_path / "vectors.jsonl"
    path.write_text(_vectors(), encoding="utf-8")
    result = _node(path, module)
    assert result.returncode != 0, f"the JS run passed with {changed!r}"
    assert "not ok" in result.stdout
