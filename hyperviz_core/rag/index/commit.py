"""Group commit: documents finished at about the same time are written in one transaction.

Each finished document hands its write to :meth:`GroupCommit.write` and awaits its own
:class:`~hyperviz_core.rag.store.DocumentWrite`. One writer at a time runs
:meth:`~hyperviz_core.rag.store.StoreProtocol.add_documents` in a worker thread on
everything queued so far (at most ``max_documents``), so while one batch is written the next
one gathers; a lone document is written at once, nothing waits for a batch to fill. A
batch that fails is retried document by document, so one bad document fails alone, as it
would have without batching; unless ``fatal`` says the failure is the store's (a full disk,
a lock held past the wait: :func:`~.failures.store_wide_error`): then the batch and every
later write fail at once with it (:attr:`GroupCommit.broken`), nothing is retried.

Cancelling the task that runs a batch (``asyncio.wait_for`` around ``ainsert``, a cancelled
task group) stops it at the next transaction boundary: the worker thread cannot be
interrupted, so a transaction already being written is committed, but none after it (a
batch still waiting for a worker thread writes nothing; a batch of several transactions,
:func:`~hyperviz_core.rag.store.batch.split_repeats`, stops after the current one). The
documents of the batch are cancelled (their ``write`` raises ``CancelledError``), committed
or not; what was committed stays, whole (every transaction is one or more whole documents).

Example:
    >>> import asyncio, tempfile
    >>> from hyperviz_core.rag.store import DocumentInput, open_store
    >>> from hyperviz_core.rag.types import Chunk, Document
    >>> store = open_store(tempfile.mkdtemp())
    >>> group = GroupCommit(store)
    >>> def item(i):
    ...     return DocumentInput(doc=Document(id=f"d{i}", text="t"),
    ...                          chunks=[Chunk(id=f"c{i}", doc_id=f"d{i}", text="t")])
    >>> async def main():
    ...     return await asyncio.gather(*(group.write(item(i)) for i in range(3)))
    >>> [w.status for w in asyncio.run(main())], group.transactions
    (['added', 'added', 'added'], 2)
    >>> store.close()
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from ..store import BatchWrite, DocumentInput, DocumentWrite, StoreProtocol, SummarizeFn
from ..store.batch import split_repeats

__all__ = ["GroupCommit"]


class GroupCommit:
    """Batch the document writes of concurrent tasks (see the module doc).

    Args:
        store: where to write.
        embedder: embeds changed items without precomputed vectors.
        summarize: shortens long merged descriptions.
        max_documents: the most documents written in one transaction.
        fatal: whether a failed write's error is the store's (no retry, no later write).
    """

    def __init__(self, store: StoreProtocol, *, embedder: Any = None,
                 summarize: SummarizeFn | None = None, max_documents: int = 64,
                 fatal: Callable[[Exception], bool] | None = None) -> None:
        if max_documents < 1:
            raise ValueError(f"max_documents must be >= 1, got {max_documents}")
        self.store = store
        self.embedder = embedder
        self.summarize = summarize
        self.max_documents = max_documents
        self.fatal = fatal
        #: the store's failure (``fatal``) that fails every write from then on
        self.broken: Exception | None = None
        #: transactions committed so far
        self.transactions = 0
        self._pending: list[tuple[DocumentInput, asyncio.Future[DocumentWrite]]] = []
        self._lock = asyncio.Lock()

    async def write(self, item: DocumentInput) -> DocumentWrite:
        """Queue one document and return its outcome once its batch is committed."""
        future: asyncio.Future[DocumentWrite] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        while not future.done():
            async with self._lock:
                if future.done():
                    break
                batch = self._pending[: self.max_documents]
                del self._pending[: len(batch)]
                await self._commit(batch)
        return future.result()

    async def _commit(self, batch: list[tuple[DocumentInput, asyncio.Future[DocumentWrite]]]
                      ) -> None:
        if self.broken is not None:  # the store failed: do not wait for it again
            for _, future in batch:
                future.set_exception(self.broken)
            return
        cancel = threading.Event()
        try:
            result = await asyncio.to_thread(self._add, [i for i, _ in batch], cancel)
        except asyncio.CancelledError:
            cancel.set()  # the worker commits no further transaction of this batch
            for _, future in batch:
                future.cancel()
            raise
        except Exception as exc:
            if self.fatal is not None and self.fatal(exc):
                self.broken = exc
                for _, future in batch:
                    future.set_exception(exc)
                return
            if len(batch) == 1:
                batch[0][1].set_exception(exc)
                return
            for one in batch:  # isolate the failing document(s)
                await self._commit([one])
            return
        self.transactions += result.transactions
        for (_, future), written in zip(batch, result.writes, strict=True):
            future.set_result(written)

    def _add(self, items: list[DocumentInput], cancel: threading.Event) -> BatchWrite:
        """``add_documents`` of ``items`` in a worker thread, one transaction (a part
        without a repeated id) at a time, none once ``cancel`` is set."""
        out = BatchWrite()
        for part in split_repeats(items):
            if cancel.is_set():
                break
            written = self.store.add_documents(part, embedder=self.embedder,
                                               summarize=self.summarize)
            out.writes.extend(written.writes)
            out.embedded += written.embedded
            out.transactions += written.transactions
        return out
