"""Static files as phones get them, everywhere: our own JavaScript and CSS minified.

``MinifyingFinder`` finds ``static/``'s files as Django's ``FileSystemFinder`` does, but our own
``.js`` and ``.css`` as minified copies (rjsmin and rcssmin rename and reorder nothing; rjsmin
squeezes a template literal nested in another's ``${…}``, so ours nest none), made again when
the source is newer. Every way static files are served goes through the finders, so the browser
tests run the very files a phone gets (``tests/site/test_page_weight.py``).

``ManifestStorage`` rewrites ES module imports to the hashed names: without it, ``offline.js``
asked for the engine by its plain name, which the service worker never kept.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import rcssmin
import rjsmin
from django.conf import settings
from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.files.storage import FileSystemStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

MINIFIED = (".js", ".css")


def minifies(path: str) -> bool:
    """Whether ``path`` (a static file's name) is served minified."""
    name = os.path.basename(path)
    return name.endswith(MINIFIED) and ".min." not in name


def minified(text: str, path: str) -> str:
    """``text``, the source of the static file ``path``, minified."""
    return rcssmin.cssmin(text) if path.endswith(".css") else rjsmin.jsmin(text)


def _root() -> Path:
    """Where the copies go: ``MINIFIED_ROOT``, else a folder of the machine's temporary one for
    this checkout (two checkouts never share copies)."""
    chosen = getattr(settings, "MINIFIED_ROOT", "")
    if chosen:
        return Path(chosen)
    checkout = hashlib.sha256(str(settings.BASE_DIR).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / "kozel-minified" / checkout


class MinifyingFinder(FileSystemFinder):
    """``FileSystemFinder``, with our own scripts and style sheets found as minified copies."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.copies = FileSystemStorage(location=_root())

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        found = super().find(path, find_all=find_all, **kwargs)  # type: ignore[call-overload]
        if not getattr(settings, "MINIFY_STATIC", True) or not minifies(path):
            return found
        if find_all:
            return [self._copy(path, source) for source in found]
        return self._copy(path, found) if found else found

    def list(self, ignore_patterns: Any) -> Any:
        for path, storage in super().list(ignore_patterns):
            if getattr(settings, "MINIFY_STATIC", True) and minifies(path):
                self._copy(path, storage.path(path))
                yield path, self.copies
            else:
                yield path, storage

    def _copy(self, path: str, source: str) -> str:
        """The minified copy of ``source`` (the static file ``path``), made again when older."""
        copy = Path(self.copies.path(path))
        try:
            fresh = copy.stat().st_mtime_ns >= Path(source).stat().st_mtime_ns
        except FileNotFoundError:
            fresh = False
        if not fresh:
            copy.parent.mkdir(parents=True, exist_ok=True)
            text = minified(Path(source).read_text(encoding="utf-8"), path)
            # Written aside, then moved over: another process never reads half a file.
            handle, aside = tempfile.mkstemp(dir=copy.parent, suffix=".part")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(aside, copy)
        return str(copy)


class ManifestStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's storage, with ``import … from "./x.js"`` in our own scripts (``js/``)
    pointing at x's hashed name. Other apps' scripts are left as they are (django-htmx's
    extensions import files that are not collected)."""

    support_js_module_import_aggregation = True

    def url_converter(self, name: str, hashed_files: Any, template: Any = None) -> Any:
        if name.endswith(".js") and not name.startswith(OWN_SCRIPTS):
            return lambda matched: matched.group(0)
        return super().url_converter(name, hashed_files, template)


#: Where our own scripts are collected (``static/js/``).
OWN_SCRIPTS = "js/"
