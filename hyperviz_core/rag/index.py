"""Vision-aware bottom-up indexing (paper §4.1): documents → two-layer hypergraph store.

Per chunk: bottom-layer extraction (entities + n-ary relation hyperedges), an optional
rendering I_Di of the chunk hypergraph (only when a vision theme extractor consumes it), then
the top layer (theme + key entities; the theme becomes a theme hyperedge over the key
entities). Each document is written to the :class:`HypergraphStore` in one transaction with
its chunk/entity/hyperedge/theme embeddings, so an interrupted run resumes where it stopped.

Offline by default (heuristic extractors + hashed embeddings, no network). Give ``chat=`` to
use an LLM: it is wrapped in retry, persistent-cache (in the store) and usage middleware.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.types import Document
    >>> ix = Indexer(tempfile.mkdtemp(), show_progress=False)
    >>> rep = ix.index([Document(id="d1", text="Marie Curie worked with Pierre Curie in Paris.")])
    >>> rep.documents_added, rep.store.documents, rep.llm_calls
    (1, 1, 0)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from ..model import Entity, Hypergraph
from .chunking import chunk_document
from .models import ChatModel, Embedder
from .store import HypergraphStore, StoreStats
from .store_vectors import VectorsArg
from .types import Chunk, ChunkExtraction, ChunkTheme, Document

__all__ = ["IndexReport", "Indexer", "extraction_hypergraph", "run_sync"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class IndexReport(BaseModel):
    """What one indexing run did and cost."""

    documents_added: int = 0
    documents_replaced: int = 0
    documents_skipped: int = 0
    documents_failed: int = 0
    errors: list[str] = Field(default_factory=list)
    chunks: int = 0
    entities: int = 0
    hyperedges: int = 0
    themes: int = 0
    skipped_records: int = 0
    images: int = 0
    embedded: int = 0
    llm_calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    seconds: float = 0.0
    store: StoreStats | None = None

    def summary(self) -> str:
        """One human-readable line."""
        return (
            f"{self.documents_added} added, {self.documents_replaced} replaced, "
            f"{self.documents_skipped} unchanged, {self.documents_failed} failed; "
            f"{self.chunks} chunks, {self.entities} entity mentions, {self.hyperedges} "
            f"hyperedges, {self.themes} themes; {self.llm_calls} LLM calls "
            f"({self.cache_hits} cached, {self.tokens} tokens) in {self.seconds:.1f} s"
        )


def run_sync(coro_factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    With no running loop this is ``asyncio.run``; inside one (Jupyter, LlamaIndex
    callbacks) the coroutine runs on a fresh loop in a worker thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()


def extraction_hypergraph(extraction: ChunkExtraction, title: str = "") -> Hypergraph:
    """The chunk hypergraph G_Di of one extraction (members without an entity are added)."""
    hg = Hypergraph(metadata={"chunk_id": extraction.chunk_id, "title": title})
    for ent in extraction.entities:
        hg.add_entity(ent)
    for edge in extraction.hyperedges:
        for m in edge.members:
            if m not in hg.entities:
                hg.add_entity(Entity(name=m))
        if edge.members:
            hg.add_hyperedge(edge)
    return hg


def _usage_numbers(tracker: Any) -> dict[str, float]:
    """Counters of a :class:`~hyperviz_core.rag.middleware.UsageTracker` (empty if None)."""
    if tracker is None:
        return {}
    rep = tracker.report()
    out = {k: float(getattr(rep, k)) for k in
           ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "retries")}
    if rep.cost is not None:
        out["cost"] = float(rep.cost)
    return out


class Indexer:
    """Index documents into a :class:`HypergraphStore` (two layers, vectors, LLM cache).

    Args:
        store: a store or a path (directory or ``.sqlite`` file).
        extractor: bottom-layer extractor (default: ``LLMExtractor(chat)`` when ``chat`` is
            given, else :class:`~hyperviz_core.rag.extract.HeuristicExtractor`).
        theme_extractor: top-layer extractor (default: ``LLMThemeExtractor(chat)`` or
            :class:`~hyperviz_core.rag.extract.HeuristicThemeExtractor`).
        embedder: default :class:`~hyperviz_core.rag.offline.HashingEmbedder`.
        renderer: :class:`~hyperviz_core.render.HyperViz` for the chunk images I_Di.
        index_visualization: send I_Di to the theme extractor (False = the paper's
            w/o-visualization ablation: same calls, no image).
        concurrency: maximum concurrent model calls (and renders).
        show_progress: tqdm progress bar over documents.
        chat: a :class:`ChatModel`; wrapped in retry + store cache + usage middleware.
        render_images: force (True) or forbid (False) chunk renders; default renders only
            when ``index_visualization`` and the theme extractor consumes images.
        summarize_descriptions: let the LLM shorten merged entity descriptions longer than
            ``summary_threshold`` characters (needs ``chat``).
        cache: cache LLM answers in the store (re-runs and resumed runs cost 0 calls).
        max_retries: retries of retryable provider errors (429, 5xx, timeouts).
        prompt_price, completion_price: optional prices per 1,000 tokens for
            :attr:`IndexReport.cost_usd`.
    """

    def __init__(
        self,
        store: HypergraphStore | str | Path,
        extractor: Any = None,
        theme_extractor: Any = None,
        embedder: Embedder | None = None,
        renderer: Any = None,
        index_visualization: bool = True,
        concurrency: int = 8,
        show_progress: bool = True,
        *,
        chat: ChatModel | None = None,
        chunk_size: int = 1200,
        chunk_overlap: int = 100,
        chunk_unit: Literal["char", "token"] = "char",
        render_images: bool | None = None,
        summarize_descriptions: bool = False,
        summary_threshold: int = 4000,
        cache: bool = True,
        max_retries: int = 5,
        prompt_price: float | None = None,
        completion_price: float | None = None,
    ) -> None:
        from .extract import (
            HeuristicExtractor,
            HeuristicThemeExtractor,
            LLMExtractor,
            LLMThemeExtractor,
        )
        from .offline import HashingEmbedder

        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        self.store = store if isinstance(store, HypergraphStore) else HypergraphStore(store)
        self.store.summary_threshold = summary_threshold
        self.usage: Any = None
        self.chat: ChatModel | None = None
        if chat is not None:
            self.chat = self._wrap_chat(chat, cache=cache, max_retries=max_retries,
                                        prices=(prompt_price, completion_price))
        if extractor is None:
            extractor = LLMExtractor(self.chat) if self.chat else HeuristicExtractor()
        if theme_extractor is None:
            theme_extractor = (LLMThemeExtractor(self.chat) if self.chat
                               else HeuristicThemeExtractor())
        self.extractor = extractor
        self.theme_extractor = theme_extractor
        self.embedder: Embedder = embedder or HashingEmbedder()
        self._embedder_checked = False
        self.index_visualization = index_visualization
        wants = getattr(theme_extractor, "wants_image", None)
        if wants is None:
            wants = isinstance(theme_extractor, LLMThemeExtractor)
        self.render_images = (bool(wants) and index_visualization) if render_images is None \
            else render_images
        self._renderer = renderer
        self.concurrency = concurrency
        self.show_progress = show_progress
        self.chunk_size, self.chunk_overlap, self.chunk_unit = chunk_size, chunk_overlap, chunk_unit
        self._summarizer: Any = None
        if summarize_descriptions:
            if self.chat is None:
                raise ValueError("summarize_descriptions needs a chat model (chat=...)")
            from .extract import LLMDescriptionSummarizer

            self._summarizer = LLMDescriptionSummarizer(self.chat)

    # ------------------------------------------------------------------ setup
    def _wrap_chat(
        self,
        chat: ChatModel,
        *,
        cache: bool,
        max_retries: int,
        prices: tuple[float | None, float | None],
    ) -> ChatModel:
        """Caching (in the store) → Retrying → Tracking → ``chat``."""
        from .middleware import StoreCacheBackend, UsageTracker, build_chat_stack

        self.usage = UsageTracker(prompt_price=prices[0], completion_price=prices[1])
        return build_chat_stack(
            chat, cache=StoreCacheBackend(self.store) if cache else None, tracker=self.usage,
            max_retries=max_retries,
        )

    @property
    def renderer(self) -> Any:
        """The HyperViz renderer (created on first use)."""
        if self._renderer is None:
            from ..render import HyperViz

            self._renderer = HyperViz()
        return self._renderer

    def _summarize(self, name: str, description: str) -> str:
        out: str = self._summarizer.summarize(name, description.splitlines())
        return out

    # ------------------------------------------------------------------ public
    def index(self, documents: Iterable[Document]) -> IndexReport:
        """Index documents (sync; safe inside a running event loop)."""
        docs = list(documents)
        return run_sync(lambda: self.aindex(docs))

    def delete(self, doc_id: str) -> dict[str, int]:
        """Delete a document; shared entities are rebuilt and re-embedded."""
        summarize = self._summarize if self._summarizer is not None else None
        return self.store.delete_document(doc_id, embedder=self.embedder, summarize=summarize)

    async def aindex(self, documents: Iterable[Document]) -> IndexReport:
        """Index documents concurrently; each document is committed as soon as it is done."""
        from tqdm.auto import tqdm

        t0 = time.perf_counter()
        docs = _dedupe(list(documents))
        if docs and not self._embedder_checked:  # fail fast on a dimension mismatch
            self.store.check_embedder(self.embedder.name, self.embedder.dim)
            self._embedder_checked = True
        report = IndexReport()
        before = _usage_numbers(self.usage)
        sem = asyncio.Semaphore(self.concurrency)
        doc_slots = asyncio.Semaphore(max(2, 2 * self.concurrency))
        write_lock = asyncio.Lock()
        bar = tqdm(total=len(docs), desc="indexing", unit="doc", disable=not self.show_progress)

        async def one(doc: Document) -> None:
            async with doc_slots:
                try:
                    await self._index_document(doc, sem, write_lock, report)
                except Exception as exc:  # a failed document must not stop the others
                    report.documents_failed += 1
                    report.errors.append(f"{doc.id}: {type(exc).__name__}: {exc}")
                    log.warning("indexing %s failed: %s", doc.id, exc)
                finally:
                    bar.update(1)

        try:
            await asyncio.gather(*(one(d) for d in docs))
        finally:
            bar.close()
        after = _usage_numbers(self.usage)
        delta = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
        report.llm_calls = int(delta.get("calls", 0))
        report.cache_hits = int(delta.get("cache_hits", 0))
        report.prompt_tokens = int(delta.get("prompt_tokens", 0))
        report.completion_tokens = int(delta.get("completion_tokens", 0))
        report.tokens = report.prompt_tokens + report.completion_tokens
        report.retries = int(delta.get("retries", 0))
        if "cost" in delta:
            report.cost_usd = round(delta["cost"], 6)
        report.seconds = round(time.perf_counter() - t0, 3)
        report.store = self.store.stats()
        return report

    # ------------------------------------------------------------------ pipeline
    async def _index_document(
        self,
        doc: Document,
        sem: asyncio.Semaphore,
        write_lock: asyncio.Lock,
        report: IndexReport,
    ) -> None:
        if self.store.document_hash(doc.id) == doc.hash:
            report.documents_skipped += 1
            return
        chunks = chunk_document(doc, self.chunk_size, self.chunk_overlap, self.chunk_unit)
        results = await asyncio.gather(*(self._index_chunk(c, sem) for c in chunks))
        extractions = [r[0] for r in results]
        themes = [r[1] for r in results]
        chunk_vecs = await self.embedder.aembed([_chunk_embed_text(c) for c in chunks]) \
            if chunks else None
        vectors: VectorsArg | None = None
        if chunk_vecs is not None:
            vectors = {"chunk": ([c.id for c in chunks], chunk_vecs)}
        summarize = self._summarize if self._summarizer is not None else None
        async with write_lock:
            written = await asyncio.to_thread(
                self.store.add_document, doc, chunks, extractions, themes, vectors,
                embedder=self.embedder, summarize=summarize,
            )
        if written.status == "skipped":
            report.documents_skipped += 1
            return
        if written.status == "replaced":
            report.documents_replaced += 1
        else:
            report.documents_added += 1
        report.chunks += len(chunks)
        report.entities += sum(len(e.entities) for e in extractions)
        report.hyperedges += sum(len(e.hyperedges) for e in extractions)
        report.skipped_records += sum(e.skipped for e in extractions)
        report.themes += sum(1 for t in themes if t.theme)
        report.images += sum(1 for r in results if r[2])
        report.embedded += written.embedded

    async def _index_chunk(
        self, chunk: Chunk, sem: asyncio.Semaphore
    ) -> tuple[ChunkExtraction, ChunkTheme, bool]:
        async with sem:
            extraction = await self.extractor.aextract(chunk)
        extraction = _clean_extraction(extraction, chunk.id)
        image: bytes | None = None
        if self.render_images:
            async with sem:
                image = await self._render(chunk, extraction)
        async with sem:
            theme = await self.theme_extractor.atheme(
                chunk, extraction, image if self.index_visualization else None
            )
        if theme.chunk_id != chunk.id:
            theme = theme.model_copy(update={"chunk_id": chunk.id})
        return extraction, theme, image is not None

    async def _render(self, chunk: Chunk, extraction: ChunkExtraction) -> bytes:
        hg = extraction_hypergraph(extraction, str(chunk.metadata.get("title", "")))
        rendering = await self.renderer.arender(hg, chunk_texts={chunk.id: chunk.text})
        png: bytes = rendering.png
        return png


def _chunk_embed_text(chunk: Chunk) -> str:
    title = str(chunk.metadata.get("title", "") or "")
    return f"{title}\n{chunk.text}" if title else chunk.text


def _clean_extraction(ex: ChunkExtraction, chunk_id: str) -> ChunkExtraction:
    """Force the extraction onto its chunk's id."""
    if ex.chunk_id != chunk_id:
        ex = ex.model_copy(update={"chunk_id": chunk_id})
    return ex


def _dedupe(docs: Sequence[Document]) -> list[Document]:
    """Keep the last version of each document id (later input wins), in input order."""
    last: dict[str, Document] = {}
    for d in docs:
        last[d.id] = d
    seen: set[str] = set()
    out = []
    for d in docs:
        if d.id not in seen and last[d.id] is d:
            out.append(d)
            seen.add(d.id)
    return out

