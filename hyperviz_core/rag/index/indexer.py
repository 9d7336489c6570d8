"""Vision-aware bottom-up indexing (paper §4.1): documents → two-layer hypergraph store.

Per chunk: bottom-layer extraction (entities + n-ary relation hyperedges), an optional
rendering I_Di of the chunk hypergraph (only when a vision theme extractor consumes it), then
the top layer (theme + key entities; the theme becomes a theme hyperedge over the key
entities). Each document is written to the :class:`HypergraphStore` in one transaction with
its chunk/entity/hyperedge/theme embeddings (documents finished together share one
transaction and one merge: :class:`~.commit.GroupCommit`), so an interrupted run resumes
where it stopped.

Documents may come from any iterable; anything but a list is streamed: only a bounded
amount of text is being indexed at any time (``max_inflight_bytes``), so a corpus of any size
(large files arrive as parts, see :mod:`.parts` and :class:`~.stream.DocumentStream`) is
indexed in bounded memory. Progress: input MB and chunks per second.

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
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from ..extract.base import extraction_hypergraph
from ..providers.offline import HashingEmbedder
from ..providers.protocols import ChatModel, Embedder, with_async
from ..providers.retry import with_retries
from ..providers.spec import matched_embedder
from ..store import DocumentInput, StoreProtocol, open_store
from ..types import Chunk, ChunkExtraction, ChunkTheme, Document
from .chunking import chunk_document
from .commit import GroupCommit
from .extractors import choose_extractors
from .failures import RunFailures, refuse_read_only, store_wide_error
from .guards import FiniteEmbedder, check_document
from .replace import SourceLedger, clean_up, stored_state
from .report import (
    IndexReport,
    busy,
    cancel_all,
    finish_report,
    first_done,
    inflight,
    known_size,
    nothing_extracted,
    progress,
    text_bytes,
    tick,
    usage_numbers,
)
from .reuse import chunk_vectors, update_in_place
from .stream import dedupe_last
from .sync import run_sync
from .workers import ExtractionPool, clean_extraction, clean_theme, process_safe

__all__ = ["IndexReport", "Indexer", "extraction_hypergraph", "run_sync"]

log = logging.getLogger(__name__)


def _embedder(given: Embedder | None, store: StoreProtocol, max_retries: int,
              usage: Any) -> Embedder:
    """The run's embedder, retried (its dim probe too): ``given``, of the store's version
    when it is the hashed one (:func:`~..providers.spec.matched_embedder`), else hashed."""
    made = matched_embedder(with_async(given), store.embedder_info()) or HashingEmbedder()
    return with_retries(made, max_retries, tracker=usage)


class Indexer:
    """Index documents into a :class:`HypergraphStore` (two layers, vectors, LLM cache).

    Args:
        store: a store or a path (directory or ``.sqlite`` file).
        extractor: bottom-layer extractor (default: ``LLMExtractor(chat)`` when ``chat`` is
            given, else :class:`~hyperviz_core.rag.extract.HeuristicExtractor`).
        theme_extractor: top-layer extractor (default: ``LLMThemeExtractor(chat)`` or
            :class:`~hyperviz_core.rag.extract.HeuristicThemeExtractor`).
        embedder: default :class:`~hyperviz_core.rag.providers.offline.HashingEmbedder`.
        renderer: :class:`~hyperviz_core.render.HyperViz` for the chunk images I_Di.
        index_visualization: send I_Di to the theme extractor (False = the paper's
            w/o-visualization ablation: same calls, no image).
        concurrency: maximum concurrent model calls (and renders).
        show_progress: tqdm progress bar over documents.
        chat: a :class:`ChatModel`; wrapped in retry + store cache + usage middleware.
        render_images: force (True) or forbid (False) chunk renders; default renders only
            when ``index_visualization`` and the theme extractor consumes images.
        summarize_descriptions: let the LLM shorten merged entity descriptions longer than
            ``summary_threshold`` characters (needs ``chat``; None: the store's own).
        cache: cache LLM answers in the store (re-runs and resumed runs cost 0 calls).
        max_retries: retries of retryable provider errors (429, 5xx, timeouts) of the chat
            model and of a provider's embedder (not the offline hashed one).
        prompt_price, completion_price: optional prices per 1,000 tokens for
            :attr:`IndexReport.cost_usd`.
        max_inflight_bytes: when streaming, at most this much document text is being
            indexed at once (a larger single document still goes through, alone).
        max_batch_documents: documents that finish while an earlier write runs are
            committed together in one transaction (:class:`~.commit.GroupCommit`), at most
            this many; 1 writes each document alone.
        workers: processes that run the offline (``process_safe``) extractors beside this
            one, which embeds and writes meanwhile (:mod:`.workers`; 0 = none). They are
            started with ``spawn``: a script using them needs the usual
            ``if __name__ == "__main__":`` guard.
        infer_titles: give an untitled long document the title its opening states in
            capitals (:mod:`.titles`); False = leave untitled documents untitled.
        prompts: the prompts of the LLM extractors made here (:class:`~..prompts.Prompts`;
            ``VizRAG(prompts=...)`` passes its own), default ones when None.
    """

    def __init__(
        self,
        store: StoreProtocol | str | Path,
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
        infer_titles: bool = True,
        render_images: bool | None = None,
        summarize_descriptions: bool = False,
        summary_threshold: int | None = None,
        cache: bool = True,
        max_retries: int = 5,
        prompt_price: float | None = None,
        completion_price: float | None = None,
        max_inflight_bytes: int = 512 * 1024,
        max_batch_documents: int = 64,
        workers: int = 0,
        prompts: Any = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if workers < 0:
            raise ValueError(f"workers must be >= 0, got {workers}")
        self.store: StoreProtocol = open_store(store)  # a path, a URL or an open store
        if summary_threshold is not None:  # else the store's own (default 4,000)
            self.store.summary_threshold = summary_threshold
        self.usage: Any = None
        self.chat: ChatModel | None = None
        if chat is not None:
            self.chat = self._wrap_chat(with_async(chat), cache=cache, max_retries=max_retries,
                                        prices=(prompt_price, completion_price))
        self._set_extractors(extractor, theme_extractor, index_visualization, render_images,
                             prompts)
        self.embedder: Embedder = _embedder(embedder, self.store, max_retries, self.usage)
        self._embedder_checked, self._renderer = False, renderer
        self.concurrency = concurrency
        #: streaming bound: text of the documents being indexed at once (one is always let in)
        self.max_inflight_bytes = max_inflight_bytes
        #: documents finished together are committed in one transaction, at most this many
        self.max_batch_documents = max_batch_documents
        self.show_progress, self.workers = show_progress, workers  # workers: see .workers
        self.chunk_size, self.chunk_overlap, self.chunk_unit = chunk_size, chunk_overlap, chunk_unit
        self.infer_titles = infer_titles
        self._summarizer: Any = None
        if summarize_descriptions:
            if self.chat is None:
                raise ValueError("summarize_descriptions needs a chat model (chat=...)")
            from ..extract.llm import LLMDescriptionSummarizer

            self._summarizer = LLMDescriptionSummarizer(self.chat)

    # ------------------------------------------------------------------ setup
    def _set_extractors(self, extractor: Any, theme_extractor: Any, index_visualization: bool,
                        render_images: bool | None, prompts: Any) -> None:
        """The extractors, whether chunks are rendered for them, and the chunk metadata they
        read (None: any), :func:`~.extractors.choose_extractors`."""
        self.index_visualization = index_visualization
        self.extractor, self.theme_extractor, self.render_images, self.metadata_keys = (
            choose_extractors(self.chat, extractor, theme_extractor, prompts=prompts,
                              index_visualization=index_visualization,
                              render_images=render_images))

    def _wrap_chat(self, chat: ChatModel, *, cache: bool, max_retries: int,
                   prices: tuple[float | None, float | None]) -> ChatModel:
        """Caching (in the store) → Retrying → Tracking → ``chat`` (replies checked to
        be text: :func:`~..providers.middleware.build_chat_stack`)."""
        from ..providers.middleware import StoreCacheBackend, UsageTracker, build_chat_stack

        self.usage = UsageTracker(prompt_price=prices[0], completion_price=prices[1])
        return build_chat_stack(  # a reply that is not text fails the document, saying so
            chat, cache=StoreCacheBackend(self.store) if cache else None,
            tracker=self.usage, max_retries=max_retries,
        )

    @property
    def renderer(self) -> Any:
        """The HyperViz renderer (created on first use)."""
        if self._renderer is None:
            from ...render import HyperViz

            self._renderer = HyperViz()
        return self._renderer

    def _summarize(self, name: str, description: str) -> str:
        out: str = self._summarizer.summarize(name, description.splitlines())
        return out

    # ------------------------------------------------------------------ public
    def index(self, documents: Iterable[Document], *,
              total_bytes: int | None = None) -> IndexReport:
        """Index documents (sync; safe inside a running event loop); ``documents``: any
        iterable (a list, a generator, a DocumentStream), consumed incrementally (aindex)."""
        return run_sync(lambda: self.aindex(documents, total_bytes=total_bytes))

    def delete(self, doc_id: str) -> dict[str, int]:
        """Delete a document; shared entities are rebuilt and re-embedded."""
        return self.delete_many([doc_id])

    def delete_many(self, doc_ids: Iterable[str]) -> dict[str, int]:
        """Delete documents in one store transaction (all, or none on an error)."""
        summarize = self._summarize if self._summarizer is not None else None
        return self.store.delete_documents(doc_ids, embedder=FiniteEmbedder(self.embedder),
                                           summarize=summarize)

    async def aindex(self, documents: Iterable[Document], *,
                     total_bytes: int | None = None) -> IndexReport:
        """Index documents concurrently; each document is committed as soon as it is done.

        A list is first reduced to one document per id (the last wins, with a warning). Any
        other iterable is *streamed*: documents are pulled only while fewer than ``2 *
        concurrency`` of them and at most :attr:`max_inflight_bytes` of text are in flight,
        and each is released once written, so memory does not grow with the input. Two documents
        with the same id are never indexed at the same time (the later one waits). The
        progress bar counts MB (of ``total_bytes`` when given) and shows chunks/s.
        """
        refuse_read_only(self.store)  # a read-only store: StoreError before any is read
        t0 = time.perf_counter()
        source: Iterable[Document] = (dedupe_last(documents) if isinstance(documents, Sequence)
                                      else documents)
        ledger = SourceLedger(getattr(documents, "source_parts", None))
        report = IndexReport()
        before = usage_numbers(self.usage)
        bar = progress(known_size(documents, total_bytes), disable=not self.show_progress)
        pool = None
        if (self.workers > 0 and not self.render_images
                and process_safe(self.extractor, self.theme_extractor)):
            pool = ExtractionPool(self.extractor, self.theme_extractor, self.workers)
        try:
            await self._pump(iter(source), report, bar, t0, pool, ledger)
        finally:
            bar.close()
            if pool is not None:
                pool.close()
        if report.stopped is None:  # a stopped run read only some of a file's parts
            report.documents_removed = await asyncio.to_thread(  # what files no longer make
                clean_up, self.store, ledger, self.delete, report.errors)
        finish_report(report, self.usage, before, t0, self.store)
        if report.stopped is not None:  # the store or the provider stopped the run
            log.warning("indexing stopped: %s", report.stopped)
        if self.chat is not None and (warning := nothing_extracted(report)) is not None:
            log.warning(warning)
        if (caseless := report.caseless_warning()) is not None:
            log.warning(caseless)
        return report

    async def _pump(self, docs: Iterator[Document], report: IndexReport, bar: Any,
                    t0: float, pool: ExtractionPool | None, ledger: SourceLedger) -> None:
        """Pull documents into a bounded set of in-flight tasks until ``docs`` runs out
        (extracted by ``pool``'s processes when given; text files noted in ``ledger``)."""
        sem = asyncio.Semaphore(self.concurrency)
        summarize = self._summarize if self._summarizer is not None else None
        path = self.store.path
        group = GroupCommit(self.store, embedder=FiniteEmbedder(self.embedder),
                            summarize=summarize, max_documents=self.max_batch_documents,
                            fatal=lambda exc: store_wide_error(exc, path) is not None)
        slots = max(2, 2 * self.concurrency)
        running: dict[asyncio.Task[None], tuple[str, int]] = {}
        limit = self.max_inflight_bytes * (1 + (pool.workers if pool else 0))  # + workers'
        failures = RunFailures(report, ledger, path)  # one failed document stops no other,
        # unless the store (a full disk, a lock) or the provider (every one) fails them all

        async def one(doc: Document) -> None:
            try:
                await self._index_document(doc, sem, group, report, pool)
            except Exception as exc:
                failures.failure(doc, exc)
            else:
                failures.success()

        def done(task: asyncio.Task[None]) -> None:
            _, size = running.pop(task)
            report.input_bytes += size
            tick(bar, size, report, t0)

        try:
            for doc in docs:
                if failures.reason is not None:
                    break
                if not self._embedder_checked:  # fail fast on a dimension mismatch
                    self.store.check_embedder(self.embedder.name, self.embedder.dim)
                    self._embedder_checked = True
                size = text_bytes(doc)
                ledger.note(doc)
                while running and (len(running) >= slots or busy(running, doc.id)
                                   or inflight(running) + size > limit):
                    for task in await first_done(running):
                        done(task)
                task = asyncio.create_task(one(doc))
                running[task] = (doc.id, size)
                del doc
            while running:
                for task in await first_done(running):
                    done(task)
        except BaseException:  # cancelled (a timeout) or failed: the documents in flight too
            failures.halted = True
            await cancel_all(running)
            raise
        report.stopped = failures.reason
        if failures.breaker.reason is not None:
            log.warning("indexing stopped: %s", failures.breaker.reason)

    # ------------------------------------------------------------------ pipeline
    async def _index_document(
        self,
        doc: Document,
        sem: asyncio.Semaphore,
        group: GroupCommit,
        report: IndexReport,
        pool: ExtractionPool | None = None,
    ) -> None:
        check_document(doc)  # a lone surrogate cannot be hashed nor stored: this one fails
        state = stored_state(self.store, doc)  # or a SourceConflictError: another file's id
        if state == "unchanged":
            report.documents_skipped += 1
            return
        chunks = chunk_document(doc, self.chunk_size, self.chunk_overlap, self.chunk_unit,
                                infer_titles=self.infer_titles)
        if state == "changed" and await update_in_place(self.store, doc, chunks,
                                                        self.metadata_keys):
            report.count_metadata_update()  # only its metadata changed: nothing to extract
            return
        if pool is not None and chunks:  # offline extraction in a worker process
            pairs = await pool.arun(chunks)
            results: list[tuple[ChunkExtraction, ChunkTheme, bool]] = [
                (ex, theme, False) for ex, theme in pairs]
        else:
            results = list(await asyncio.gather(*(self._index_chunk(c, sem) for c in chunks)))
        extractions = [r[0] for r in results]
        themes = [r[1] for r in results]
        async with sem:  # a model call as the extraction's are: `concurrency` bounds both
            vectors, reused = await chunk_vectors(
                self.store if state == "changed" else None, self.embedder, chunks)
        written = await group.write(DocumentInput(
            doc=doc, chunks=chunks, extractions=extractions, themes=themes, vectors=vectors))
        if written.status == "skipped":
            report.documents_skipped += 1
            return
        report.count_written(doc, written.status == "replaced", chunks, extractions,
                             themes, sum(1 for r in results if r[2]), written.embedded,
                             offline=self.chat is None)
        report.chunk_vectors_reused += reused

    async def _index_chunk(
        self, chunk: Chunk, sem: asyncio.Semaphore
    ) -> tuple[ChunkExtraction, ChunkTheme, bool]:
        async with sem:
            extraction = await self.extractor.aextract(chunk)
        extraction = clean_extraction(extraction, chunk.id, self.extractor)
        image: bytes | None = None
        if self.render_images:
            async with sem:
                image = await self._render(chunk, extraction)
        async with sem:
            theme = await self.theme_extractor.atheme(
                chunk, extraction, image if self.index_visualization else None
            )
        return extraction, clean_theme(theme, chunk.id), image is not None

    async def _render(self, chunk: Chunk, extraction: ChunkExtraction) -> bytes:
        hg = extraction_hypergraph(extraction, str(chunk.metadata.get("title", "")))
        rendering = await self.renderer.arender(hg, chunk_texts={chunk.id: chunk.text})
        png: bytes = rendering.png
        return png
