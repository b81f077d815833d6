# Two entry points: `make demo` (the main job, no key, no servers) and `make test` (every test
# but the cost ones). `make test-cost` runs the cost, soak and benchmark tests (the `cost` marker:
# counted work, linear cost, pathological input, the benchmarks run); CI runs both targets.
# `make test-random` runs every test with fresh hypothesis examples (CI runs derandomized,
# CI=true); it prints the seed first, and `make test-random SEED=N` runs the same examples again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PHOENIX_VENV := .venv-phoenix
DIST_VENV := .venv-dist

.PHONY: demo test test-cost test-random lint setup setup-dev setup-servers framework-venvs docs dist-check

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

# The framework conformance suite's venvs (tests/conformance/requirements/*.txt), cached outside
# the checkout in $$GSAR_FRAMEWORK_VENVS (default ~/.cache/gsar-otel/frameworks), one per file content.
framework-venvs:
	PYTHON=$(PYTHON) tests/conformance/venvs.sh

# Debian's prometheus package ships both the server (tests/dashboards e2e) and promtool (the
# alerting rules' unit tests, tests/dashboards/test_alert_rules.py).
setup-servers: $(PHOENIX_VENV)/.installed
	@{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || { \
	  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus) >/dev/null \
	  || { echo "could not install Debian's prometheus package" >&2; exit 1; }; }

demo: setup
	$(VENV)/bin/gsar demo

test: setup-dev setup-servers framework-venvs
	GSAR_PHOENIX_PYTHON=$(abspath $(PHOENIX_VENV))/bin/python \
	$(PY) -m pytest -m "not cost" $(PYTEST_ARGS)

# The cost tests need no servers: they count work (or run the benchmarks) on this machine.
test-cost: setup-dev
	$(PY) -m pytest -m cost $(PYTEST_ARGS)

test-random: setup-dev setup-servers framework-venvs
	@seed="$(SEED)"; \
	[ -n "$$seed" ] || seed=$$($(PY) -c 'import random; print(random.randrange(2**32))'); \
	echo "hypothesis seed $$seed (run these examples again: make test-random SEED=$$seed)"; \
	GSAR_PHOENIX_PYTHON=$(abspath $(PHOENIX_VENV))/bin/python \
	$(PY) -m pytest --hypothesis-profile=random --hypothesis-seed=$$seed $(PYTEST_ARGS) \
	|| { status=$$?; echo "failed with hypothesis seed $$seed: make test-random SEED=$$seed"; \
	     exit $$status; }

lint: setup-dev
	$(VENV)/bin/ruff check gsar_otel pytest_gsar
	$(VENV)/bin/mypy gsar_otel pytest_gsar

# The documentation site (mkdocs.yml): a broken link, a page missing from the navigation or a
# docstring the API reference cannot read fails the build. The site goes to site/.
$(VENV)/.installed-docs: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[docs]'
	touch $@

docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# What a user installs: the sdist and the wheel built from it, checked by twine, the wheel
# installed (with the pytest extra) into a fresh virtual environment outside the checkout's
# import path, then `gsar demo` and the plugin's options run from it.
$(VENV)/.installed-dist: $(VENV)/.installed
	$(PY) -m pip install -q build==1.6.1 twine==7.0.0
	touch $@

dist-check: $(VENV)/.installed-dist
	rm -rf dist $(DIST_VENV)
	$(PY) -m build --outdir dist . >/dev/null
	$(VENV)/bin/twine check --strict dist/*
	$(PYTHON) -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install -q --upgrade pip
	$(DIST_VENV)/bin/python -m pip install -q "$$(ls dist/*.whl)[pytest]"
	cd $(DIST_VENV) && bin/gsar --version && bin/gsar demo >/dev/null && echo "gsar demo ran from the wheel"
	cd $(DIST_VENV) && bin/python -m pytest --help | grep -q -- --gsar-judge && echo "pytest_gsar is registered"
