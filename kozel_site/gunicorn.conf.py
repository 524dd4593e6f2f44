"""gunicorn settings (``gunicorn -c kozel_site/gunicorn.conf.py kozel_site.wsgi``; ``make serve``),
tuned from the environment (docs/DEPLOY.md). The access log leaves out the tokens of secret
links (``scoring.lib.redact``).
"""

from __future__ import annotations

import multiprocessing
import os


def _int(name: str, default: int) -> int:
    value = os.environ.get(name) or str(default)
    try:
        return int(value)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number, not {value!r}") from None


wsgi_app = "kozel_site.wsgi:application"
# The project is loaded once in the master and the workers are forked from it (its memory
# shared, copy-on-write). Loading it opens no database connection.
preload_app = True


bind = os.environ.get("BIND") or f"127.0.0.1:{_int('PORT', 8000)}"
workers = _int("WEB_CONCURRENCY", min(2 * multiprocessing.cpu_count() + 1, 8))
# Sync workers by default: behind the documented proxy (docs/DEPLOY.md), nginx buffers every
# answer, so a large download to a slow phone holds a worker for a second or two, and sync
# workers serve a club night's tables at two thirds of the CPU that threaded ones cost (`make
# loadtest`: docs/PERFORMANCE.md). With nothing in front (`make serve` sets
# GUNICORN_THREADS=4), threads answer the requests while each worker's main thread keeps its
# heartbeat: a download lasts as long as its client reads and holds one thread, where a sync
# worker is killed by the timeout in mid-download (tests/site/test_slow_downloads.py). Each
# thread keeps its own database connection.
threads = _int("GUNICORN_THREADS", 1)
worker_class = "gthread" if threads > 1 else "sync"
# A worker that has not reported for this long is stuck, and replaced (a threaded worker's main
# thread reports while its requests run, so theirs have no time limit).
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = 20
keepalive = 5
# Recycle workers now and then, staggered, so a slow leak never takes the site down; rarely: a
# fresh worker's first requests are slow (templates, catalogues), and a club night's phones
# send a few hundred requests a second (every 2,000 a worker stalled the polls every ~40 s at
# 100 tables, `make loadtest`: p99 772 ms; never, 51 ms).
max_requests = _int("GUNICORN_MAX_REQUESTS", 50_000)
max_requests_jitter = max_requests // 10
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s'
# The access log without the tokens of score, watch, invite, public and password-reset links.
logger_class = "kozel_site.gunicorn_logging.RedactingLogger"
proc_name = "kozel"
# gunicorn's control socket (for gunicornc) only when asked for: its default path is one per user,
# which two servers on one machine would fight over.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET") or "/nonexistent/gunicorn.ctl"
control_socket_disable = not os.environ.get("GUNICORN_CONTROL_SOCKET")
