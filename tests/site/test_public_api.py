"""Libraries through their public API only (issue #26): no private attribute, function or module
of Django, django-csp, psycopg, redis-py or any other library anywhere in the project's Python —
nor of another object of our own. A private name is one with a leading underscore, reached on
anything but ``self`` or ``cls``; Django documents ``Model._meta`` and a model's managers, and
the standard library a named tuple's ``_replace`` and kin, as public."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

#: Underscored names their library documents as its public API.
DOCUMENTED = {
    "_meta",  # Django's Model _meta API
    "_default_manager",  # Django: Model._default_manager, Model._base_manager
    "_base_manager",
    "_replace",  # collections.namedtuple
    "_asdict",
    "_fields",
    "_make",
}
ROOTS = ("scoring", "kozel_site", "tests", "benchmarks")
REACHING = {"getattr", "setattr", "hasattr", "delattr"}


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in DOCUMENTED


def private_uses(source: str) -> list[str]:
    """Each private name the source reaches on another object, imports, or asks for by name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [alias.name for alias in node.names]
            if any(private(part) for part in module.split(".")) or any(map(private, names)):
                found.append(f"{node.lineno}: from {module} import {', '.join(names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(private(part) for part in alias.name.split(".")):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in REACHING
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
        ):
            found.append(f"{node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
    return found


def python_files() -> list[Path]:
    files = [ROOT / "manage.py"]
    for root in ROOTS:
        files += [p for p in (ROOT / root).rglob("*.py") if "migrations" not in p.parts]
    return files


def test_no_python_file_of_the_project_reaches_a_private_name():
    found = [
        f"{path.relative_to(ROOT)}:{use}"
        for path in python_files()
        for use in private_uses(path.read_text())
    ]
    assert found == []


def test_the_check_finds_each_way_of_reaching_a_private_name():
    source = """
from csp.middleware import CheckableLazyObject, _helper
from django.utils._os import safe_join
import django.db.models._private
pages._cache.pop(key)
connection._sock is None
getattr(session, "_session_cache", None)
self._own = 1
cls._kept = 2
Series._meta.concrete_fields
"""
    assert sorted(use.split(": ", 1)[1] for use in private_uses(source)) == sorted(
        [
            "from csp.middleware import CheckableLazyObject, _helper",
            "from django.utils._os import safe_join",
            "import django.db.models._private",
            "._cache",
            "._sock",
            "getattr(…, '_session_cache')",
        ]
    )
