"""Libraries through their public API only (issues #26 and #37): no private attribute, function or
module of Django, django-csp, psycopg, redis-py or any other library anywhere in the project's
Python — nor of another object of our own. A private name is one with a leading underscore,
reached on anything but ``self`` or ``cls``; Django documents ``Model._meta`` and a model's
managers, and the standard library a named tuple's ``_replace`` and kin, as public.

Nor the undocumented parts that have no underscore, in the site's code (scoring/, kozel_site/): a
queryset's SQL (``.query.``), the database backend's operations (``connection.ops``) outside the
one module that says why it needs them, SQL written out outside the modules whose statements
docs/PERFORMANCE.md measures, and a library's output cut or spliced instead of used whole."""

from __future__ import annotations

import ast
import sys
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


# --- The undocumented parts without an underscore (issue #37) -------------------------------------

SITE = ("scoring", "kozel_site")
#: The one module that reaches the database backend's operations, and says why in its docstring.
DATABASE_MODULE = "scoring/lib/database.py"
#: The modules that hold statements written in SQL (a cursor, ``raw()``, ``RawSQL``, ``extra()``),
#: each statement for the reason docs/PERFORMANCE.md measures ("Statements written in SQL").
RAW_SQL = {
    "scoring/table/live.py",  # the live poll
    "scoring/web/middleware.py",  # the health check's SELECT 1
    "scoring/standings/selectors.py",  # the standings' rows
    "scoring/standings/running_totals.py",  # the fold's INSERTs
    DATABASE_MODULE,  # sequences moved past rows written with their ids
}
PERFORMANCE = ROOT / "docs" / "PERFORMANCE.md"
RAW_SQL_SECTION = "## Statements written in SQL"
#: Methods that cut, search and rebuild a string: what a library's output must not go through.
SURGERY = {
    "replace",
    "removeprefix",
    "removesuffix",
    "split",
    "rsplit",
    "partition",
    "rpartition",
    "strip",
    "lstrip",
    "rstrip",
    "translate",
    "format",
    "join",
    "find",
    "index",
}
OURS = {"scoring", "kozel_site", "tests", "benchmarks", "__future__"}


def site_files() -> list[Path]:
    return [
        path
        for root in SITE
        for path in (ROOT / root).rglob("*.py")
        if "migrations" not in path.parts
    ]


def query_internals(source: str) -> list[str]:
    """Each place a queryset's SQL is read: ``<queryset>.query.<anything>``, or its ``str()``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "query"
        ):
            found.append(f"{node.lineno}: .query.{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("str", "repr", "format")
            and any(isinstance(arg, ast.Attribute) and arg.attr == "query" for arg in node.args)
        ):
            found.append(f"{node.lineno}: {node.func.id}(….query)")
    return found


def backend_operations(source: str) -> list[str]:
    """Each use of a database connection's ``ops`` (``connection.ops``, ``connections[…].ops``,
    ``schema_editor.connection.ops``)."""
    return [
        f"{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr == "ops"
        and "connection" in ast.unparse(node.value)
    ]


def raw_sql(source: str) -> list[str]:
    """Each way in to SQL written out: a cursor, ``Manager.raw()``, ``RawSQL``, ``extra()``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "RawSQL" or (
            isinstance(func, ast.Attribute) and name in ("cursor", "raw", "extra")
        ):
            found.append(f"{node.lineno}: {name}()")
    return sorted(found, key=lambda use: int(use.split(":")[0]))


def libraries(tree: ast.Module) -> set[str]:
    """The names a module binds to a library other than Django and Python's own: what it
    imports from segno, rcssmin, icu and the like."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [
                (alias.name, alias.asname or alias.name.split(".")[0]) for alias in node.names
            ]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [(node.module, alias.asname or alias.name) for alias in node.names]
        else:
            continue
        for module, name in modules:
            top = module.split(".")[0]
            if top not in sys.stdlib_module_names and top not in OURS and top != "django":
                bound.add(name)
    return bound


def mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(part, ast.Name) and part.id in names for part in ast.walk(node))


def output_surgery(source: str) -> list[str]:
    """Each place a library's output is cut or spliced: within a function, what a library call
    returns or writes into (a buffer handed to it), and whatever is made from that, must not go
    through a string method that cuts or rebuilds (``SURGERY``), ``+``, ``%``, an f-string or a
    slice. Used whole it may be: passed on, marked safe, put in a template's context."""
    tree = ast.parse(source)
    library = libraries(tree)
    found: list[tuple[int, int, str]] = []
    if not library:
        return []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        tainted = set(library)
        for _ in range(5):  # until nothing new: assignments in any order
            for node in ast.walk(function):
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value:
                    if mentions(node.value, tainted):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        tainted |= {
                            part.id
                            for target in targets
                            for part in ast.walk(target)
                            if isinstance(part, ast.Name)
                        }
                elif isinstance(node, ast.Call) and mentions(node.func, library):
                    arguments = [*node.args, *(keyword.value for keyword in node.keywords)]
                    tainted |= {arg.id for arg in arguments if isinstance(arg, ast.Name)}
        made = tainted - library
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SURGERY
                and (mentions(node.func.value, made) or any(mentions(a, made) for a in node.args))
            ):
                found.append((node.lineno, node.col_offset, f".{node.func.attr}()"))
            elif (
                isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Add | ast.Mod)
                and (mentions(node.left, made) or mentions(node.right, made))
            ):
                found.append((node.lineno, node.col_offset, type(node.op).__name__.lower()))
            elif isinstance(node, ast.JoinedStr) and mentions(node, made):
                found.append((node.lineno, node.col_offset, "f-string"))
            elif (
                isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Slice)
                and mentions(node.value, made)
            ):
                found.append((node.lineno, node.col_offset, "slice"))
    return [f"{line}: {use}" for line, _column, use in sorted(set(found))]


def findings(check) -> list[str]:
    return [
        f"{path.relative_to(ROOT)}:{use}"
        for path in site_files()
        for use in check(path.read_text())
    ]


def test_no_queryset_is_read_for_its_sql():
    assert findings(query_internals) == []


def test_only_the_database_module_reaches_the_backends_operations():
    found = [use for use in findings(backend_operations) if not use.startswith(DATABASE_MODULE)]
    assert found == []
    docstring = ast.get_docstring(ast.parse((ROOT / DATABASE_MODULE).read_text())) or ""
    assert "connection.ops" in docstring and "documented" in docstring  # and says why


def test_sql_is_written_out_only_where_docs_performance_measures_why():
    found = [use for use in findings(raw_sql) if use.split(":")[0] not in RAW_SQL]
    assert found == []
    text = PERFORMANCE.read_text()
    assert RAW_SQL_SECTION in text
    section = text.split(RAW_SQL_SECTION, 1)[1].split("\n## ", 1)[0]
    for module in sorted(RAW_SQL):
        assert raw_sql((ROOT / module).read_text()), f"{module} holds no SQL: take it off the list"
        assert f"`{module}`" in section, f"docs/PERFORMANCE.md does not say why {module} has SQL"


def test_a_librarys_output_is_used_as_the_library_made_it():
    assert findings(output_surgery) == []


def test_each_undocumented_way_in_is_found():
    source = """
import segno
from django.db import connection, connections
from django.db.models.expressions import RawSQL

def sql_of(seats):
    sql, params = seats.query.sql_with_params()
    return str(seats.query), seats.order_by("pk").query.get_compiler

def quoted(name, editor):
    connections["default"].ops.quote_name(name)
    editor.connection.ops.adapt_datetimefield_value(None)
    return connection.ops.quote_name(name)

def counted(seats, cursor_factory):
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    seats.raw("SELECT 1")
    seats.extra(where=["1 = 1"])
    seats.annotate(one=RawSQL("1", []))

def qr_svg(url, name):
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", xmldecl=False)
    svg = out.getvalue().decode()
    named = f'<svg role="img" aria-label="{escape(name)}"'
    return mark_safe(named + svg.removeprefix("<svg"))

def spliced(url):
    code = segno.make(url).svg_inline()
    return code.replace("<svg", "<svg x") , code[4:], f"<b>{code}</b>", "%s" % code

def whole(url, name):
    svg = segno.make(url).svg_inline(border=4)
    return render_to_string("qr.html", {"svg": mark_safe(svg), "name": name.strip() + "!"})
"""
    assert [use.split(": ", 1)[1] for use in query_internals(source)] == [
        ".query.sql_with_params",
        "str(….query)",
        ".query.get_compiler",
    ]
    assert [use.split(": ", 1)[1] for use in backend_operations(source)] == [
        "connections['default'].ops",
        "editor.connection.ops",
        "connection.ops",
    ]
    assert [use.split(": ", 1)[1] for use in raw_sql(source)] == [
        "cursor()",
        "raw()",
        "extra()",
        "RawSQL()",
    ]
    assert [use.split(": ", 1)[1] for use in output_surgery(source)] == [
        "add",
        ".removeprefix()",
        ".replace()",
        "slice",
        "f-string",
        "mod",
    ]
