#!/usr/bin/env bash
# Tries docs/DEPLOY.md's commands on this machine (tests/site/test_deploy_doc.py holds each
# documented command to its line here): a virtualenv and the requirements, PostgreSQL, two
# gunicorn servers and the task worker behind a local nginx that ends TLS (a self-signed
# certificate made with openssl), then asks each server and nginx for /healthz, asks nginx for a
# league's backup (made by the worker, downloaded whole), a page, a static file,
# the admin (logged in as the superuser createsuperuser made), logs in, sends a password-reset
# mail through SMTP (a local sink), checks that a client cannot dodge the login lockout with its
# own X-Forwarded-For, backs up (pg_dump, export_history) and restores (pg_restore,
# import_history), and upgrades (pip, migrate, a graceful gunicorn reload).
#
# Needs: PostgreSQL at $PG (default postgres://postgres@127.0.0.1:5432, trust), curl, openssl,
# nginx (installed from Debian's packages when missing and running as root). Everything it
# starts is stopped and everything it makes is removed on exit. About a minute.
#
#   deploy/try-deploy.sh            (PYTHON=path/to/venv/bin/python to use another venv)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-.venv/bin/python}
BIN=$(dirname "$PYTHON")
PG=${PG:-postgres://postgres@127.0.0.1:5432}
NAME=kozel_try_deploy_$$
WORK=$(mktemp -d)
PIDS=()
GUNICORNS=()  # the gunicorn masters' pids (also in PIDS, which cleanup stops)

step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

cleanup() {
  set +e
  [ -f "$WORK/nginx.pid" ] && kill -QUIT "$(cat "$WORK/nginx.pid")" 2>/dev/null
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  for db in "$NAME" "${NAME}_restored" "${NAME}_imported"; do
    psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

step "nginx from Debian's packages"
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  [ "$(id -u)" = 0 ] || fail "nginx is missing: apt-get install nginx-light (as root)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
"$NGINX" -v

step "install: a virtualenv, the requirements (those of \$PYTHON's venv are in place already)"
python3 -m venv "$WORK/venv" && "$WORK/venv/bin/python" -c 'import sys; print(sys.prefix)'
"$BIN/pip" install -q -r requirements.txt

step "a local SMTP server that keeps what it is sent (the password-reset mail)"
SMTP_PORT=$(free_port)
"$PYTHON" - "$SMTP_PORT" "$WORK/mail.txt" >"$WORK/smtp.log" 2>&1 <<'SMTP' &
import socketserver, sys

class Sink(socketserver.StreamRequestHandler):
    def handle(self):
        self.wfile.write(b"220 sink\r\n")
        data = False
        for line in self.rfile:
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if data:
                if text == ".":
                    data = False
                    self.wfile.write(b"250 kept\r\n")
                else:
                    with open(sys.argv[2], "a") as mail:
                        mail.write(text + "\n")
                continue
            verb = text[:4].upper()
            if verb == "DATA":
                data = True
                self.wfile.write(b"354 go on\r\n")
            elif verb == "QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"250 ok\r\n")

socketserver.TCPServer.allow_reuse_address = True
socketserver.TCPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
SMTP
PIDS+=($!)

step "the environment (docs/DEPLOY.md, 'Environment variables')"
HTTPS_PORT=$(free_port)
export DEBUG=false
SECRET_KEY=$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(50))')
export SECRET_KEY
export ALLOWED_HOSTS=localhost
export CSRF_TRUSTED_ORIGINS="https://localhost:$HTTPS_PORT"
export DATABASE_URL="$PG/$NAME"
export STATIC_ROOT="$WORK/static"
export TRUSTED_PROXY_COUNT=1
export AXES_FAILURE_LIMIT=3
export ADMIN_URL=ops-try/
export LOG_LEVEL=WARNING
export WEB_CONCURRENCY=2
export EXPORTS_ROOT="$WORK/exports"  # the task worker writes there, both servers read there
export EMAIL_HOST=127.0.0.1 EMAIL_PORT=$SMTP_PORT EMAIL_USE_TLS=false
export DEFAULT_FROM_EMAIL="Kozel <noreply@localhost>"
unset TEST_DATABASE_NAME SECURE_SSL_REDIRECT SECURE_PROXY_SSL_HEADER SECURE_COOKIES 2>/dev/null || true

step "database, migrations, static files, deploy checks"
createdb_() { createdb --maintenance-db="$PG/postgres" "$1"; }
createdb_ "$NAME"
"$PYTHON" manage.py migrate --noinput -v0
"$PYTHON" manage.py fold_standings
"$PYTHON" manage.py collectstatic --noinput -v0
"$PYTHON" manage.py check --deploy --fail-level WARNING
"$PYTHON" manage.py demo_data --players 8 --series 6 --password "try-deploy-pass-42" -v0
"$PYTHON" manage.py shell -v0 -c "
from django.contrib.auth.models import User
User.objects.create_user('anna', 'anna@example.org', password='try-deploy-pass-42')"
DJANGO_SUPERUSER_PASSWORD=try-deploy-root-42 DJANGO_SUPERUSER_EMAIL=root@example.org \
  "$PYTHON" manage.py createsuperuser --noinput --username root

step "two gunicorn servers"
PORTS=("$(free_port)" "$(free_port)")
for port in "${PORTS[@]}"; do
  BIND="127.0.0.1:$port" "$BIN/gunicorn" -c kozel_site/gunicorn.conf.py kozel_site.wsgi \
    >"$WORK/gunicorn-$port.log" 2>&1 &
  PIDS+=($!)
  GUNICORNS+=($!)
done

step "the task worker beside them (the exports)"
"$PYTHON" manage.py task_worker >"$WORK/worker.log" 2>&1 &
PIDS+=($!)

step "nginx in front, TLS with a self-signed certificate"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
mkdir -p "$WORK/tmp" && chmod 777 "$WORK/tmp"
sed -e "s#@WORK@#$WORK#g" -e "s#@HTTPS_PORT@#$HTTPS_PORT#g" \
  -e "s#@APP1@#127.0.0.1:${PORTS[0]}#g" -e "s#@APP2@#127.0.0.1:${PORTS[1]}#g" \
  deploy/nginx.conf.template >"$WORK/nginx.conf"
{
  echo "pid $WORK/nginx.pid;"
  echo "error_log $WORK/nginx-error.log warn;"
  [ "$(id -u)" = 0 ] && echo "user nobody nogroup;"
  echo "events {}"
  echo "http {"
  echo "  access_log $WORK/nginx-access.log;"
  echo "  client_body_temp_path $WORK/tmp/body; proxy_temp_path $WORK/tmp/proxy;"
  echo "  fastcgi_temp_path $WORK/tmp/f; uwsgi_temp_path $WORK/tmp/u; scgi_temp_path $WORK/tmp/s;"
  echo "  include $WORK/nginx.conf;"
  echo "}"
} >"$WORK/nginx-main.conf"
"$NGINX" -t -q -c "$WORK/nginx-main.conf" -p "$WORK"
"$NGINX" -c "$WORK/nginx-main.conf" -p "$WORK"

SITE="https://localhost:$HTTPS_PORT"
CURL=(curl -sS --cacert "$WORK/cert.pem" --max-time 10)
for _ in $(seq 100); do
  "${CURL[@]}" -fo /dev/null "$SITE/healthz" 2>/dev/null && break
  sleep 0.2
done

expect() {  # expect STATUS PATH [curl options...]
  local want=$1 path=$2
  shift 2
  local got
  got=$("${CURL[@]}" -o "$WORK/body" -w '%{http_code}' "$@" "$SITE$path")
  echo "$path -> $got"
  [ "$got" = "$want" ] || { head -c 600 "$WORK/body"; fail "$path answered $got, not $want"; }
}

step "each gunicorn server's health check, asked directly (as a load balancer does)"
for port in "${PORTS[@]}"; do
  for _ in $(seq 100); do  # each server may still be starting
    curl -fso /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break
    sleep 0.2
  done
  curl -fsS http://127.0.0.1:$port/healthz
  echo " <- gunicorn on $port"
done

step "through nginx: health, pages, static files, the admin"
expect 200 /healthz
grep -qx ok "$WORK/body" || fail "/healthz did not say ok"
for _ in 1 2 3 4 5 6; do expect 200 /healthz >/dev/null; done
for port in "${PORTS[@]}"; do
  grep -q "GET /healthz" "$WORK/gunicorn-$port.log" || fail "gunicorn on $port got no request"
done
echo "both gunicorn servers answered"
expect 200 / -D "$WORK/headers"
grep -qi '^strict-transport-security: max-age=31536000' "$WORK/headers" || fail "no HSTS"
grep -qi "^content-security-policy: .*script-src 'self'" "$WORK/headers" || fail "no CSP"
expect 200 /new/
expect 200 /static/vendor/htmx.min.js -D "$WORK/headers"
expect 302 /ops-try/
direct=$(curl -sS -o /dev/null -w '%{http_code}' -H "Host: localhost" "http://127.0.0.1:${PORTS[0]}/new/")
echo "/new/ straight to gunicorn, without TLS -> $direct"
[ "$direct" = 301 ] || fail "a request that did not come through the TLS proxy is not sent to https"

step "log in through nginx (CSRF over HTTPS behind the proxy)"
JAR="$WORK/cookies"
login() {  # login USERNAME PASSWORD [extra curl options]: prints the status of the POST
  local user=$1 password=$2
  shift 2
  "${CURL[@]}" -c "$JAR" -b "$JAR" -o /dev/null "$SITE/accounts/login/"
  local token
  token=$(awk '$6 == "csrftoken" {print $7}' "$JAR")
  "${CURL[@]}" -c "$JAR" -b "$JAR" -o "$WORK/body" -w '%{http_code}' "$@" \
    -H "Referer: $SITE/accounts/login/" -H "Origin: $SITE" \
    --data-urlencode "csrfmiddlewaretoken=$token" --data-urlencode "username=$user" \
    --data-urlencode "password=$password" "$SITE/accounts/login/"
}
[ "$(login anna try-deploy-pass-42)" = 302 ] || fail "anna could not log in"
expect 200 /accounts/ -b "$JAR"
grep -q anna "$WORK/body" || fail "the account page does not know anna"
expect 200 /leagues/ -b "$JAR"
rm -f "$JAR"

step "a league's backup through nginx: asked for, made by the task worker, downloaded whole"
[ "$(login demo try-deploy-pass-42)" = 302 ] || fail "the demo league's owner could not log in"
"${CURL[@]}" -c "$JAR" -b "$JAR" -o /dev/null "$SITE/history/export.json"
token=$(awk '$6 == "csrftoken" {print $7}' "$JAR")
page=$("${CURL[@]}" -c "$JAR" -b "$JAR" -o /dev/null -w '%{redirect_url}' \
  -H "Referer: $SITE/history/export.json" -H "Origin: $SITE" \
  --data-urlencode "csrfmiddlewaretoken=$token" "$SITE/history/export.json")
[ -n "$page" ] || fail "asking for the backup did not lead to its page"
for _ in $(seq 100); do
  "${CURL[@]}" -b "$JAR" -o "$WORK/body" "$page"
  grep -q '/download"' "$WORK/body" && break
  sleep 0.3
done
grep -q '/download"' "$WORK/body" || { cat "$WORK/worker.log"; fail "the worker did not make it"; }
"${CURL[@]}" -b "$JAR" -fo "$WORK/backup.json" "${page}download"
tail -c 40 "$WORK/backup.json" | grep -q '"complete":true}' || fail "the backup is not whole"
echo "the backup: $(wc -c <"$WORK/backup.json") bytes, made by the task worker, whole"
rm -f "$JAR"

step "the admin, as the superuser createsuperuser made (docs/DEPLOY.md, 'Operators')"
[ "$(login root try-deploy-root-42)" = 302 ] || fail "the superuser could not log in"
for path in /ops-try/ /ops-try/scoring/deal/ /ops-try/scoring/league/ /ops-try/auth/user/ \
  /ops-try/axes/accessattempt/; do
  expect 200 "$path" -b "$JAR"
done
rm -f "$JAR"

step "mail: a password reset sent through SMTP, its link to the site behind the proxy"
"${CURL[@]}" -c "$JAR" -b "$JAR" -o /dev/null "$SITE/accounts/password/reset/"
token=$(awk '$6 == "csrftoken" {print $7}' "$JAR")
expect 302 /accounts/password/reset/ -c "$JAR" -b "$JAR" -H "Referer: $SITE/accounts/password/reset/" \
  -H "Origin: $SITE" --data-urlencode "csrfmiddlewaretoken=$token" \
  --data-urlencode "email=anna@example.org"
for _ in $(seq 50); do [ -s "$WORK/mail.txt" ] && break; sleep 0.1; done
grep -q "^To: anna@example.org" "$WORK/mail.txt" || fail "no reset mail reached the SMTP server"
grep -q "$SITE/accounts/" "$WORK/mail.txt" || fail "the reset mail has no https link to the site"
echo "the reset mail went out through SMTP with a link to $SITE"
rm -f "$JAR"

step "the login lockout counts the client's real address, whatever X-Forwarded-For it sends"
for n in 1 2 3; do
  status=$(login demo wrong-password -H "X-Forwarded-For: 198.51.100.$n")
  echo "wrong password $n (claiming 198.51.100.$n) -> $status"
  rm -f "$JAR"
done
status=$(login demo try-deploy-pass-42 -H "X-Forwarded-For: 203.0.113.77")
echo "right password, claiming another address -> $status"
[ "$status" = 429 ] || [ "$status" = 403 ] || fail "a new X-Forwarded-For got round the lockout"
"$PYTHON" manage.py shell -v0 -c "
from axes.models import AccessAttempt
addresses = set(AccessAttempt.objects.values_list('ip_address', flat=True))
assert addresses == {'127.0.0.1'}, addresses
print('the attempts were counted for', addresses)"
rm -f "$JAR"
[ "$(login anna try-deploy-pass-42)" = 302 ] || fail "another account was locked out too"

step "the operator's login link lets the locked-out owner in, through nginx (manage.py login_link)"
LINK=$("$PYTHON" manage.py login_link demo --site "$SITE" 2>/dev/null)
rm -f "$JAR"
"${CURL[@]}" -c "$JAR" -b "$JAR" -o "$WORK/body" "$LINK"
grep -q "Log in as demo" "$WORK/body" || fail "the login link's page has no button"
token=$(awk '$6 == "csrftoken" {print $7}' "$JAR")
status=$("${CURL[@]}" -c "$JAR" -b "$JAR" -o /dev/null -w '%{http_code}' \
  -H "Referer: $LINK" -H "Origin: $SITE" --data-urlencode "csrfmiddlewaretoken=$token" "$LINK")
[ "$status" = 302 ] || fail "the login link did not log the owner in ($status)"
status=$("${CURL[@]}" -b "$JAR" -o /dev/null -w '%{http_code}' "$SITE/accounts/")
[ "$status" = 200 ] || fail "after the login link the account page answered $status"
echo "the operator's login link let the locked-out owner in"
rm -f "$JAR"

step "backups: pg_dump, and export_history for the portable JSON"
pg_dump -Fc -f "$WORK/kozel.dump" "$DATABASE_URL"
"$PYTHON" manage.py export_history --output "$WORK/history.json"
SERIES=$("$PYTHON" manage.py shell -v0 -c "from scoring.models import Series; print(Series.objects.count())")
echo "series in the site: $SERIES"

step "restores: pg_restore into a new database, import_history into another"
createdb_ "${NAME}_restored"
pg_restore --no-owner -d "$PG/${NAME}_restored" "$WORK/kozel.dump"
RESTORED=$(DATABASE_URL="$PG/${NAME}_restored" "$PYTHON" manage.py shell -v0 -c \
  "from scoring.models import Series; print(Series.objects.count())")
[ "$RESTORED" = "$SERIES" ] || fail "pg_restore gave $RESTORED series, not $SERIES"
createdb_ "${NAME}_imported"
DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py migrate --noinput -v0
DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py import_history "$WORK/history.json" >/dev/null
DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py fold_standings >/dev/null
IMPORTED=$(DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py shell -v0 -c \
  "from scoring.models import Series; print(Series.objects.count())")
[ "$IMPORTED" = "$SERIES" ] || fail "import_history gave $IMPORTED series, not $SERIES"
DATABASE_URL="$PG/${NAME}_imported" "$PYTHON" manage.py check_integrity >/dev/null
echo "both restores hold the $SERIES series"

step "upgrading: pip, migrate (nothing left to do), fold_standings, collectstatic, a graceful reload"
"$BIN/pip" install -q -r requirements.txt
"$PYTHON" manage.py migrate --noinput -v0
"$PYTHON" manage.py migrate --check
"$PYTHON" manage.py fold_standings
"$PYTHON" manage.py collectstatic --noinput -v0
kill -HUP "${GUNICORNS[0]}"
sleep 2
for _ in 1 2 3 4; do expect 200 /healthz >/dev/null; done
echo "the site answered through the reload"

echo
echo "deploy/try-deploy.sh: every step passed"
