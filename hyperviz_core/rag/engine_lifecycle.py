"""Opening and closing an engine: ``with VizRAG(...)`` and ``async with VizRAG(...)``
(a mixin of the engine).

``close()`` closes the store if the engine opened it (one it was given stays open: its
owner closes it). ``aclose()`` does the same in a worker thread — closing a SQLite store
writes its ANN index files and folds its write-ahead log back, which should not hold up an
event loop — for an async service's shutdown (a FastAPI lifespan, an ``AsyncExitStack``).
Neither waits for nor cancels queries still running on the engine: end them first (a
query that reaches the closed store raises :class:`~.store.StoreClosedError`).

Example::

    async with VizRAG("out/store") as rag:
        result = await rag.aquery("Who discovered radium?")
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

__all__ = ["Lifecycle"]

_E = TypeVar("_E", bound="Lifecycle")


class Lifecycle:
    """``close``/``aclose`` and the sync and async context managers."""

    _owns_store: bool
    store: Any

    def close(self) -> None:
        """Close the store if this engine opened it (one it was given stays open)."""
        if self._owns_store:
            self.store.close()

    async def aclose(self) -> None:
        """:meth:`close` in a worker thread (see the module docstring)."""
        await asyncio.to_thread(self.close)

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self: _E) -> _E:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
