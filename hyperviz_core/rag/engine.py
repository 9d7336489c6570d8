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

With a chat/vision model (``chat=``, any :class:`~hyperviz_core.rag.models.ChatModel`), the
keywords, the locate step and the answer come from the model and I_top/I_bot are sent to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

from .answer import Answerer, extractive_summary
from .models import ChatModel, Embedder
from .offline import HashingEmbedder
from .prompts import Prompts
from .result import RetrievalResult
from .retrieve import RetrievalConfig, Retriever, check_mode
from .store import HypergraphStore, StoreStats
from .types import Document

__all__ = ["VizRAG"]


class VizRAG:
    """Two-layer hypergraph RAG with rendered sub-hypergraphs (paper §4).

    Args:
        store_dir: store directory (``vizrag.sqlite`` inside) or ``.sqlite`` file, or an open
            :class:`HypergraphStore`.
        chat: chat/vision model; ``None`` = offline (heuristic extraction and keywords, the
            offline locator, an extractive summary instead of an answer).
        embedder: defaults to :class:`HashingEmbedder` (must match the one used to index).
        extractor, theme_extractor: indexing models (default: the LLM ones when ``chat`` is
            given, else the heuristic ones).
        mode: default retrieval mode (``vizrag``, ``text``, ``hyper-lite``, ``naive``).
        top_k: default number of ranked chunks; hops: sub-hypergraph radius.
        config: full :class:`RetrievalConfig` (``mode``/``top_k``/``hops`` override it).
        index_visualization: per-chunk renderings for the theme step (paper §4.1.2).
    """

    def __init__(
        self,
        store_dir: str | Path | HypergraphStore,
        chat: ChatModel | None = None,
        embedder: Embedder | None = None,
        extractor: Any = None,
        theme_extractor: Any = None,
        *,
        renderer: Any = None,
        prompts: Prompts | None = None,
        mode: str = "vizrag",
        top_k: int = 5,
        hops: int = 1,
        config: RetrievalConfig | None = None,
        index_visualization: bool = True,
        chunk_size: int = 1200,
        chunk_overlap: int = 100,
        concurrency: int = 8,
        show_progress: bool = True,
    ) -> None:
        check_mode(mode)
        self.store = (store_dir if isinstance(store_dir, HypergraphStore)
                      else HypergraphStore(store_dir))
        self.chat = chat
        self.embedder: Embedder = embedder or HashingEmbedder()
        try:
            self.store.check_embedder(self.embedder.name, self.embedder.dim)  # fail early
        except Exception:
            if not isinstance(store_dir, HypergraphStore):
                self.store.close()
            raise
        self.prompts = prompts or Prompts()
        base = config or RetrievalConfig()
        self.config = base.model_copy(update={"mode": mode, "top_k": top_k, "hops": hops})
        self.extractor = extractor
        self.theme_extractor = theme_extractor
        self.renderer = renderer
        self.index_visualization = index_visualization
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.concurrency = concurrency
        self.show_progress = show_progress
        self.retriever = Retriever(self.store, embedder=self.embedder, chat=chat,
                                   renderer=renderer, prompts=self.prompts, config=self.config)
        self._indexer: Any = None

    # ------------------------------------------------------------------ indexing
    @property
    def indexer(self) -> Any:
        """The :class:`~hyperviz_core.rag.index.Indexer` (created on first use)."""
        if self._indexer is None:
            from .index import Indexer

            self._indexer = Indexer(
                self.store, extractor=self.extractor, theme_extractor=self.theme_extractor,
                embedder=self.embedder, renderer=self.renderer,
                index_visualization=self.index_visualization, concurrency=self.concurrency,
                show_progress=self.show_progress, chat=self.chat, chunk_size=self.chunk_size,
                chunk_overlap=self.chunk_overlap)
        return self._indexer

    @staticmethod
    def _docs(docs: Iterable[Document | str] | Document | str) -> list[Document]:
        if isinstance(docs, (Document, str)):
            docs = [docs]
        return [d if isinstance(d, Document) else Document(text=str(d)) for d in docs]

    def insert(self, docs: Iterable[Document | str] | Document | str) -> Any:
        """Index documents (or plain strings); identical re-inserts are no-ops.

        Returns the indexer's report."""
        report = self.indexer.index(self._docs(docs))
        self.retriever.refresh()
        return report

    async def ainsert(self, docs: Iterable[Document | str] | Document | str) -> Any:
        """Async :meth:`insert`."""
        report = await self.indexer.aindex(self._docs(docs))
        self.retriever.refresh()
        return report

    def delete(self, doc_id: str) -> Any:
        """Remove a document and whatever only it supported."""
        out = self.indexer.delete(doc_id)
        self.retriever.refresh()
        return out

    def stats(self) -> StoreStats:
        """Store counts (documents, chunks, entities, hyperedges, themes ...)."""
        return self.store.stats()

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def __enter__(self) -> VizRAG:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ retrieval
    def retrieve(self, query: str, mode: str | None = None, top_k: int | None = None,
                 **overrides: Any) -> RetrievalResult:
        """Retrieve without answering (what framework retrievers call).

        ``overrides`` are :class:`RetrievalConfig` fields (``hops``, ``render``,
        ``retrieval_visualization``, ``congestion_control``, ``dual_view`` ...)."""
        return self.retriever.retrieve(query, mode=mode, top_k=top_k, **overrides)

    async def aretrieve(self, query: str, mode: str | None = None, top_k: int | None = None,
                        **overrides: Any) -> RetrievalResult:
        """Async :meth:`retrieve`."""
        return await self.retriever.aretrieve(query, mode=mode, top_k=top_k, **overrides)

    def _answerer(self) -> Answerer | None:
        return Answerer(self.chat, self.prompts) if self.chat is not None else None

    @staticmethod
    def _offline(result: RetrievalResult) -> RetrievalResult:
        result.answer = extractive_summary(result)
        result.answer_kind = "extractive"
        return result

    def query(self, query: str, mode: str | None = None, top_k: int | None = None,
              **overrides: Any) -> RetrievalResult:
        """Retrieve and answer. Offline the answer is a labelled extractive summary."""
        result = self.retrieve(query, mode=mode, top_k=top_k, **overrides)
        answerer = self._answerer()
        if answerer is None:
            return self._offline(result)
        answerer.answer(result)
        return result

    async def aquery(self, query: str, mode: str | None = None, top_k: int | None = None,
                     **overrides: Any) -> RetrievalResult:
        """Async :meth:`query`."""
        result = await self.aretrieve(query, mode=mode, top_k=top_k, **overrides)
        answerer = self._answerer()
        if answerer is None:
            return self._offline(result)
        await answerer.aanswer(result)
        return result

    def stream(self, query: str, mode: str | None = None, top_k: int | None = None,
               result: RetrievalResult | None = None, **overrides: Any) -> Iterator[str]:
        """Yield the answer in pieces. Pass ``result`` to reuse a retrieval (it receives the
        answer when the stream ends); offline the extractive summary is yielded whole."""
        res = result or self.retrieve(query, mode=mode, top_k=top_k, **overrides)
        answerer = self._answerer()
        if answerer is None:
            yield self._offline(res).answer or ""
            return
        yield from answerer.stream(res)

    async def astream(self, query: str, mode: str | None = None, top_k: int | None = None,
                      result: RetrievalResult | None = None,
                      **overrides: Any) -> AsyncIterator[str]:
        """Async :meth:`stream`."""
        res = result or await self.aretrieve(query, mode=mode, top_k=top_k, **overrides)
        answerer = self._answerer()
        if answerer is None:
            yield self._offline(res).answer or ""
            return
        async for piece in answerer.astream(res):
            yield piece

    def query_many(self, queries: Iterable[str], **kwargs: Any) -> list[RetrievalResult]:
        """:meth:`query` for several questions (store loaded once)."""
        return [self.query(q, **kwargs) for q in queries]

    async def aquery_many(self, queries: Iterable[str], **kwargs: Any) -> list[RetrievalResult]:
        """Concurrent :meth:`aquery`."""
        return list(await asyncio.gather(*(self.aquery(q, **kwargs) for q in queries)))
