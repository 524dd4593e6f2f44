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
    r"(?:environ\.get|environ\[|getenv|envint|envfloat|envbool|envlist|envlevel|_int)"
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
    assert "createsuperuser" in documented  # run by the script without questions
    assert documented - tried == set()
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


#: Each command of DEPLOY.md's shell blocks (and the two it gives inline), and the line of
#: try-deploy.sh that runs it: the same command with the script's paths, names and values.
TRIED = {
    "apt-get install nginx-light": "apt-get install -y -q nginx-light",
    "python -c 'import secrets; print(secrets.token_urlsafe(50))'": (
        "\"$PYTHON\" -c 'import secrets; print(secrets.token_urlsafe(50))'"
    ),
    "python3 -m venv .venv": 'python3 -m venv "$WORK/venv"',
    ".venv/bin/pip install -r requirements.txt": '"$BIN/pip" install -q -r requirements.txt',
    "createdb kozel": 'createdb --maintenance-db="$PG/postgres" "$1"',
    ".venv/bin/python manage.py migrate --noinput": '"$PYTHON" manage.py migrate --noinput',
    ".venv/bin/python manage.py fold_standings": '"$PYTHON" manage.py fold_standings',
    ".venv/bin/python manage.py login_link <username> --site https://kozel.example.org": (
        '"$PYTHON" manage.py login_link demo --site "$SITE"'
    ),
    ".venv/bin/python manage.py collectstatic --noinput": (
        '"$PYTHON" manage.py collectstatic --noinput'
    ),
    ".venv/bin/python manage.py check --deploy --fail-level WARNING": (
        '"$PYTHON" manage.py check --deploy --fail-level WARNING'
    ),
    "DJANGO_SUPERUSER_PASSWORD=… DJANGO_SUPERUSER_EMAIL=ops@example.org .venv/bin/python "
    "manage.py createsuperuser --noinput --username ops": (
        '"$PYTHON" manage.py createsuperuser --noinput --username root'
    ),
    "BIND=127.0.0.1:8001 .venv/bin/gunicorn -c kozel_site/gunicorn.conf.py kozel_site.wsgi": (
        'BIND="127.0.0.1:$port" "$BIN/gunicorn" -c kozel_site/gunicorn.conf.py kozel_site.wsgi'
    ),
    "BIND=127.0.0.1:8002 .venv/bin/gunicorn -c kozel_site/gunicorn.conf.py kozel_site.wsgi": (
        'BIND="127.0.0.1:$port" "$BIN/gunicorn" -c kozel_site/gunicorn.conf.py kozel_site.wsgi'
    ),
    ".venv/bin/python manage.py task_worker": '"$PYTHON" manage.py task_worker',
    "curl -fsS http://127.0.0.1:8001/healthz": "curl -fsS http://127.0.0.1:$port/healthz",
    'pg_dump -Fc -f kozel-$(date +%F).dump "$DATABASE_URL"': (
        'pg_dump -Fc -f "$WORK/kozel.dump" "$DATABASE_URL"'
    ),
    'pg_dump -Fc -f before-upgrade.dump "$DATABASE_URL"': (
        'pg_dump -Fc -f "$WORK/kozel.dump" "$DATABASE_URL"'
    ),
    "createdb kozel_restored": 'createdb_ "${NAME}_restored"',
    "pg_restore --no-owner -d postgres://…/kozel_restored kozel-2026-12-01.dump": (
        'pg_restore --no-owner -d "$PG/${NAME}_restored" "$WORK/kozel.dump"'
    ),
    ".venv/bin/python manage.py export_history --output history.json": (
        '"$PYTHON" manage.py export_history --output "$WORK/history.json"'
    ),
    ".venv/bin/python manage.py migrate": (
        'DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py migrate'
    ),
    ".venv/bin/python manage.py import_history history.json": (
        '"$PYTHON" manage.py import_history "$WORK/history.json"'
    ),
    ".venv/bin/python manage.py check_integrity": '"$PYTHON" manage.py check_integrity',
    ".venv/bin/python manage.py migrate --check": '"$PYTHON" manage.py migrate --check',
    "kill -HUP <gunicorn master pid>": 'kill -HUP "${GUNICORNS[0]}"',
}
#: The documented commands the script cannot run, and why.
NOT_TRIED = {
    "git clone … kozel": "the script runs in a checkout already",
    "cd kozel": "the script changes to the checkout it is in",
    "git pull": "the script upgrades the checkout it is in (no remote to pull from)",
    ".venv/bin/python manage.py createsuperuser": "asks at a terminal: the --noinput form is run",
}


def documented_commands() -> list[str]:
    """Every command of DEPLOY.md's ``sh`` blocks (``a && b`` is two), and the inline ones."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", DEPLOY, flags=re.DOTALL):
        for line in block.splitlines():
            code = re.split(r"\s+#\s", line, maxsplit=1)[0].strip()
            if code and not code.startswith("#"):
                found += [part.strip() for part in code.split(" && ")]
    for inline in ("apt-get install nginx-light", "python -c 'import secrets"):
        assert f"`{inline}" in DEPLOY, inline
    return [*found, "apt-get install nginx-light", next(k for k in TRIED if "secrets" in k)]


def script_code() -> str:
    return "\n".join(
        line for line in SCRIPT.splitlines() if not line.lstrip().startswith("#")
    ).replace("\\\n", " ")


def test_every_command_of_the_guide_is_run_by_the_script_or_says_why_not():
    documented = documented_commands()
    assert len(documented) > 25  # the pattern finds them
    unaccounted = set(documented) - set(TRIED) - set(NOT_TRIED)
    assert unaccounted == set(), "documented but neither tried nor excused"
    assert set(TRIED) | set(NOT_TRIED) <= set(documented), "stale entries"
    code = " ".join(script_code().split())
    missing = {doc: line for doc, line in TRIED.items() if " ".join(line.split()) not in code}
    assert missing == {}
