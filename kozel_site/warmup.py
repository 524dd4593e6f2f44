"""Work a gunicorn master does once before it forks its workers (``preload_app``).

Loading the project (``wsgi``), resolving the URLs, compiling the templates the busy pages use
and the page cache's code version: every worker starts with them in memory shared with the
master (copy-on-write) instead of paying for them on its first requests. Nothing here touches
the database: a connection (or a PostgreSQL pool) opened before the fork would be shared by
every worker.
"""

from __future__ import annotations

#: The templates of the pages a table asks for most, compiled ahead.
TEMPLATES = (
    "base.html",
    "scoring/series.html",
    "scoring/home.html",
    "scoring/_deal_fields.html",
    "scoring/_score_line.html",
    "scoring/_share_link.html",
)


def warm_up() -> None:
    from django.conf import settings
    from django.template import engines

    if settings.ROOT_URLCONF != "kozel_site.urls":
        return  # another project under the same gunicorn config (make loadtest's bare one)
    from django.urls import get_resolver
    from django.utils import translation

    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    engine = engines["django"]
    for name in TEMPLATES:
        engine.get_template(name)
    for language in ("en", "ru"):  # the catalogues, read once
        with translation.override(language):
            translation.gettext("Kozel")
    from scoring import pagecache

    pagecache.code_version()  # reads the templates and code once, for every worker
