"""A persistent answer cache for judge calls: the LLM-call cache of a VizRAG store file.

:class:`SqliteCache` keeps judge answers in the ``llm_cache`` table of a store file (a
``.sqlite`` path, created when missing; no pickle), through the same store methods that
cache extraction calls. It is a :class:`~hyperviz_core.rag.CacheBackend` (``get`` / ``put``),
so :func:`~hyperviz_core.rag.build_chat_stack` puts it in front of a judge exactly as the
store's cache sits in front of extraction calls: the keys are the same (model, system prompt,
prompt, JSON mode), and a repeated ``vizrag eval judge`` run makes zero provider calls.

Example:
    >>> import tempfile, pathlib
    >>> from hyperviz_core.eval.cache import SqliteCache
    >>> with tempfile.TemporaryDirectory() as d:
    ...     cache = SqliteCache(pathlib.Path(d) / "judge.sqlite")
    ...     cache.put("k", "{}", model="m")
    ...     (cache.get("k"), cache.get("other"), len(cache))
    ...     cache.close()
    ('{}', None, 1)
"""

from __future__ import annotations

from pathlib import Path

from ..rag.store import StoreError, open_store

__all__ = ["SqliteCache"]


class SqliteCache:
    """Key → answer cache in one store file (parents created; thread-safe like the store)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.suffix.lower() not in (".sqlite", ".sqlite3", ".db"):
            self.path = self.path.with_suffix(".sqlite")
        try:
            self._store = open_store(self.path, read_only=False)
        except (OSError, StoreError) as exc:
            raise ValueError(f"cannot open the judge cache {self.path}: {exc}") from None

    def get(self, key: str) -> str | None:
        """The cached answer of ``key``, or None."""
        return self._store.cache_get(key)

    def put(self, key: str, value: str, model: str) -> None:
        """Remember an answer (committed at once)."""
        self._store.cache_put(key, value, model=model)

    def __len__(self) -> int:
        return self._store.cache_size()

    def close(self) -> None:
        """Close the file."""
        self._store.close()
