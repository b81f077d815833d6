# Two entry points: `make demo` (the main job, no key, no servers) and `make test` (everything).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PHOENIX_VENV := .venv-phoenix

.PHONY: demo test lint setup setup-dev setup-servers

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

# Arize Phoenix pins anthropic<2, so it lives in a virtual environment of its own.
$(PHOENIX_VENV)/.installed:
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install -q --upgrade pip
	$(PHOENIX_VENV)/bin/python -m pip install -q arize-phoenix
	touch $@

setup: $(VENV)/.installed
setup-dev: $(VENV)/.installed-dev

setup-servers: $(PHOENIX_VENV)/.installed
	@command -v prometheus >/dev/null 2>&1 || { \
	  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus) >/dev/null \
	  || { echo "could not install Debian's prometheus package" >&2; exit 1; }; }

demo: setup
	$(VENV)/bin/gsar demo

test: setup-dev setup-servers
	GSAR_PHOENIX_PYTHON=$(abspath $(PHOENIX_VENV))/bin/python \
	$(PY) -m pytest $(PYTEST_ARGS)

lint: setup-dev
	$(VENV)/bin/ruff check gsar_otel pytest_gsar
	$(VENV)/bin/mypy gsar_otel pytest_gsar
