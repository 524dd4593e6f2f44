#!/usr/bin/env bash
# `make lighthouse`: Lighthouse 12 on the scoreboard and the standings page, with Debian's Chromium.
#
# Serves the site like production (gunicorn, DEBUG off, whitenoise's compressed static files) on a
# free local port with a fresh SQLite database holding a game in progress and a league with
# standings, then prints each page's scores and the bytes transferred, on a phone (Lighthouse's
# default mobile emulation and throttling) and on a desktop. It only prints: no score fails it.
# Goals: mobile performance >= 95, accessibility 100, scoreboard under 50 KB transferred.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
GUNICORN=${GUNICORN:-$ROOT/.venv/bin/gunicorn}
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}

test -x "$CHROME_PATH" || { echo "lighthouse: Chromium is missing at $CHROME_PATH (make browser)" >&2; exit 1; }
LIGHTHOUSE=benchmarks/node_modules/.bin/lighthouse
if [ ! -x "$LIGHTHOUSE" ]; then
  echo "== installing lighthouse (npm ci in benchmarks/)"
  npm ci --prefix benchmarks --no-audit --no-fund --loglevel=error
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kozel-lighthouse.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export DEBUG=false
export SECRET_KEY="lighthouse-only-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export ALLOWED_HOSTS=127.0.0.1,localhost
export SECURE_SSL_REDIRECT=false SECURE_COOKIES=false SECURE_HSTS_SECONDS=0 SECURE_PROXY_SSL_HEADER=false
export DATABASE_URL="sqlite:///$WORK/lighthouse.sqlite3"
export STATIC_ROOT="$WORK/static"
export LOG_LEVEL=WARNING

echo "== preparing a fresh database and the static files"
"$PYTHON" manage.py migrate --noinput -v0
"$PYTHON" manage.py createcachetable -v0
"$PYTHON" manage.py collectstatic --noinput -v0
"$PYTHON" benchmarks/lighthouse_data.py > "$WORK/data.json"

"$GUNICORN" kozel_site.wsgi --bind "127.0.0.1:$PORT" --workers 2 --log-level warning &
SERVER_PID=$!
for _ in $(seq 50); do
  curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
  curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break
  sleep 0.2
done

"$PYTHON" - "$WORK" "$PORT" "$LIGHTHOUSE" <<'PY'
import json
import subprocess
import sys
from pathlib import Path

work, port, lighthouse = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
data = json.loads((work / "data.json").read_text())
headers = work / "headers.json"
headers.write_text(json.dumps({"Cookie": data["cookie"]}))
print(f"== {data['deals']} deals on the scoreboard, {data['league_series']} series in the league")
print(f"{'page':<12} {'device':<8} {'perf':>5} {'a11y':>5} {'best':>5} {'bytes':>9} "
      f"{'requests':>8} {'FCP ms':>7} {'LCP ms':>7} {'TBT ms':>7} {'CLS':>6}")
for name, path in data["pages"].items():
    for device in ("mobile", "desktop"):
        report = work / f"{name}-{device}.json"
        command = [
            lighthouse, f"http://127.0.0.1:{port}{path}",
            "--quiet", "--output=json", f"--output-path={report}",
            "--only-categories=performance,accessibility,best-practices",
            "--chrome-flags=--headless --no-sandbox --disable-gpu --no-first-run",
            f"--extra-headers={headers}",
        ]
        if device == "desktop":
            command.append("--preset=desktop")
        # Lighthouse's own trace sometimes fails on a busy machine ("Please run Lighthouse
        # again", NO_NAVSTART): once more before the page is reported as failed.
        for _ in range(2):
            report.unlink(missing_ok=True)
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode == 0 and report.exists():
                break
        if run.returncode != 0 or not report.exists():
            print(f"{name:<12} {device:<8} lighthouse failed: {run.stderr.strip()[-500:]}")
            continue
        result = json.loads(report.read_text())
        score = {k: round(100 * (v["score"] or 0)) for k, v in result["categories"].items()}
        audits = result["audits"]
        requests = audits["network-requests"]["details"]["items"]
        metric = lambda key: audits[key].get("numericValue", 0)  # noqa: E731
        print(f"{name:<12} {device:<8} {score['performance']:>5} {score['accessibility']:>5} "
              f"{score['best-practices']:>5} {round(metric('total-byte-weight')):>9} "
              f"{len(requests):>8} {round(metric('first-contentful-paint')):>7} "
              f"{round(metric('largest-contentful-paint')):>7} "
              f"{round(metric('total-blocking-time')):>7} {metric('cumulative-layout-shift'):>6.3f}")
        if device == "mobile":
            for item in requests:
                print(f"{'':<12} {'':<8} {item.get('transferSize', 0):>8} B  {item['url'].split(port, 1)[-1]}")
            failing = [
                f"{audit['id']} ({audit['score']})"
                for ref in result["categories"]["accessibility"]["auditRefs"] + result["categories"]["best-practices"]["auditRefs"]
                for audit in [audits[ref["id"]]]
                if audit.get("score") is not None and audit["score"] < 1 and ref.get("weight", 0) > 0
            ]
            if failing:
                print(f"{'':<12} {'':<8} not passed: {', '.join(failing)}")
print("Goals: mobile performance >= 95, accessibility and best practices 100, scoreboard under 50 KB (51200 bytes).")
PY
