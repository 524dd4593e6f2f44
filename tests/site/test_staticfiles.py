"""Our JavaScript and CSS are served minified wherever static files are served
(``kozel_site/staticfiles.py``), valid, made again when their source changes, and collected for
production with module imports pointing at the hashed names."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import rjsmin
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import override_settings

from kozel_site import staticfiles

ROOT = Path(settings.BASE_DIR)
OURS = sorted(
    str(path.relative_to(ROOT / "static"))
    for path in (ROOT / "static").rglob("*")
    if path.suffix in (".js", ".css") and ".min." not in path.name
)
#: A template literal inside another's ${…}: rjsmin takes the inner one for code and squeezes
#: the spaces out of its text (it did in kozel-rules.js, and the golden vectors caught it).
NESTED_TEMPLATE = re.compile(r"\$\{[^`}]*`")


def _found(path: str) -> Path:
    return Path(finders.find(path))


def test_every_script_and_style_sheet_of_ours_is_found_minified():
    assert {"js/app.js", "js/offline.js", "js/kozel-rules.js", "css/app.css"} <= set(OURS)
    for path in OURS:
        source = (ROOT / "static" / path).read_text(encoding="utf-8")
        served = _found(path).read_text(encoding="utf-8")
        assert served == staticfiles.minified(source, path)
        assert len(served) < 0.85 * len(source), path  # the comments and indentation are gone


def test_other_files_are_found_as_they_are():
    for path in ("vendor/htmx.min.js", "img/goat.svg", "img/app/icon-192.png"):
        assert _found(path) == ROOT / "static" / path


def test_no_script_of_ours_nests_a_template_literal():
    for path in OURS:
        if path.endswith(".js"):
            source = (ROOT / "static" / path).read_text(encoding="utf-8")
            assert not NESTED_TEMPLATE.search(source), path
    # The check finds what it looks for, and the minifier does what the check guards against.
    nested = "x = `{${a.map((k) => `'${k}': 1`).join()}}`;"
    assert NESTED_TEMPLATE.search(nested)
    assert "': 1" not in rjsmin.jsmin(nested)


def test_every_minified_script_is_valid_javascript(tmp_path):
    node = shutil.which("node")
    assert node, "Node 20 checks the minified scripts (make test installs it)"
    for path in OURS:
        if not path.endswith(".js"):
            continue
        module = tmp_path / (Path(path).stem + ".mjs")  # every script of ours reads as a module
        module.write_text(_found(path).read_text(encoding="utf-8"), encoding="utf-8")
        checked = subprocess.run([node, "--check", str(module)], capture_output=True, text=True)
        assert checked.returncode == 0, (path, checked.stderr)


def test_a_changed_source_is_minified_again(tmp_path):
    sources, copies = tmp_path / "static", tmp_path / "minified"
    (sources / "js").mkdir(parents=True)
    script = sources / "js" / "x.js"
    script.write_text("// one\nconst a = 1;\n", encoding="utf-8")
    with override_settings(STATICFILES_DIRS=[sources], MINIFIED_ROOT=copies):
        finder = staticfiles.MinifyingFinder()
        assert Path(finder.find("js/x.js")).read_text() == "const a=1;"
        script.write_text("// two\nconst b = 2;\n", encoding="utf-8")
        later = script.stat().st_mtime_ns + 10**9
        import os

        os.utime(script, ns=(later, later))
        assert Path(finder.find("js/x.js")).read_text() == "const b=2;"
        assert [path for path, _storage in finder.list([])] == ["js/x.js"]
        with override_settings(MINIFY_STATIC=False):
            assert finder.find("js/x.js") == str(script)


@pytest.mark.slow  # seconds: run by make test, not make test-fast
def test_collected_for_production_minified_and_importing_the_hashed_engine(tmp_path):
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "kozel_site.staticfiles.ManifestStorage"},
    }
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=storages):
        call_command("collectstatic", interactive=False, verbosity=0)
    manifest = (tmp_path / "staticfiles.json").read_text()
    offline = re.search(r'"js/offline\.js": "(js/offline\.[0-9a-f]+\.js)"', manifest).group(1)
    engine = re.search(r'"js/kozel-rules\.js": "js/(kozel-rules\.[0-9a-f]+\.js)"', manifest)
    collected = (tmp_path / offline).read_text(encoding="utf-8")
    # The service worker keeps the engine under its hashed name: the import must name it so.
    assert f'from"./{engine.group(1)}"' in collected or f'from "./{engine.group(1)}"' in collected
    assert "//" not in collected.split("\n", 1)[0][:2]  # no leading comment: minified
    assert len(collected) < 0.85 * len((ROOT / "static" / "js" / "offline.js").read_text())
    # Compressed as whitenoise serves it: Brotli to a browser that asks for it (every phone's,
    # over HTTPS; test_page_weight counts it), gzip to the rest.
    assert (tmp_path / f"{offline}.br").exists() and (tmp_path / f"{offline}.gz").exists()


@pytest.mark.parametrize("path", ["js/app.js", "css/app.css"])
def test_the_pages_name_the_minified_files_by_their_usual_names(client, path):
    page = client.get("/").content.decode()
    assert f"/static/{path}" in page
