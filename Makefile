# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000

.PHONY: install run test test-fast lint format bench migrations-check messages demo-data serve lighthouse browser ci clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# Debian's Chromium for the real-browser tests (never a browser download).
browser:
	@test -x /usr/bin/chromium || { \
	  command -v apt-get >/dev/null && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null) ; }
	@test -x /usr/bin/chromium || { echo "Chromium is missing at /usr/bin/chromium"; exit 1; }

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: install browser
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest

test-fast: install
	$(BIN)/pytest -m "not browser"

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

migrations-check: install
	$(BIN)/python manage.py makemigrations --check --dry-run

messages: install
	$(BIN)/python manage.py makemessages -l ru --ignore=.venv --ignore=tests
	$(BIN)/python manage.py compilemessages --ignore=.venv

bench: install
	$(BIN)/python benchmarks/rules_engine.py

clean:
	rm -rf $(VENV) .pytest_cache
