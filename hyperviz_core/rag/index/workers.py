"""Offline extraction in worker processes: the heuristic extractors on every core.

The offline :class:`~hyperviz_core.rag.HeuristicExtractor` and
:class:`~hyperviz_core.rag.HeuristicThemeExtractor` are pure Python and CPU-bound: in one
process, extraction takes most of an offline ``vizrag index`` while the store's writes
wait for it. :class:`ExtractionPool` runs both for a document's chunks in worker
processes (``spawn``: safe beside the indexer's threads), while the parent process embeds
and writes. Each worker receives the extractors once, when it starts; a document's chunks
go out and their extractions and themes come back in order, so the store ends exactly as
with one process (tested).

Only extractors that say they can run elsewhere take part (``process_safe = True``: no
model client, no shared state); an LLM extractor is I/O-bound and already concurrent.

Ctrl-C is the parent's alone: a worker is started with SIGINT blocked (a child inherits the
signal mask, so even its start-up cannot be interrupted) and then ignores it, so it prints no
traceback and never hands a ``KeyboardInterrupt`` back as a result; the interrupted parent
shuts the pool down (:meth:`ExtractionPool.close`: the running extractions end, the queued
ones are dropped) and reports the interruption once.

Example:
    >>> from hyperviz_core.rag import Chunk, HeuristicExtractor, HeuristicThemeExtractor
    >>> pool = ExtractionPool(HeuristicExtractor(), HeuristicThemeExtractor(), workers=1)
    >>> ex, theme = pool.run([Chunk(id="c", doc_id="d", text="Marie Curie met Pierre Curie.",
    ...                             index=0, start=0, end=29)])[0]
    >>> sorted(e.name for e in ex.entities), theme.chunk_id
    (['Marie Curie', 'Pierre Curie'], 'c')
    >>> pool.close()
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Sequence
from concurrent.futures import InvalidStateError, ProcessPoolExecutor
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any

from ..providers.protocols import PassThrough
from ..types import Chunk, ChunkExtraction, ChunkTheme

__all__ = ["ExtractionPool", "auto_workers", "clean_extraction", "clean_theme",
           "extract_chunks", "process_safe"]

_EXTRACTORS: tuple[Any, Any] | None = None  # set in each worker by _start


def clean_extraction(ex: ChunkExtraction, chunk_id: str,
                     extractor: object = None) -> ChunkExtraction:
    """Force the extraction onto its chunk's id; anything but a :class:`ChunkExtraction`
    (a custom ``extractor``'s ``dict`` or ``None``) is a ``TypeError`` naming its class."""
    if not isinstance(ex, ChunkExtraction):
        inner = extractor.inner if isinstance(extractor, PassThrough) else extractor
        name = type(inner).__name__  # not the engine's sync-only wrapper's
        raise TypeError(f"extractor {name} returned {type(ex).__name__}, not a ChunkExtraction:"
                        " return hyperviz_core.rag.ChunkExtraction(chunk_id=chunk.id, "
                        "entities=[...], hyperedges=[...])")
    if ex.chunk_id != chunk_id:
        ex = ex.model_copy(update={"chunk_id": chunk_id})
    return ex


def clean_theme(theme: ChunkTheme, chunk_id: str) -> ChunkTheme:
    """Force the theme onto its chunk's id."""
    if theme.chunk_id != chunk_id:
        theme = theme.model_copy(update={"chunk_id": chunk_id})
    return theme


def extract_chunks(extractor: Any, themes: Any, chunks: Sequence[Chunk]
                   ) -> list[tuple[ChunkExtraction, ChunkTheme]]:
    """Extraction and theme of each chunk, in order (what the indexer does per chunk)."""
    out = []
    for chunk in chunks:
        ex = clean_extraction(extractor.extract(chunk), chunk.id, extractor)
        out.append((ex, clean_theme(themes.theme(chunk, ex), chunk.id)))
    return out


def _start(extractor: Any, themes: Any) -> None:
    global _EXTRACTORS
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _exit_with_parent()
    _EXTRACTORS = (extractor, themes)


def _exit_with_parent() -> None:
    """End this worker once its parent is gone: a parent killed with SIGKILL never shuts
    the pool down, and its workers would otherwise wait for work forever (adopted by
    init), one set more after each crash and re-run. The parent's sentinel is a pipe the
    parent held from before this process started, so a parent that died while this worker
    was still importing is seen too."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not a spawned child (a test calling the initializer)
        return

    def watch() -> None:  # the sentinel, or (a child the parent forked holds the pipe
        # open too) the parent's pid no longer being ours
        while (not multiprocessing.connection.wait([parent.sentinel], timeout=0.5)
               and os.getppid() == parent.pid):
            pass
        os._exit(0)

    threading.Thread(target=watch, name="vizrag-parent-watch", daemon=True).start()


class _QuietProcess(SpawnProcess):
    """A spawned worker that cannot see Ctrl-C from its first instruction on: SIGINT is
    blocked in the starting thread while the child is created (the child inherits the mask
    through ``exec``; a Ctrl-C meanwhile stays pending for the parent, it is not lost)."""

    def start(self) -> None:
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no signal masks
            super().start()
            return
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _QuietSpawn(SpawnContext):
    """The ``spawn`` context, starting :class:`_QuietProcess` workers."""

    Process = _QuietProcess


def _work(chunks: list[Chunk]) -> list[tuple[ChunkExtraction, ChunkTheme]]:
    assert _EXTRACTORS is not None, "worker started without extractors"
    return extract_chunks(*_EXTRACTORS, chunks)


def process_safe(*extractors: Any) -> bool:
    """Whether every extractor may run in another process (``process_safe = True``)."""
    return all(getattr(e, "process_safe", False) is True for e in extractors)


def auto_workers(total_bytes: int | None, *, min_bytes: int = 1 << 20) -> int:
    """Extraction processes worth starting for an input of ``total_bytes``: one per core
    but the one the indexing process needs to embed and write, from ``min_bytes`` on
    (starting a worker costs about half a second), else none (``0``).

    Measured on 2 cores, 2 MB of the scale benchmark's text: in one process 13.5 s; with
    one extraction process 9.0 s; with two (three processes on two cores) 10.2 s.
    """
    cores = os.cpu_count() or 1
    if total_bytes is None or total_bytes < min_bytes or cores < 2:
        return 0
    return min(cores - 1, 8)


def _quiet_broken_pool(args: threading.ExceptHookArgs) -> None:
    """``threading.excepthook`` that drops one traceback: the ``InvalidStateError`` a
    process pool's manager thread raises when the pool breaks (its workers killed with the
    whole process group, SIGTERM to a service) while a future is cancelled already — a race
    in ``concurrent.futures``, harmless, whose 10-line traceback buried the one line that
    says what the run kept. Anything else goes to the hook installed before."""
    if (isinstance(args.exc_value, InvalidStateError)
            and type(args.thread).__name__ == "_ExecutorManagerThread"):
        return
    _EXCEPTHOOK(args)


_EXCEPTHOOK = threading.excepthook


class ExtractionPool:
    """``workers`` processes running :func:`extract_chunks` with the given extractors."""

    def __init__(self, extractor: Any, themes: Any, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if threading.excepthook is _EXCEPTHOOK:
            threading.excepthook = _quiet_broken_pool
        self.workers = workers
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=_QuietSpawn(),
            initializer=_start, initargs=(extractor, themes))

    def run(self, chunks: Sequence[Chunk]) -> list[tuple[ChunkExtraction, ChunkTheme]]:
        """Extract ``chunks`` in a worker (blocking)."""
        return self._pool.submit(_work, list(chunks)).result()

    async def arun(self, chunks: Sequence[Chunk]) -> list[tuple[ChunkExtraction, ChunkTheme]]:
        """Extract ``chunks`` in a worker without blocking the event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _work, list(chunks))

    def close(self) -> None:
        """Stop the workers (waits for the running extractions, drops the queued ones)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
