# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000

.PHONY: install fonts run test rules-js node test-fast lint format bench loadtest migrations-check messages demo-data serve lighthouse browser ci clean

# Each step says what it does before it starts: a first install takes a while, and a newcomer
# should see it working, not think it hung.
say = printf '\n== %s\n'

# Wheels only: every package installs without a compiler in seconds, and a new dependency that
# would be compiled for minutes fails here instead (ONLY_BINARY=:none: allows source packages on a
# platform without wheels).
ONLY_BINARY ?= :all:
$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(BIN)/python || { $(say) "Creating the virtualenv in $(VENV)…" && $(PYTHON) -m venv $(VENV); }
	@$(say) "Updating pip…"
	@$(BIN)/pip install --quiet --upgrade pip
	@$(say) "Installing Python packages (under a minute on a good connection)…"
	@$(BIN)/pip install --only-binary=$(ONLY_BINARY) -r requirements-dev.txt
	@touch $(STAMP)
	@$(say) "Python packages installed in $(VENV)."

install: $(STAMP)

# The fonts the preview pictures for messengers are drawn with (scoring/sharing/fonts.py): every
# script the site speaks. Debian's packages, as the browser tests use; PREVIEW_FONT_DIRS elsewhere.
fonts:
	@dpkg -s $(BROWSER_FONTS) >/dev/null 2>&1 || { \
	  $(say) "Installing the Noto fonts with apt-get (the preview pictures' scripts)…"; \
	  command -v apt-get >/dev/null && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_FONTS) >/dev/null) ; } || \
	  echo "Could not install $(BROWSER_FONTS): preview pictures will miss glyphs (docs/DEPLOY.md)"

# Debian's Chromium for the real-browser tests (never a browser download), and the Noto fonts
# that draw every script the site speaks (CJK, Telugu), so screenshots show glyphs, not boxes.
BROWSER_FONTS := fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
browser: fonts
	@test -x /usr/bin/chromium && dpkg -s $(BROWSER_FONTS) >/dev/null 2>&1 || { \
	  $(say) "Installing Chromium and fonts with apt-get (a minute or two)…"; \
	  command -v apt-get >/dev/null && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium $(BROWSER_FONTS) >/dev/null) ; }
	@test -x /usr/bin/chromium || { echo "Chromium is missing at /usr/bin/chromium"; exit 1; }

# The task worker (django-tasks' database backend: the exports, scoring/backup/jobs.py) runs
# beside the server and stops with it: the server's end (or Ctrl-C) ends the worker too.
# task_worker starts db_worker again whenever it stops (a database restart stops it).
WORKER := $(BIN)/python manage.py task_worker

run: install fonts
	@$(say) "Migrating the database…"
	@$(BIN)/python manage.py migrate --noinput
	@$(BIN)/python manage.py fold_standings
	@$(say) "Starting the task worker and the development server on http://127.0.0.1:$(PORT)/ (Ctrl+C stops both)…"
	@$(WORKER) & trap 'kill $$! 2>/dev/null' EXIT; $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The suite runs in parallel, one worker per core (pytest-xdist; each worker has its own test
# database), and each run ends with the ten slowest tests. The browser tests run on their own
# afterwards: a worker that has run Playwright must not run other database tests (it would leave
# a database connection behind, and PostgreSQL then refuses to drop the test database).
# Coverage is measured over both runs (pyproject.toml's [tool.coverage]) and reported at the end,
# where the run fails below its fail-under.
test: install browser node
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(MAKE) --no-print-directory rules-js
	$(BIN)/pytest -n auto -m "not browser" --cov --cov-report= --cov-fail-under=0
	$(BIN)/pytest -n auto -m browser --cov --cov-append --cov-report=term

# The JavaScript rules against golden vectors from the Python engine (docs/ARCHITECTURE.md):
# RULES_SERIES random series, RULES_SEED picks them; run by `make test`.
RULES_SERIES ?= 3000
RULES_SEED ?= 15
rules-js: install node
	@vectors=$$(mktemp) && \
	  $(BIN)/python -m tests.js.vectors --count $(RULES_SERIES) --seed $(RULES_SEED) --output $$vectors && \
	  KOZEL_RULES_VECTORS=$$vectors node --test tests/js/*.test.mjs; \
	  status=$$?; rm -f $$vectors; exit $$status

# Node 20 runs the JavaScript tests (tests/js/); Debian's nodejs when it is missing.
node:
	@command -v node >/dev/null || { \
	  $(say) "Installing Node.js with apt-get…"; \
	  command -v apt-get >/dev/null && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null) ; }
	@command -v node >/dev/null || { echo "Node is missing (tests/js/ needs Node 20)"; exit 1; }

# Python keeps its compiled modules (and pytest its assertion-rewritten tests) in __pycache__,
# even where the environment says not to (PYTHONDONTWRITEBYTECODE): a run after the first then
# starts in a second instead of re-compiling the project and its tests in every worker.
unexport PYTHONDONTWRITEBYTECODE

# Without the browser tests and the slow ones (fuzzing, races, several processes): 70-87 s on
# a two-core machine, 168 s on the slower kind (the goal is under a minute). ARGS narrows the run (e.g. ARGS=tests/table/test_services.py).
# Tables made from the models, not by the migrations (make test migrates, and tests them).
test-fast: install
	$(BIN)/pytest -n auto -m "not browser and not slow" --no-migrations $(ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy scoring kozel_site

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

migrations-check: install
	$(BIN)/python manage.py makemigrations --check --dry-run

# Every language of settings.LANGUAGES but English (the source); then translate the new entries
# of each locale/<lang>/LC_MESSAGES/django.po (locale/GLOSSARY.md has the game's words).
MESSAGE_LANGUAGES = $(shell $(BIN)/python -c 'import os; os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kozel_site.settings"); import django; django.setup(); from django.conf import settings; print(" ".join("-l " + code for code, _ in settings.LANGUAGES if code != "en"))' 2>/dev/null || echo "-l ru")
messages: install
	$(BIN)/python manage.py makemessages $(MESSAGE_LANGUAGES) --no-obsolete --ignore=.venv --ignore=tests --ignore=benchmarks --ignore=node_modules --ignore=staticfiles
	$(BIN)/python manage.py compilemessages --ignore=.venv

# Every benchmark script prints its figures; none asserts a speed. QUICK=1: every code path on
# small data in a minute (what CI runs; its figures mean nothing).
bench: install
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/rules_engine.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/history_pages.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/league_pages.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/seating.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/event_board.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/exports.py
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/raw_sql.py

# Club nights and kitchen tables: the most tables of each kind this site serves within its
# latency budget, beside a bare Django under the same gunicorn (LOADTEST_DATABASE_URL: on
# PostgreSQL too); figures only.
loadtest: install
	BENCH_QUICK=$(QUICK) $(BIN)/python benchmarks/loadtest.py

# A realistic league through the engine: 200 players, 5,000 series, about 150,000 deals.
# DEMO_ARGS changes the size (e.g. DEMO_ARGS="--players 12 --series 20").
demo-data: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_data $(DEMO_ARGS)

# The production-like server: gunicorn + whitenoise, DEBUG off (SQLite unless DATABASE_URL), and
# the task worker beside it. No proxy buffers its answers, so its workers are threaded: a slow
# download holds a thread, not a worker (kozel_site/gunicorn.conf.py).
serve: install fonts
	DEBUG=false SECRET_KEY=$${SECRET_KEY:-local-serve-only-$$(hostname)-not-for-production-use-0123456789} \
	  ALLOWED_HOSTS=$${ALLOWED_HOSTS:-127.0.0.1,localhost} SECURE_SSL_REDIRECT=$${SECURE_SSL_REDIRECT:-false} \
	  SECURE_PROXY_SSL_HEADER=$${SECURE_PROXY_SSL_HEADER:-false} TRUSTED_PROXY_COUNT=$${TRUSTED_PROXY_COUNT:-0} \
	  GUNICORN_THREADS=$${GUNICORN_THREADS:-4} \
	  sh -c '$(BIN)/python manage.py migrate --noinput && $(BIN)/python manage.py fold_standings && $(BIN)/python manage.py collectstatic --noinput -v0 && \
	    { $(WORKER) & trap "kill $$! 2>/dev/null" EXIT; $(BIN)/gunicorn -c kozel_site/gunicorn.conf.py kozel_site.wsgi; }'

# Lighthouse 12 on the scoreboard and standings pages (Debian's Chromium).
lighthouse: install browser
	bash benchmarks/lighthouse.sh

clean:
	rm -rf $(VENV) .pytest_cache .coverage .coverage.*
