# VizRAG — the two commands of the README:
#   make demo   set everything up, then run the offline demo
#   make test   set everything up, then run lint, type checks and the whole test suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HASH   := $(shell cat pyproject.toml | sha1sum | cut -c1-12)
CORE   := $(VENV)/.installed-core-$(HASH)
STAMP  := $(VENV)/.installed-$(HASH)

.PHONY: demo test setup setup-core system-deps browser-deps ocr-deps lint typecheck pytest clean

# the demo needs the core only (no frameworks, torch, PostgreSQL or browsers)
demo: setup-core
	$(PY) examples/demo.py --out out/demo

test: setup browser-deps ocr-deps lint typecheck pytest

setup-core: system-deps $(CORE)

setup: system-deps $(STAMP)

$(CORE):
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	@touch $(CORE)

$(STAMP):
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP) $(CORE)

system-deps:
	@bash scripts/ensure_system_deps.sh graphviz
	@bash scripts/ensure_system_deps.sh cjk-font
	@bash scripts/ensure_system_deps.sh urdu-font

browser-deps:
	@bash scripts/ensure_system_deps.sh chromium

ocr-deps:
	@bash scripts/ensure_system_deps.sh tesseract
	@bash scripts/ensure_system_deps.sh jbig2dec

lint:
	$(VENV)/bin/ruff check .

typecheck:
	$(VENV)/bin/mypy hyperviz_core vizrag_llamaindex vizrag_langchain

pytest:
	$(PY) -m pytest -q -p no:cacheprovider

clean:
	rm -rf $(VENV) out build *.egg-info
