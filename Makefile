# Two entry points for a fresh Debian machine (as root): `make run` and `make test`.
# Both install everything they need; running them again is cheap.
VENV ?= .venv
PY := $(VENV)/bin/python
SAMPLE ?=
# `make run PORT=8600` serves the debugger on another port (8501 may be taken by another Streamlit app)
PORT ?= 8501

.PHONY: run run-deps js-lessons test check lint install install-test system-deps bench clean catalogs

$(PY):
	python3 -m venv $(VENV)

install: $(PY)
	$(PY) -m pip install -q -e .

# chromium drives the browser tests; graphviz's `dot` lays out the app's drawings and checks every DOT
# text; the emoji font lets screenshots show the app's symbols as a user's browser does, and a small CJK
# font (WenQuanYi Micro Hei, 5 MB) its Chinese (`?lang=zh`). postgresql:
# the tests start their own server (tests/threads/postgres_server.py) for checkpointer threads and the
# shared run store. node and npm run the LangGraph.js lessons and their tests; each is installed only
# when its command is missing, so a machine's own newer node is kept (`make run` needs neither, and uses them
# where they are: js-lessons).
SYSTEM_PACKAGES := chromium graphviz fonts-noto-color-emoji fonts-wqy-microhei postgresql
system-deps:
	@packages=""; \
	if ! command -v chromium >/dev/null 2>&1 || ! command -v dot >/dev/null 2>&1 \
	    || ! dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || ! dpkg -s fonts-wqy-microhei >/dev/null 2>&1 \
	    || ! dpkg -s postgresql >/dev/null 2>&1; then \
	  packages="$(SYSTEM_PACKAGES)"; \
	fi; \
	command -v node >/dev/null 2>&1 || packages="$$packages nodejs"; \
	command -v npm >/dev/null 2>&1 || packages="$$packages npm"; \
	if [ -n "$$packages" ]; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$packages >/dev/null; \
	fi

# The tests' JavaScript dependencies, exactly as locked; npm writes node_modules/.package-lock.json on
# every install, so it is older than package-lock.json only when the lock changed since.
node_modules/.package-lock.json: package-lock.json package.json | system-deps
	npm ci --no-audit --no-fund

install-test: $(PY) system-deps node_modules/.package-lock.json
	$(PY) -m pip install -q -e ".[test]"

# The app lays out its drawings with graphviz's `dot` (Debian package graphviz).
run-deps:
	@command -v dot >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null)

# The JavaScript lessons' packages, exactly as package-lock.json pins them (npm ci), where node and npm are
# installed and the lock changed since the last install; without them `make run` still serves the Python
# lessons, and a JavaScript lesson's page names what to install.
js-lessons:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
	  echo "node or npm is not installed, so the JavaScript lessons will not run: apt-get install nodejs npm, then make run again"; \
	elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
	    || [ package.json -nt node_modules/.package-lock.json ]; then \
	  npm ci --no-audit --no-fund --prefer-offline \
	    || echo "npm ci failed (above), so the JavaScript lessons will not run: run npm ci here once it can, then reload the lesson"; \
	fi

run: install run-deps js-lessons
	$(PY) -m debugger.cli app $(SAMPLE) --port $(PORT)

# pytest exits 5 when it collected nothing: that is a failure, never a silent pass.
test: install-test lint
	@$(PY) -m pytest -q tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests collected"; exit 1; fi; exit $$rc

# The everyday run, about 25 s on a 2-core machine (13 s of CPU): no browser, no langgraph reference,
# no process (tests/conftest.py fails a test that starts one unless it is marked slow or e2e).
# Compiled modules are cached in build/pycache even where PYTHONDONTWRITEBYTECODE is set: compiling
# every module from source again costs about 4 s of each run.
PYCACHE := $(CURDIR)/build/pycache
check: lint
	@PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(PYCACHE) $(PY) -m pytest -q -p no:cacheprovider tests \
	  -m "not e2e and not reference and not slow" --ignore=tests/e2e --ignore=tests/differential

# ruff lints (rules in pyproject.toml) and checks that the tree is formatted as `ruff format` would.
lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# After adding or rewording a sentence: extracts every message, updates both catalogs (debugger/i18n/locale)
# and compiles the .mo files the app reads; write the new Chinese in the .po, then run it again.
catalogs: install-test
	$(PY) -m debugger.i18n.build

bench: install-test
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) build *.egg-info
