# Two entry points for a fresh Debian machine (as root): `make run` and `make test`.
# Both install everything they need; running them again is cheap.
VENV ?= .venv
PY := $(VENV)/bin/python
SAMPLE ?=
# `make run PORT=8600` serves the debugger on another port (8501 may be taken by another Streamlit app)
PORT ?= 8501

.PHONY: run run-deps test check lint install install-test system-deps bench clean

$(PY):
	python3 -m venv $(VENV)

install: $(PY)
	$(PY) -m pip install -q -e .

# chromium drives the browser tests; graphviz's `dot` lays out the app's drawings and checks every DOT
# text; the emoji font lets screenshots show the app's symbols as a user's browser does. postgresql:
# the tests start their own server (tests/threads/postgres_server.py) for checkpointer threads and the
# shared run store.
SYSTEM_PACKAGES := chromium graphviz fonts-noto-color-emoji postgresql
system-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! command -v dot >/dev/null 2>&1 \
	    || ! dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || ! dpkg -s postgresql >/dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSTEM_PACKAGES) >/dev/null; \
	fi

install-test: $(PY) system-deps
	$(PY) -m pip install -q -e ".[test]"

# The app lays out its drawings with graphviz's `dot` (Debian package graphviz).
run-deps:
	@command -v dot >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null)

run: install run-deps
	$(PY) -m debugger.cli app $(SAMPLE) --port $(PORT)

# pytest exits 5 when it collected nothing: that is a failure, never a silent pass.
test: install-test lint
	@$(PY) -m pytest -q tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 1; fi; exit $$rc

# The everyday run (under 30 s): no browser, no langgraph reference, no subprocesses.
check: lint
	@$(PY) -m pytest -q -p no:cacheprovider tests -m "not e2e and not reference and not slow" \
	  --ignore=tests/e2e --ignore=tests/differential

# ruff lints (rules in pyproject.toml) and checks that the tree is formatted as `ruff format` would.
lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: install-test
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) build *.egg-info
