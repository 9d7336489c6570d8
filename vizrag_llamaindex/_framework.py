"""Fail on import, naming the extra to install, when LlamaIndex is missing (instead of a
bare ``No module named 'llama_index'`` from deep inside a wrapper module)."""

from __future__ import annotations

try:
    import llama_index.core  # noqa: F401  (the framework this package wraps)
except ImportError as exc:
    raise ModuleNotFoundError(
        "vizrag_llamaindex needs LlamaIndex: pip install 'vizrag[llamaindex]' "
        f"({exc})", name=exc.name) from exc
