"""Deleting from async code: ``VizRAG.adelete`` / ``adelete_many`` (a mixin of the engine).

A delete is a store transaction (and, for a document that supported many facts, some
seconds of rewriting merged entities): run in a worker thread, it leaves the event loop
free for the requests that do not wait on the store.

Example::

    await rag.adelete_many(["old-1", "old-2"])   # one transaction, as delete_many
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol

__all__ = ["AsyncDeletes"]


class _Deletes(Protocol):
    def delete(self, doc_id: str) -> dict[str, int]: ...
    def delete_many(self, doc_ids: Iterable[str]) -> dict[str, int]: ...


class AsyncDeletes:
    """``adelete`` and ``adelete_many``: :meth:`delete` / :meth:`delete_many` in a worker
    thread (same checks, counts and transaction)."""

    async def adelete(self: _Deletes, doc_id: str) -> dict[str, int]:
        """Async :meth:`delete`."""
        return await asyncio.to_thread(self.delete, doc_id)

    async def adelete_many(self: _Deletes, doc_ids: Iterable[str]) -> dict[str, int]:
        """Async :meth:`delete_many` (``doc_ids`` is read before the thread starts)."""
        ids = doc_ids if isinstance(doc_ids, str) else list(doc_ids)  # str: refused there
        return await asyncio.to_thread(self.delete_many, ids)
