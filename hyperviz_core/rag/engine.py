"""``VizRAG``: the engine facade (index, retrieve, answer) over one embedded store.

Example (offline: heuristic extraction, hashed embeddings, no LLM)::

    from hyperviz_core.rag.engine import VizRAG
    from hyperviz_core.rag.types import Document

    rag = VizRAG("out/store")
    rag.insert([Document(title="Marie Curie", text="Marie Curie won the Nobel Prize ...")])
    result = rag.retrieve("Which prize did Marie Curie win?")   # stops before the answer
    for chunk in result.chunks:
        print(chunk.rank, chunk.score, chunk.title)
    result = rag.query("Which prize did Marie Curie win?")      # + answer (extractive offline)
    print(result.answer)

With a chat/vision model (``chat=``, any :class:`~hyperviz_core.rag.ChatModel`), the
keywords, the locate step and the answer come from the model and I_top/I_bot are sent to it.

Stage hooks (:mod:`hyperviz_core.rag.hooks`) observe every stage, model call and rendering::

    rag = VizRAG("out/store", hooks=[lambda name, phase, payload: print(name, phase)])
    rag.query("Which prize did Marie Curie win?", hooks=[my_tracer])   # + one more, this call
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..view_settings import saved_view_settings
from .answer import LISTING_CHARS, Answerer, check_answer_options, extractive_summary
from .engine_args import check_models, check_settings, composed, given_settings, store_of
from .engine_deletes import AsyncDeletes
from .engine_lifecycle import Lifecycle, in_flight
from .engine_many import ManyQueries
from .hooks import Hook, HookEvent, HookList, afire, elapsed_ms, error_text, fire
from .index.inputs import as_documents
from .index.report import IndexReport
from .prompts import Prompts
from .providers.middleware import query_chat
from .providers.offline import HashingEmbedder
from .providers.protocols import ChatModel, Embedder, with_async
from .providers.retry import with_retries
from .providers.spec import matched_embedder
from .providers.sync_models import SyncChatModel, SyncEmbedder
from .query_usage import counted
from .result import RetrievalResult
from .retrieve import RetrievalConfig, Retriever
from .store import StoreProtocol, StoreStats, redact_url
from .types import Document

if TYPE_CHECKING:
    from .index.indexer import Indexer

__all__ = ["VizRAG"]


class VizRAG(ManyQueries, AsyncDeletes, Lifecycle):
    """Two-layer hypergraph RAG with rendered sub-hypergraphs (paper §4).

    Args:
        store_dir: store directory (``vizrag.sqlite`` inside), ``.sqlite`` file,
            ``postgresql://`` URL, or an open store (:class:`HypergraphStore` or any
            :class:`~hyperviz_core.rag.StoreProtocol`).
        chat: chat/vision model; ``None`` = offline (heuristic extraction and keywords, the
            offline locator, an extractive summary instead of an answer).
        embedder: must match the one used to index; default: the store's recorded one when
            it can be made offline (the hashed embedder, of the store's version, or the local
            MiniLM: :func:`~.providers.spec.matched_embedder`), else :class:`HashingEmbedder`.
        extractor, theme_extractor: indexing models (default: the LLM ones when ``chat`` is
            given, else the heuristic ones); keyword_extractor: the query's keywords
            (a :class:`~hyperviz_core.rag.KeywordExtractor`; default: ``chat``, else heuristic).
        mode: default retrieval mode (``vizrag``, ``text``, ``hyper-lite``, ``naive``).
        top_k: default number of ranked chunks; hops: sub-hypergraph radius. config: full
            :class:`RetrievalConfig` (``mode``/``top_k``/``hops`` given override it).
        index_visualization: per-chunk renderings for the theme step (paper §4.1.2).
        renderer: a :class:`~hyperviz_core.HyperViz` for I_top/I_bot; prompts: a
            :class:`Prompts`; chunk_size, chunk_overlap: the chunk window (characters);
            concurrency: documents indexed at once; show_progress: tqdm bars.
        hooks: stage hooks ``hook(name, phase, payload)`` (:mod:`hyperviz_core.rag.hooks`).
        lazy: True: queries read only what they need from a store with indexed lookups
            (the SQLite store; :mod:`hyperviz_core.rag.retrieve.lazy`); False: both layers
            and every chunk are loaded once per store state (other stores always do);
            None (default): lazy from ``LAZY_MIN_CHUNKS`` (4,000) chunks on.
        infer_titles: index an untitled long document under the title its opening states
            in capitals (:mod:`hyperviz_core.rag.index.titles`); False = leave it untitled.
        must_exist: never create a store at a path or URL (:class:`StoreNotFoundError`).
        close_store: whether :meth:`close` closes the store (default: one it opened from a
            path or URL, not a store object it was given).
        max_sources: the most retrieved passages the answer prompt carries (None: all,
            ``top_k``); listing_chars: its E#/H# listings' budget (:class:`Answerer`).
    """

    def __init__(
        self,
        store_dir: str | Path | StoreProtocol,
        chat: SyncChatModel | None = None,
        embedder: SyncEmbedder | None = None,
        extractor: Any = None,
        theme_extractor: Any = None,
        *,
        renderer: Any = None, keyword_extractor: Any = None,
        prompts: Prompts | None = None,
        mode: str | None = None, top_k: int | None = None, hops: int | None = None,
        config: RetrievalConfig | None = None,
        index_visualization: bool = True,
        chunk_size: int = 1200,
        chunk_overlap: int = 100,
        infer_titles: bool = True,
        concurrency: int = 8,
        show_progress: bool = True,
        hooks: Iterable[Hook] = (),
        lazy: bool | None = None, must_exist: bool = False, close_store: bool | None = None,
        max_sources: int | None = None, listing_chars: int = LISTING_CHARS,
    ) -> None:
        check_models(chat, embedder, config,  # before the store opens (top_k=0: no store)
                     (extractor, theme_extractor, keyword_extractor, renderer))
        check_settings(config, mode=mode, top_k=top_k, hops=hops, chunk_size=chunk_size,
                       chunk_overlap=chunk_overlap, concurrency=concurrency)
        check_answer_options(max_sources, listing_chars)
        chat_model, embed_model = with_async(chat), with_async(embedder)  # async twins
        self.hooks = HookList(hooks)
        owned = isinstance(store_dir, (str, Path)) if close_store is None else close_store
        self.store: StoreProtocol = store_of(store_dir, must_exist)
        self.chat: ChatModel | None = chat_model
        try:
            # default: the store's embedder when it can be made offline, else hashed;
            # a provider's embedder is retried (429/5xx/timeouts), its dim probe included
            given = matched_embedder(embed_model, self.store.embedder_info()) or HashingEmbedder()
            self.embedder: Embedder = with_retries(given)
            self._given_embedder = given  # the indexer retries it itself, its usage counted
            self.store.check_embedder(self.embedder.name, self.embedder.dim)  # fail early
        except Exception:
            if owned:
                self.store.close()
            raise
        self.prompts = prompts or Prompts()
        saved = saved_view_settings(self.store) if config is None else None
        base = config or RetrievalConfig(**({"layouts": saved.layouts} if saved else {}))
        self.config = RetrievalConfig.model_validate(  # validated: top_k=0 fails here
            {**base.model_dump(), **given_settings(mode, top_k, hops)})
        self.extractor, self.theme_extractor = with_async(extractor), with_async(theme_extractor)
        self.renderer, self.index_visualization = renderer, index_visualization
        self.chunk_size, self.chunk_overlap = chunk_size, chunk_overlap
        self.infer_titles, self.concurrency = infer_titles, concurrency
        self.show_progress = show_progress
        self.max_sources, self.listing_chars = max_sources, listing_chars
        self._owns_store, self._query_chat = owned, query_chat(chat_model)  # queries: retried
        self.retriever = Retriever(self.store, embedder=self.embedder, chat=self._query_chat,
                                   renderer=renderer, prompts=self.prompts, config=self.config,
                                   hooks=self.hooks, lazy=lazy,
                                   keyword_extractor=keyword_extractor)
        self._indexer: Indexer | None = None

    # ------------------------------------------------------------------ indexing
    @property
    def indexer(self) -> Indexer:
        """The :class:`~hyperviz_core.rag.index.indexer.Indexer` (created on first use)."""
        if self._indexer is None:
            from .index.indexer import Indexer

            self._indexer = Indexer(
                self.store, extractor=self.extractor, theme_extractor=self.theme_extractor,
                embedder=self._given_embedder, renderer=self.renderer,
                index_visualization=self.index_visualization, concurrency=self.concurrency,
                show_progress=self.show_progress, chat=self.chat, chunk_size=self.chunk_size,
                chunk_overlap=self.chunk_overlap, infer_titles=self.infer_titles,
                prompts=self.prompts)
        return self._indexer

    @in_flight
    def insert(self, docs: Iterable[Document | str] | Document | str) -> IndexReport:
        """Index documents (or plain strings); identical re-inserts are no-ops. Returns
        the indexer's report."""
        report = self.indexer.index(as_documents(docs))
        self.retriever.refresh()
        return report

    @in_flight
    async def ainsert(self, docs: Iterable[Document | str] | Document | str) -> IndexReport:
        """Async :meth:`insert`."""
        report = await self.indexer.aindex(as_documents(docs))
        self.retriever.refresh()
        return report

    @in_flight
    def delete(self, doc_id: str) -> dict[str, int]:
        """Remove a document and whatever only it supported."""
        if not isinstance(doc_id, str):
            raise TypeError(f"delete() takes one document id (a string), not "
                            f"{type(doc_id).__name__}; call it once per id")
        out = self.indexer.delete(doc_id)
        self.retriever.refresh()
        return out

    @in_flight
    def delete_many(self, doc_ids: Iterable[str]) -> dict[str, int]:
        """Remove several documents (and what only they supported) in one transaction:
        all, or none when anything fails. Unknown ids are skipped; counts as :meth:`delete`'s."""
        if isinstance(doc_ids, str):
            raise TypeError(f"delete_many() takes a list of document ids, not the string "
                            f"{doc_ids!r}; use delete(doc_id) for one")
        out = self.indexer.delete_many(doc_ids)
        self.retriever.refresh()
        return out

    def stats(self) -> StoreStats:
        """Store counts (documents, chunks, entities, hyperedges, themes ...)."""
        return self.store.stats()

    def __repr__(self) -> str:
        try:
            chat = getattr(self.chat, "model_name", None) if self.chat is not None else None
            return (f"VizRAG(store={redact_url(str(self.store.path))!r}, mode="
                    f"{self.config.mode!r}, top_k={self.config.top_k}, chat={chat!r}, "
                    f"embedder={self.embedder.name!r})")
        except AttributeError:  # __init__ failed half-way (a traceback's locals)
            return "VizRAG(...)"

    # ------------------------------------------------------------------ hooks
    def add_hook(self, hook: Hook) -> None:
        """Register a stage hook ``hook(name, phase, payload)`` (see :mod:`.hooks`)."""
        self.hooks.add(hook)

    def remove_hook(self, hook: Hook) -> None:
        """Unregister a stage hook (:class:`ValueError` if it is not registered)."""
        self.hooks.remove(hook)

    # ------------------------------------------------------------------ retrieval
    @in_flight
    def retrieve(self, query: str, mode: str | None = None, top_k: int | None = None, *,
                 hooks: Iterable[Hook] | None = None, **overrides: Any) -> RetrievalResult:
        """Retrieve without answering (what framework retrievers call).

        ``overrides`` are :class:`RetrievalConfig` fields (``hops``, ``render``,
        ``retrieval_visualization``, ``congestion_control``, ``dual_view`` ...); ``hooks``
        are extra stage hooks for this call (after the engine's)."""
        return self.retriever.retrieve(composed(query), mode=mode, top_k=top_k, hooks=hooks,
                                       **overrides)

    @in_flight
    async def aretrieve(self, query: str, mode: str | None = None, top_k: int | None = None, *,
                        hooks: Iterable[Hook] | None = None,
                        **overrides: Any) -> RetrievalResult:
        """Async :meth:`retrieve` (awaitable hook results are awaited)."""
        return await self.retriever.aretrieve(composed(query), mode=mode, top_k=top_k, hooks=hooks,
                                              **overrides)

    def prepare_queries(self) -> bool:
        """Make a lazily read store (4,000 chunks or more by default) query-ready now: its
        full-text index, BM25 lengths and query arrays, kept in the store file for later
        processes (read-only ones such as ``vizrag query`` too); False, doing nothing, when
        queries load the store instead. ``vizrag index`` and ``vizrag delete`` run it."""
        return self.retriever.prepare()

    def _answerer(self, res: RetrievalResult) -> Answerer | None:  # its calls: res.usage
        return Answerer(counted(self._query_chat, res), self.prompts, max_sources=self.max_sources,
                        listing_chars=self.listing_chars) if self._query_chat else None

    @staticmethod
    def _offline(result: RetrievalResult) -> RetrievalResult:
        result.answer, result.answer_kind = extractive_summary(result), "extractive"
        return result

    @staticmethod
    def _call(request: tuple[str, list[bytes]]) -> dict[str, Any]:  # answer's model_call
        return {"stage": "answer", "images": len(request[1]), "prompt_chars": len(request[0])}

    @staticmethod
    def _answered(result: RetrievalResult, t0: float) -> HookEvent:
        ms = elapsed_ms(t0)
        result.timings["answer"] = ms
        return HookEvent("answer", "end", {"answer_kind": result.answer_kind,
                                           "chars": len(result.answer or ""), "elapsed_ms": ms})

    @in_flight
    def query(self, query: str, mode: str | None = None, top_k: int | None = None, *,
              hooks: Iterable[Hook] | None = None, **overrides: Any) -> RetrievalResult:
        """Retrieve and answer (the ``answer`` stage). Offline the answer is a labelled
        extractive summary."""
        result = self.retrieve(query, mode=mode, top_k=top_k, hooks=hooks, **overrides)
        hk = self.hooks.with_extra(hooks)
        fire(hk, HookEvent("answer", "start", {"mode": result.mode}))
        t0 = time.perf_counter()
        answerer = self._answerer(result)
        if answerer is None:
            self._offline(result)
        else:
            request = answerer.request(result)
            call = self._call(request)
            fire(hk, HookEvent("model_call", "start", dict(call)))
            t1 = time.perf_counter()
            try:
                answerer.answer(result, request)
            except BaseException as exc:  # cancelled too
                err = {"error": error_text(exc), "elapsed_ms": elapsed_ms(t1)}
                fire(hk, HookEvent("model_call", "error", {**call, **err}))
                fire(hk, HookEvent("answer", "error", {**err, "elapsed_ms": elapsed_ms(t0)}))
                raise
            fire(hk, HookEvent("model_call", "end", {**call, "elapsed_ms": elapsed_ms(t1)}))
        fire(hk, self._answered(result, t0))
        return result

    @in_flight
    async def aquery(self, query: str, mode: str | None = None, top_k: int | None = None, *,
                     hooks: Iterable[Hook] | None = None, **overrides: Any) -> RetrievalResult:
        """Async :meth:`query`."""
        result = await self.aretrieve(query, mode=mode, top_k=top_k, hooks=hooks, **overrides)
        hk = self.hooks.with_extra(hooks)
        await afire(hk, HookEvent("answer", "start", {"mode": result.mode}))
        t0 = time.perf_counter()
        answerer = self._answerer(result)
        if answerer is None:
            self._offline(result)
        else:
            request = answerer.request(result)
            call = self._call(request)
            await afire(hk, HookEvent("model_call", "start", dict(call)))
            t1 = time.perf_counter()
            try:
                await answerer.aanswer(result, request)
            except BaseException as exc:  # cancelled too
                err = {"error": error_text(exc), "elapsed_ms": elapsed_ms(t1)}
                await afire(hk, HookEvent("model_call", "error", {**call, **err}))
                await afire(hk, HookEvent("answer", "error", {**err,
                                                              "elapsed_ms": elapsed_ms(t0)}))
                raise
            await afire(hk, HookEvent("model_call", "end", {**call,
                                                            "elapsed_ms": elapsed_ms(t1)}))
        await afire(hk, self._answered(result, t0))
        return result

    @in_flight
    def stream(self, query: str, mode: str | None = None, top_k: int | None = None,
               result: RetrievalResult | None = None, *, hooks: Iterable[Hook] | None = None,
               **overrides: Any) -> Iterator[str]:
        """Yield the answer in pieces. Pass ``result`` to reuse a retrieval (it receives the
        answer when the stream ends); offline the extractive summary is yielded whole. The
        ``answer`` stage's hook events fire as in :meth:`query` (``end`` once the stream is
        consumed) and ``result.timings["answer"]`` is set."""
        res = result or self.retrieve(query, mode=mode, top_k=top_k, hooks=hooks, **overrides)
        hk = self.hooks.with_extra(hooks)
        fire(hk, HookEvent("answer", "start", {"mode": res.mode}))
        t0 = time.perf_counter()
        answerer = self._answerer(res)
        try:
            if answerer is None:
                yield self._offline(res).answer or ""
            else:  # the model call's events around the stream, as query() fires them
                request = answerer.request(res)
                call, t1 = self._call(request), time.perf_counter()
                fire(hk, HookEvent("model_call", "start", dict(call)))
                try:
                    yield from answerer.stream(res, request)
                except BaseException as exc:  # a stream closed early too
                    fire(hk, HookEvent("model_call", "error", {
                        **call, "error": error_text(exc), "elapsed_ms": elapsed_ms(t1)}))
                    raise
                fire(hk, HookEvent("model_call", "end", {**call, "elapsed_ms": elapsed_ms(t1)}))
        except BaseException as exc:
            fire(hk, HookEvent("answer", "error", {"error": error_text(exc),
                                                   "elapsed_ms": elapsed_ms(t0)}))
            raise
        fire(hk, self._answered(res, t0))

    @in_flight
    async def astream(self, query: str, mode: str | None = None, top_k: int | None = None,
                      result: RetrievalResult | None = None, *,
                      hooks: Iterable[Hook] | None = None,
                      **overrides: Any) -> AsyncIterator[str]:
        """Async :meth:`stream`."""
        res = result or await self.aretrieve(query, mode=mode, top_k=top_k, hooks=hooks,
                                             **overrides)
        hk = self.hooks.with_extra(hooks)
        await afire(hk, HookEvent("answer", "start", {"mode": res.mode}))
        t0 = time.perf_counter()
        answerer = self._answerer(res)
        try:
            if answerer is None:
                yield self._offline(res).answer or ""
            else:
                request = answerer.request(res)
                call, t1 = self._call(request), time.perf_counter()
                await afire(hk, HookEvent("model_call", "start", dict(call)))
                try:
                    async for piece in answerer.astream(res, request):
                        yield piece
                except BaseException as exc:  # a stream closed early too
                    await afire(hk, HookEvent("model_call", "error", {
                        **call, "error": error_text(exc), "elapsed_ms": elapsed_ms(t1)}))
                    raise
                await afire(hk, HookEvent("model_call", "end", {
                    **call, "elapsed_ms": elapsed_ms(t1)}))
        except BaseException as exc:
            await afire(hk, HookEvent("answer", "error", {"error": error_text(exc),
                                                          "elapsed_ms": elapsed_ms(t0)}))
            raise
        await afire(hk, self._answered(res, t0))
