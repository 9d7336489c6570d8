# VizRAG — the two commands of the README:
#   make demo   set everything up, then run the offline demo
#   make test   set everything up, then run lint, type checks and the whole test suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: demo test setup system-deps browser-deps lint typecheck pytest clean

demo: setup
	$(PY) examples/demo.py --out out/demo

test: setup browser-deps lint typecheck pytest

setup: system-deps $(STAMP)

$(STAMP):
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP)

system-deps:
	@bash scripts/ensure_system_deps.sh graphviz
	@bash scripts/ensure_system_deps.sh cjk-font

browser-deps:
	@bash scripts/ensure_system_deps.sh chromium

lint:
	$(VENV)/bin/ruff check .

typecheck:
	$(VENV)/bin/mypy hyperviz_core

pytest:
	$(PY) -m pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) out build *.egg-info
