"""Settings for the Kozel scorekeeper: one file, driven by the environment.

Development defaults are safe and need nothing installed (SQLite beside the code). With
``DEBUG`` off the site is in production: a missing or weak secret key, an empty
``ALLOWED_HOSTS`` or a malformed value is a loud error at start-up, so production never runs on a
development default by accident, and ``manage.py check --deploy --fail-level WARNING`` passes.

Every environment variable, with its default and what it means, is listed in docs/DEPLOY.md.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import csp.constants as csp
import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in {"1", "true", "yes", "on"}:
        return True
    if value.lower() in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envlevel(name: str, default: str) -> str:
    value = (os.environ.get(name) or default).upper()
    if value not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
        raise ImproperlyConfigured(f"{name} must be a logging level like INFO, not {value!r}")
    return value


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", True)

_DEV_SECRET_KEY = "dev-only-insecure-key-never-used-when-debug-is-off"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if DEBUG:
    SECRET_KEY = SECRET_KEY or _DEV_SECRET_KEY
elif not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
elif SECRET_KEY == _DEV_SECRET_KEY or SECRET_KEY.startswith("django-insecure-"):
    raise ImproperlyConfigured("SECRET_KEY is a development key; generate a new one.")
elif len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
    raise ImproperlyConfigured(
        "SECRET_KEY is too weak: use 50 or more random characters, for example "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )

ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DEBUG is off.")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS")
for _origin in CSRF_TRUSTED_ORIGINS:
    if not _origin.startswith(("https://", "http://")) or _origin.count("/") != 2:
        raise ImproperlyConfigured(
            f"CSRF_TRUSTED_ORIGINS takes origins like https://kozel.example.org, not {_origin!r}"
        )

# The Django admin's path for operators (say "ops-7f3k/"); off in production unless set.
ADMIN_URL = os.environ.get("ADMIN_URL", "admin/" if DEBUG else "").strip().strip("/")
ADMIN_URL = f"{ADMIN_URL}/" if ADMIN_URL else ""

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",  # its widget templates, for FORM_RENDERER below
    "django_htmx",
    "template_partials",
    "axes",
    "csp",
    "django_tasks",
    "django_tasks_db",
    "scoring",
]

MIDDLEWARE = [
    # First: every log line and error report below it knows the request.
    "scoring.web.middleware.RequestContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "scoring.web.middleware.DocumentCSPMiddleware",
    # The load balancer's /healthz, answered whatever host it names (ALLOWED_HOSTS does not
    # name a server's own address): before CommonMiddleware, the first to check the host; after
    # the two above, whose headers it keeps (and which ask for the host only to redirect).
    "scoring.web.middleware.HealthCheckMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages gzipped, except those that show a secret (BREACH; scoring.web.middleware). After
    # WhiteNoise, whose static files are compressed ahead of time.
    "scoring.web.middleware.SafeGZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Whose page this is, for the service worker's kept pages (scoring.web.middleware).
    "scoring.web.middleware.ViewerMiddleware",
    # Last, as django-axes asks: it answers locked-out logins.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Repeated failed logins: 5 failures for one username from one network lock it for an hour.
AXES_FAILURE_LIMIT = envint("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = 1  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# The lockout page, saying why and every way back (scoring.views.accounts).
AXES_LOCKOUT_CALLABLE = "scoring.views.accounts.axes_locked_out"
# The client's network, not the proxy's address (else five failures from anywhere lock out the
# owner), and an IPv6 /64 as one address (else its 2**64 addresses guess on and on).
AXES_CLIENT_IP_CALLABLE = "scoring.web.clients.client_network"
# A browser that logged in to the account before is capped by scoring.web.logins, per browser.
AXES_WHITELIST_CALLABLE = "scoring.web.logins.known_browser"
# Per hour, from browsers the account does not know (scoring.web.logins).
LOGIN_FAILURES_PER_ACCOUNT = envint("LOGIN_FAILURES_PER_ACCOUNT", 20)
LOGIN_FAILURES_PER_ADDRESS = envint("LOGIN_FAILURES_PER_ADDRESS", 30)

ROOT_URLCONF = "kozel_site.urls"
WSGI_APPLICATION = "kozel_site.wsgi.application"
ASGI_APPLICATION = "kozel_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]
# Widgets render through TEMPLATES, so a widget's template lives in templates/ with the rest
# (templates/scoring/widgets/).
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

# SQLite beside the code by default; DATABASE_URL=postgres://... for PostgreSQL.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=envint("CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes the write lock when a transaction begins, so two phones writing the same
    # series wait for each other instead of failing with "database is locked".
    # A connection kept from one request to the next (CONN_MAX_AGE, as for PostgreSQL) keeps
    # SQLite's page cache warm: a fresh one per request reads every page it needs again, which
    # made pages cost more the bigger the database file.
    # WAL: readers never wait for a writer nor a writer for readers, so several gunicorn workers
    # share the file without "database is locked" under load (the mode is kept in the file).
    # synchronous=NORMAL (SQLITE_SYNCHRONOUS): in WAL mode a commit is not flushed to disk by
    # itself, only at checkpoints; the file never corrupts, but a power cut or an OS crash (not
    # a crash of the app) can lose the last commits. SQLITE_SYNCHRONOUS=FULL flushes each one.
    _synchronous = (os.environ.get("SQLITE_SYNCHRONOUS") or "NORMAL").upper()
    if _synchronous not in {"NORMAL", "FULL"}:
        raise ImproperlyConfigured(f"SQLITE_SYNCHRONOUS is NORMAL or FULL, not {_synchronous!r}")
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={_synchronous};",
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # One connection per gunicorn thread, kept between requests (CONN_MAX_AGE) and tried before
    # a request first uses it (CONN_HEALTH_CHECKS): one a restart broke is replaced, not used
    # (docs/PERFORMANCE.md, PostgreSQL). A host that does not answer is given up after
    # DATABASE_CONNECT_TIMEOUT seconds: the site's 503 page, not a worker's timeout.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = envint(
        "DATABASE_CONNECT_TIMEOUT", 2
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and envbool(
    "DATABASE_PREPARED_STATEMENTS", True
):
    # Parameters bound by the server, and a statement run 5 times on a connection kept prepared
    # (docs/PERFORMANCE.md). Behind PgBouncer in transaction mode, which hands each transaction
    # another server session, DATABASE_PREPARED_STATEMENTS=false.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=5
    )
_test_name = os.environ.get("TEST_DATABASE_NAME")
if not _test_name and DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file rather than SQLite's shared-cache memory database, whose table locks fail at once
    # instead of waiting: the concurrency tests need real, waiting transactions. One file per
    # test process, so runs side by side do not share it; in memory-backed /dev/shm when there
    # is one, where a commit costs no disk flush.
    _shm = Path("/dev/shm")
    _test_dir = _shm if _shm.is_dir() and os.access(_shm, os.W_OK) else Path(tempfile.gettempdir())
    _test_name = str(_test_dir / f"kozel-test-{os.getpid()}.sqlite3")
DATABASES["default"]["TEST"] = {"NAME": _test_name or None}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The players' languages (the seed rule texts came in Russian, German, Vietnamese, Japanese,
# Korean and Telugu; Ukrainian beside Russian).
LANGUAGES = [
    ("en", _("English")),
    ("ru", _("Russian")),
    ("de", _("German")),
    ("uk", _("Ukrainian")),
    ("vi", _("Vietnamese")),
    ("ja", _("Japanese")),
    ("ko", _("Korean")),
    ("te", _("Telugu")),
]
# The picker's choice, per browser, for a year (an account's own lives in AccountSettings).
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Our own JavaScript and CSS served minified wherever static files are (kozel_site/staticfiles.py).
STATICFILES_FINDERS = [
    "kozel_site.staticfiles.MinifyingFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
]
MINIFY_STATIC = envbool("MINIFY_STATIC", True)
MINIFIED_ROOT = os.environ.get("MINIFIED_ROOT", "")
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
# Finished exports (scoring/backup/jobs.py) are written here by the task worker and served by
# the web servers: every server must reach the same place (one machine, or a shared volume).
EXPORTS_ROOT = Path(os.environ.get("EXPORTS_ROOT") or BASE_DIR / "var" / "exports")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "exports": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        # Read by this site's own processes only: nobody else on the machine needs a backup.
        "OPTIONS": {
            "location": EXPORTS_ROOT,
            "base_url": None,
            "file_permissions_mode": 0o600,
            "directory_permissions_mode": 0o700,
        },
    },
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "kozel_site.staticfiles.ManifestStorage"
    },
}

# The installable app: a deploy's build id (say the git commit), part of the service worker's
# cache names beside a digest of the app shell's files (scoring.web.middleware).
APP_VERSION = os.environ.get("APP_VERSION", "")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Password-reset mail goes out through SMTP when EMAIL_HOST is set (or another EMAIL_BACKEND).
# Without it, development prints mail to the console; production never does, since a reset
# link in the server's log lets whoever reads the log into the account: it sends nothing, and
# the password-reset page says that resetting by e-mail is not available here.
_CONSOLE_MAIL = "django.core.mail.backends.console.EmailBackend"
_NO_MAIL = "django.core.mail.backends.dummy.EmailBackend"
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if os.environ.get("EMAIL_BACKEND"):
    EMAIL_BACKEND = os.environ["EMAIL_BACKEND"]
elif EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
else:
    EMAIL_BACKEND = _CONSOLE_MAIL if DEBUG else _NO_MAIL
if not DEBUG and EMAIL_BACKEND == _CONSOLE_MAIL:
    raise ImproperlyConfigured(
        "EMAIL_BACKEND is the console: password-reset links would land in the server's log."
    )
PASSWORD_RESET_BY_EMAIL = EMAIL_BACKEND != _NO_MAIL
SUPPORT_CONTACT = os.environ.get("SUPPORT_CONTACT", "").strip()
EMAIL_PORT = envint("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Kozel <noreply@localhost>")

# Sessions live in the database and the cache is a database table, so every worker process and
# every app server sharing the database sees the same logins, links and cached values.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        # Created by migration scoring 0004 (and by Django's test database set-up).
        "LOCATION": "kozel_cache",
        "TIMEOUT": 300,
        # The throttles' counts (scoring.web.throttle), written by the requests they count
        # (never by a GET). Past this, Django drops a third of the table at each write.
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    },
    # This process's own memory, for what a GET may keep without writing anything shared (a GET
    # writes nothing): a season's figures by the versions they were made from (the same in every
    # process, made once in each), and the feed's per-minute counts (a limit per worker).
    "local": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "kozel-local",
        "OPTIONS": {"MAX_ENTRIES": 2_000},
    },
}

# Work off the request (the exports), queued in the database and run by `manage.py task_worker`.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

# Per hour (scoring.web.throttle).
QUICK_GAMES_PER_SESSION = envint("QUICK_GAMES_PER_SESSION", 30)
QUICK_GAMES_PER_ADDRESS = envint("QUICK_GAMES_PER_ADDRESS", 100)
SIGNUPS_PER_ADDRESS = envint("SIGNUPS_PER_ADDRESS", 10)
LEAGUE_GAMES_PER_ACCOUNT = envint("LEAGUE_GAMES_PER_ACCOUNT", 30)
for _limit in (
    "QUICK_GAMES_PER_SESSION",
    "QUICK_GAMES_PER_ADDRESS",
    "SIGNUPS_PER_ADDRESS",
    "LEAGUE_GAMES_PER_ACCOUNT",
    "LOGIN_FAILURES_PER_ACCOUNT",
    "LOGIN_FAILURES_PER_ADDRESS",
):
    if globals()[_limit] < 1:
        raise ImproperlyConfigured(f"{_limit} must be 1 or more.")

# Preview pictures for messengers (scoring/sharing/fonts.py): the folders their fonts are looked
# for in, colon-separated (Debian's fonts-noto-core, fonts-noto-cjk, fonts-dejavu-core).
PREVIEW_FONT_DIRS = [
    folder
    for folder in os.environ.get("PREVIEW_FONT_DIRS", "/usr/share/fonts").split(":")
    if folder
]
# The JSON feed of a league's public standings (scoring/views/sharing.py): requests per minute
# from one client network.
FEED_REQUESTS_PER_MINUTE = envint("FEED_REQUESTS_PER_MINUTE", 60)
if FEED_REQUESTS_PER_MINUTE < 1:
    raise ImproperlyConfigured("FEED_REQUESTS_PER_MINUTE must be 1 or more.")

# Security. The headers apply in development too, so a page that breaks under the
# Content-Security-Policy breaks on the developer's machine first; what needs HTTPS follows DEBUG.
SECURE_CONTENT_TYPE_NOSNIFF = True
# Same-origin requests carry the page's address (and POSTs a real Origin, which the CSRF check
# needs); other sites get none, so a secret link (invite, public standings) never leaks in a
# Referer. No page may tighten this to no-referrer: its forms would send "Origin: null" (403).
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# A refused form gets the site's own page, in the person's language, saying what to do.
CSRF_FAILURE_VIEW = "scoring.views.errors.csrf_failure"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = envbool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", not DEBUG)
# The load balancer probes /healthz over plain HTTP (patterns match the path without its "/").
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
_behind_proxy = envbool("SECURE_PROXY_SSL_HEADER", not DEBUG)
if _behind_proxy:
    # Behind a proxy that terminates TLS and sets X-Forwarded-Proto (and drops a client's own).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The proxies whose X-Forwarded-For entries name the client (scoring.web.clients.client_address).
TRUSTED_PROXY_COUNT = envint("TRUSTED_PROXY_COUNT", 1 if _behind_proxy and not DEBUG else 0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured("TRUSTED_PROXY_COUNT cannot be negative.")
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 60 * 60)
if SECURE_HSTS_SECONDS < 0:
    raise ImproperlyConfigured("SECURE_HSTS_SECONDS cannot be negative.")
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", not DEBUG)

# No inline script or style, no eval: JavaScript lives in static/js, htmx is configured in
# base.html not to eval, not to run swapped-in scripts and not to inject its indicator styles.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.SELF],
        "script-src": [csp.SELF],
        "style-src": [csp.SELF],
        "img-src": [csp.SELF, "data:"],
        "font-src": [csp.SELF],
        "connect-src": [csp.SELF],
        "form-action": [csp.SELF],
        "frame-ancestors": [csp.NONE],
        "base-uri": [csp.SELF],
        "object-src": [csp.NONE],
    }
}

# One line per record, with the request it belongs to (scoring.web.middleware fills the fields).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_context": {"()": "scoring.web.middleware.RequestContextFilter"}},
    "formatters": {
        "context": {
            # Without the tokens of secret links, wherever in the line they appear.
            "class": "scoring.web.middleware.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(method)s %(path)s "
            "user=%(user_id)s] %(message)s",
        }
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "context",
            "filters": ["request_context"],
        }
    },
    "root": {"handlers": ["console"], "level": envlevel("LOG_LEVEL", "INFO")},
    "loggers": {
        # Logger filters run before any handler, so every handler sees the request fields.
        "django.request": {"level": "ERROR", "filters": ["request_context"]},
        "django.security": {"level": "WARNING", "filters": ["request_context"]},
        "scoring": {"level": envlevel("LOG_LEVEL", "INFO"), "filters": ["request_context"]},
    },
}

# Decided here, not when the middleware starts: the test runner turns DEBUG off after this file
# is read, and tests serve static files straight from static/ as development does.
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG
