"""Fail on import, naming the extra to install, when LangChain is missing (instead of a
bare ``No module named 'langchain_core'`` from deep inside a wrapper module)."""

from __future__ import annotations

try:
    import langchain_core  # noqa: F401  (the framework this package wraps)
except ImportError as exc:
    raise ModuleNotFoundError(
        "vizrag_langchain needs LangChain: pip install 'vizrag[langchain]' "
        f"({exc})", name=exc.name) from exc
