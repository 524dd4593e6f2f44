"""docs/DEPLOY.md names every environment variable the settings read, and every command it
gives is tried by deploy/try-deploy.sh (which .ci/commands runs)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = (ROOT / "docs" / "DEPLOY.md").read_text()
SCRIPT = (ROOT / "deploy" / "try-deploy.sh").read_text()
READ = (
    r"(?:environ\.get|environ\[|getenv|envint|envbool|envlist|envlevel|_int)"
    r"""\(?\s*["']([A-Z_]+)["']"""
)


def variables(path: Path) -> set[str]:
    return set(re.findall(READ, path.read_text()))


def test_every_variable_the_settings_and_gunicorn_read_is_documented():
    read = variables(ROOT / "kozel_site" / "settings.py")
    read |= variables(ROOT / "kozel_site" / "gunicorn.conf.py")
    assert {"SECRET_KEY", "ADMIN_URL", "WEB_CONCURRENCY"} <= read  # the pattern finds them
    read.add("DATABASE_URL")  # read by dj_database_url.config()
    missing = {name for name in read if f"`{name}`" not in DEPLOY}
    assert missing == set()


def test_every_manage_command_of_the_guide_is_tried_by_the_script():
    documented = set(re.findall(r"manage\.py (\w+)", DEPLOY))
    tried = set(re.findall(r"manage\.py (\w+)", SCRIPT))
    # createsuperuser asks questions at a terminal: the script makes its accounts with shell.
    assert documented - tried == {"createsuperuser"}
    for tool in (
        "pg_dump -Fc",
        "pg_restore --no-owner",
        "kill -HUP",
        "/healthz",
        "-c kozel_site/gunicorn.conf.py kozel_site.wsgi",
    ):
        assert tool in DEPLOY and tool in SCRIPT, tool


def test_ci_runs_the_script_and_it_is_valid_bash():
    assert "deploy/try-deploy.sh" in (ROOT / ".ci" / "commands").read_text()
    assert subprocess.run(["bash", "-n", str(ROOT / "deploy" / "try-deploy.sh")]).returncode == 0
