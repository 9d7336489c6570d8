"""An async service cancels work (a request timed out, a client went away): a cancelled
``ainsert`` starts no model call and writes no document after it has returned, and a
cancelled query ends each stage it started with an ``error`` event (the LlamaIndex spans
close), as ``aquery_many`` cancels the other questions when one fails."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.extract import HeuristicExtractor
from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document


class SlowExtractor:
    """An extractor that takes 0.3 s a chunk (an LLM's latency), counting its calls."""

    def __init__(self) -> None:
        self.inner = HeuristicExtractor()
        self.started = self.finished = self.cancelled = 0

    def extract(self, chunk: Chunk) -> ChunkExtraction:
        return self.inner.extract(chunk)

    async def aextract(self, chunk: Chunk) -> ChunkExtraction:
        self.started += 1
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        self.finished += 1
        return self.inner.extract(chunk)


def _docs(n: int) -> list[Document]:
    return [Document(id=f"n{i}", title=f"Quuxland {i}",
                     text=f"Quuxland {i} is a country whose capital is Blorp{i}.")
            for i in range(n)]


def test_a_cancelled_ainsert_leaves_nothing_running(tmp_path: Path) -> None:
    async def run() -> tuple[int, int, int, int, Any]:
        ex = SlowExtractor()
        with VizRAG(tmp_path / "s", extractor=ex, show_progress=False, concurrency=4) as rag:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(rag.ainsert(_docs(40)), 0.1)
            at_timeout = (ex.started, rag.stats().documents)
            await asyncio.sleep(0.8)  # the service goes on
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            return (*at_timeout, ex.started, rag.stats().documents, others)

    started, stored, started_later, stored_later, others = asyncio.run(run())
    assert started > 0 and (started_later, stored_later) == (started, stored)
    assert others == []
