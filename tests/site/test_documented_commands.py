"""Every command the README documents is tried by CI on a clean checkout (``.ci/commands``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _documented_targets() -> set[str]:
    return set(re.findall(r"`make ([a-z][a-z-]*)", (ROOT / "README.md").read_text()))


def _tried_targets() -> set[str]:
    """The make targets that CI's scripts run: comments are not runs."""
    tried: set[str] = set()
    for script in (ROOT / ".ci" / "run", ROOT / ".ci" / "commands"):
        for line in script.read_text().splitlines():
            code = line.split("#", 1)[0]
            tried.update(re.findall(r"\bmake ([a-z][a-z-]*)", code))
            tried.update(re.findall(r"\bserve_briefly ([a-z][a-z-]*)", code))
    return tried


def test_the_readme_documents_the_two_setup_commands_first():
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```", 2)[1]
    assert "make run" in first_block
    assert "make test" in first_block


def test_every_make_target_the_readme_names_exists_in_the_makefile():
    makefile = (ROOT / "Makefile").read_text()
    defined = set(re.findall(r"^([a-z][a-z-]*):", makefile, flags=re.MULTILINE))
    assert _documented_targets() <= defined, _documented_targets() - defined


def test_every_make_target_the_readme_names_is_tried_by_ci():
    documented = _documented_targets()
    assert {"run", "test", "lint", "bench", "serve", "lighthouse"} <= documented
    missing = documented - _tried_targets()
    assert not missing, f"documented but never tried by .ci/run or .ci/commands: {missing}"


def test_ci_runs_the_commands_script():
    run = (ROOT / ".ci" / "run").read_text()
    assert any(
        line.strip().startswith(".ci/commands") or "bash .ci/commands" in line
        for line in run.splitlines()
        if not line.lstrip().startswith("#")
    )
