"""Import the scripts of ``benchmarks/`` and ``examples/`` in tests."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
EXAMPLES = BENCH.parent / "examples"


def bench_module(name: str) -> ModuleType:
    """The module ``benchmarks/<name>.py`` (they import each other by plain name)."""
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


def example_module(name: str) -> ModuleType:
    """``examples/<name>.py`` loaded as a fresh module (its ``main`` not run)."""
    spec = importlib.util.spec_from_file_location(f"vizrag_example_{name}",
                                                  EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
