"""``VizRAGVectorStore``: a VizRAG store as a LangChain ``VectorStore``.

A thin wrapper over :class:`~vizrag_langchain.VizRAGRetriever` (which indexes, deletes and
retrieves) for code written against ``InMemoryVectorStore``, Chroma or FAISS: it takes and
returns documents **as added** — ``page_content``, ``metadata`` and ``id`` as
``add_documents`` stored them, none of VizRAG's keys — and ranks them with the engine's
retrieval (the ``vizrag`` mode by default: BM25, embeddings and hypergraph evidence, not
embedding similarity alone). Each added document is one chunk (``one_chunk=True``), so one
document is one search hit. VizRAG's own view of a search — chunk ids, score parts,
entities and their ``E#`` ids, the rendered sub-hypergraph — is
:attr:`VizRAGVectorStore.vizrag_retriever`.

Example::

    >>> from langchain_core.documents import Document
    >>> from vizrag_langchain import VizRAGVectorStore
    >>> vs = VizRAGVectorStore.from_documents(
    ...     [Document("Ada Lovelace wrote notes.", metadata={"page": 3})],
    ...     store="out/lc-vs")                                          # doctest: +SKIP
    >>> vs.similarity_search("Who wrote notes?", k=1)[0].metadata       # doctest: +SKIP
    {'page': 3}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Self

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from hyperviz_core.rag import MODES, RankWeights, VizRAG, check_hops
from hyperviz_core.rag import Document as VizDocument

from .documents import vizrag_value
from .engine import resolve_engine
from .options import check_flag, check_k, refuse_unknown
from .retriever import VizRAGRetriever, _engine_documents, core_filter

__all__ = ["SEARCH_OPTIONS", "VizRAGVectorStore", "relevance_score"]

#: what a search takes besides ``query`` and ``k``
SEARCH_OPTIONS: tuple[str, ...] = ("mode", "hops", "filter")

_REFUSED = {
    "include_image": "a vector store returns the documents as added; the rendered "
                     "sub-hypergraph comes from .vizrag_retriever.invoke(q, include_image=True)",
}


def relevance_score(score: float, mode: str, weights: RankWeights) -> float:
    """A VizRAG ranking score as a relevance in ``[0, 1]``: its share of the highest score
    ``mode`` can give a chunk with these ``weights`` (resolved for the embedder;
    :meth:`~hyperviz_core.rag.retrieve.rank.RankWeights.score_ceiling`: 3.5 in ``vizrag``
    mode with a semantic embedder, 2.5 with the offline hashed one, 1 in ``naive``). A
    passage matching the query word for word but with no graph evidence is therefore about
    0.57 (semantic) or 0.4 (hashed) in ``vizrag`` mode: set ``score_threshold`` with that in
    mind.

    >>> w = RankWeights(vector=1.0)
    >>> relevance_score(2.0, "vizrag", w), relevance_score(0.5, "naive", w)
    (0.571429, 0.5)
    """
    ceiling = weights.score_ceiling(mode)
    if ceiling <= 0:
        return 0.0
    return round(min(max(score / ceiling, 0.0), 1.0), 6)


def _without_batch_size(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` without a valid ``batch_size`` (a positive int; anything else is a
    ``ValueError``): LangChain's ``index()`` always passes one."""
    size = kwargs.pop("batch_size", 1)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {size!r}")
    return kwargs


def _as_langchain(doc: VizDocument) -> Document:
    """A stored document as the LangChain document it was added as."""
    return Document(id=doc.id, page_content=doc.text, metadata=dict(doc.metadata))


class VizRAGVectorStore(VectorStore):
    """A VizRAG store as a LangChain ``VectorStore``.

    Args:
        store: store directory or ``.sqlite`` path (created when missing, as a vector store
            is; strings pass through to ``VizRAG``), an open store or a ``VizRAG`` engine.
        embedding: a LangChain ``Embeddings`` (wrapped with
            :class:`~vizrag_langchain.LangChainEmbedder`; questions go through
            ``embed_query``), a VizRAG embedder, or ``None``: the store's recorded one when
            it can be made offline (hashed, ``local-minilm``), else the offline hashed
            embedder. It must match the one the store was indexed with: a store indexed with
            a LangChain ``Embeddings`` needs it passed again (the error says so).
        mode: retrieval mode (``None``: the engine's default, ``vizrag``); hops:
            sub-hypergraph radius (``None``: the engine's, 1).
        one_chunk: each added document is indexed whole as one chunk (default: one added
            document = one search hit, as in other vector stores; ``False`` lets the engine
            window long documents by its ``chunk_size``; a search then returns each
            document once, at its best chunk's rank and score).
        chat, engine_kwargs: a chat/vision model and further ``VizRAG(...)`` arguments for
            an engine created here.

    Searches take ``k`` and the options ``mode=``, ``hops=`` and ``filter=`` (a dict in
    PGVector/Chroma style over the metadata as added, ``{"year": {"$gte": 2021}}``:
    :func:`~vizrag_langchain.retriever.core_filter`; ``as_retriever(search_kwargs=
    {"filter": ...})`` passes it on); anything else is a ``TypeError`` naming it. Returned
    documents carry the text, metadata
    and id stored by ``add_documents`` (text in Unicode NFC and metadata JSON-safe, as the
    engine stores them); ``similarity_search_with_score`` adds VizRAG's ranking score
    (higher is better), ``similarity_search_with_relevance_scores`` maps it into ``[0, 1]``
    with :func:`relevance_score`.
    """

    def __init__(self, store: Any, embedding: Embeddings | Any | None = None, *,
                 mode: str | None = None, hops: int | None = None, one_chunk: bool = True,
                 chat: Any = None, engine_kwargs: dict[str, Any] | None = None) -> None:
        if mode is not None and mode not in MODES:  # checked before a store is created
            raise ValueError(f"unknown retrieval mode {mode!r}; valid modes: {', '.join(MODES)}")
        if hops is not None:
            check_hops(hops)
        check_flag("one_chunk", one_chunk)
        engine = resolve_engine(store, chat=chat, embedder=embedding,
                                engine_kwargs=engine_kwargs)
        self._embedding = embedding if isinstance(embedding, Embeddings) else None
        self._mode, self._hops = mode, hops
        try:  # over a path, it keeps the path and models and closes the engine opened here
            self._retriever = VizRAGRetriever._over(
                engine, store, chat=chat, embedder=embedding, engine_kwargs=engine_kwargs,
                mode=mode or engine.config.mode,
                hops=engine.config.hops if hops is None else hops, one_chunk=one_chunk)
        except BaseException:
            if isinstance(store, (str, Path)):
                engine.close()
            raise

    # ------------------------------------------------------------------ properties
    @property
    def embeddings(self) -> Embeddings | None:
        """The LangChain ``Embeddings`` given (``None`` when the engine embeds with a
        VizRAG embedder: the store's, the offline hashed one or one given as such)."""
        return self._embedding

    @property
    def engine(self) -> VizRAG:
        """The VizRAG engine behind this store."""
        return self._retriever.engine

    @property
    def vizrag_retriever(self) -> VizRAGRetriever:
        """The :class:`~vizrag_langchain.VizRAGRetriever` over the same engine (this store's
        mode, hops and ``one_chunk``): ranked chunks with VizRAG's metadata (``score``,
        ``score_parts``, ``entities``, ``entity_ids`` ...) and ``include_image=True``."""
        return self._retriever

    def close(self, timeout: float | None = None) -> None:
        """Close the engine's store if this vector store opened it from a path (queries and
        writes in flight are waited for, at most ``timeout`` seconds: ``VizRAG.close``)."""
        self._retriever.close(timeout)

    async def aclose(self, timeout: float | None = None) -> None:
        """:meth:`close` without blocking the event loop (``VizRAG.aclose``)."""
        await self._retriever.aclose(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return (f"VizRAGVectorStore({self.engine!r}, mode={self._retriever.mode!r}, "
                f"one_chunk={self._retriever.one_chunk})")

    # ------------------------------------------------------------------ writing
    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Index ``documents`` and return their ids (``ids=[...]`` when given, else
        ``doc.id``, else ``doc-<hash of title, text and metadata>``); an id added again with
        other content replaces the document (:meth:`VizRAGRetriever.add_documents`).
        ``batch_size`` (what ``langchain_core.indexing.index`` passes) is taken and unused:
        the engine commits in its own batches."""
        return self._retriever.add_documents(documents, **_without_batch_size(kwargs))

    async def aadd_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Async :meth:`add_documents` (the engine's async indexing)."""
        return await self._retriever.aadd_documents(documents, **_without_batch_size(kwargs))

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete documents by the ids :meth:`add_documents` returned (a chunk id of
        :attr:`vizrag_retriever` deletes its document), in one store transaction; unknown
        ids are ignored. ``ids=None`` is a ``TypeError``: VizRAG never deletes a whole store
        by omission (the base class's "delete all")."""
        self._retriever.delete(_delete_ids(ids, kwargs, "delete()"))
        return True

    async def adelete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Async :meth:`delete` (in a worker thread)."""
        await self._retriever.adelete(_delete_ids(ids, kwargs, "adelete()"))
        return True

    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """The stored documents of ``ids``, in their order, each once; ids of no document
        are left out."""
        if isinstance(ids, str):
            raise TypeError(f"get_by_ids() takes a list of ids, got the string {ids!r:.80}")
        bad = next((i for i in ids if not isinstance(i, str)), None)
        if bad is not None:
            raise TypeError(f"get_by_ids() takes string ids, got {bad!r:.80}")
        wanted = list(dict.fromkeys(ids))
        stored = {d.id: d for d in self.engine.store.documents(wanted)} if wanted else {}
        return [_as_langchain(stored[i]) for i in wanted if i in stored]

    # ------------------------------------------------------------------ searching
    def _options(self, query: Any, k: Any, kwargs: dict[str, Any], where: str
                 ) -> dict[str, Any]:
        """The retriever's per-call options of one search (checked: a wrong one is named)."""
        if not isinstance(query, str):
            raise TypeError(f"{where} takes the query as a string, got {type(query).__name__}")
        check_k(k)
        for name, why in _REFUSED.items():
            if name in kwargs:
                raise TypeError(f"{where} got {name}=: {why}")
        refuse_unknown(kwargs, ("k", *SEARCH_OPTIONS), where)  # top_k=: "did you mean 'k'"
        mode, hops = kwargs.get("mode"), kwargs.get("hops")
        flt = core_filter(kwargs.get("filter"))
        return {"mode": self._retriever.mode if mode is None else mode,
                "hops": self._retriever.hops if hops is None else hops,
                **({"filter": flt} if flt is not None else {})}

    @staticmethod
    def _best(chunks: list[Document]) -> dict[str, float]:
        """Document id → its best chunk's score, best first (``chunks`` are ranked)."""
        best: dict[str, float] = {}
        for chunk in chunks:
            best.setdefault(str(vizrag_value(chunk.metadata, "doc_id")),
                            float(vizrag_value(chunk.metadata, "score")))
        return best

    @staticmethod
    def _wider(chunks: list[Document], asked: int, k: int) -> int:
        """How many chunks to ask for next: 0 when ``chunks`` hold ``k`` documents or the
        store has no more, else twice as many (chunks of one document count once)."""
        found = len({vizrag_value(c.metadata, "doc_id") for c in chunks})
        return 0 if found >= k or len(chunks) < asked else asked * 2

    def _hits(self, chunks: list[Document], k: int) -> list[tuple[Document, float]]:
        best = list(self._best(chunks).items())[:k]
        stored = {d.id: d for d in self.engine.store.documents([i for i, _ in best])}
        return [(_as_langchain(stored[i]), score) for i, score in best if i in stored]

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any
                                     ) -> list[tuple[Document, float]]:
        """The ``k`` best documents for ``query`` with VizRAG's ranking score (higher is
        better; ``mode=``, ``hops=`` per call)."""
        opts = self._options(query, k, kwargs, "similarity_search()")
        asked = k
        while True:
            chunks = self._retriever.invoke(query, k=asked, **opts)
            asked = self._wider(chunks, asked, k)
            if not asked:
                return self._hits(chunks, k)

    async def asimilarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any
                                            ) -> list[tuple[Document, float]]:
        """Async :meth:`similarity_search_with_score` (the engine's async retrieval)."""
        opts = self._options(query, k, kwargs, "asimilarity_search()")
        asked = k
        while True:
            chunks = await self._retriever.ainvoke(query, k=asked, **opts)
            asked = self._wider(chunks, asked, k)
            if not asked:
                return self._hits(chunks, k)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        """The ``k`` best documents for ``query``, as added."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, **kwargs)]

    async def asimilarity_search(self, query: str, k: int = 4, **kwargs: Any
                                 ) -> list[Document]:
        """Async :meth:`similarity_search`."""
        hits = await self.asimilarity_search_with_score(query, k, **kwargs)
        return [doc for doc, _ in hits]

    def _relevance_fn(self, mode: str | None) -> Callable[[float], float]:
        weights = self.engine.config.weights.for_embedder(self.engine.embedder)
        resolved = self._retriever.mode if mode is None else mode
        return lambda score: relevance_score(score, resolved, weights)

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        """:func:`relevance_score` for this store's mode and the engine's weights."""
        return self._relevance_fn(None)

    def _similarity_search_with_relevance_scores(self, query: str, k: int = 4,
                                                 **kwargs: Any) -> list[tuple[Document, float]]:
        fn = self._relevance_fn(kwargs.get("mode"))  # the mode of this call
        return [(d, fn(s)) for d, s in self.similarity_search_with_score(query, k, **kwargs)]

    async def _asimilarity_search_with_relevance_scores(
            self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        fn = self._relevance_fn(kwargs.get("mode"))
        hits = await self.asimilarity_search_with_score(query, k, **kwargs)
        return [(d, fn(s)) for d, s in hits]

    def similarity_search_by_vector(self, embedding: list[float], k: int = 4,
                                    **kwargs: Any) -> list[Document]:
        """Not supported: VizRAG ranks from the query text (its words, the entities it
        names, and its vector), not from a vector alone."""
        raise NotImplementedError(
            "VizRAGVectorStore cannot search by a vector: VizRAG ranks from the query text "
            "(BM25, named entities and the hypergraph besides embeddings); use "
            "similarity_search(query) (mode='naive' ranks by the query's vector alone)")

    def max_marginal_relevance_search(self, query: str, k: int = 4, fetch_k: int = 20,
                                      lambda_mult: float = 0.5, **kwargs: Any
                                      ) -> list[Document]:
        """Not supported: MMR trades embedding similarity to the query against similarity
        to the documents already picked, and VizRAG's ranking is not embedding similarity
        (``as_retriever(search_type="mmr")`` raises this too)."""
        raise NotImplementedError(
            "VizRAGVectorStore has no maximal-marginal-relevance search: VizRAG's ranking is "
            "not embedding similarity (BM25 and hypergraph evidence count), so MMR over it "
            "would not be what it claims; use similarity_search() or "
            "as_retriever(search_type='similarity')")

    def max_marginal_relevance_search_by_vector(
            self, embedding: list[float], k: int = 4, fetch_k: int = 20,
            lambda_mult: float = 0.5, **kwargs: Any) -> list[Document]:
        """Not supported (see :meth:`max_marginal_relevance_search`)."""
        return self.max_marginal_relevance_search("", k, fetch_k, lambda_mult, **kwargs)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_documents(cls, documents: list[Document], embedding: Embeddings | Any = None,
                       *, store: Any = None, ids: Sequence[str | None] | None = None,
                       **kwargs: Any) -> Self:
        """A vector store over ``store`` (created when missing) with ``documents`` added
        (``ids`` as :meth:`add_documents` takes them); ``kwargs``: the constructor's
        ``mode``, ``hops``, ``one_chunk``, ``chat``, ``engine_kwargs``. The documents and
        ids are checked before a store is created."""
        vs = cls._checked(documents, embedding, store, ids, kwargs)
        try:
            vs.add_documents(documents, ids=ids)
        except BaseException:
            vs.close()
            raise
        return vs

    @classmethod
    async def afrom_documents(cls, documents: list[Document],
                              embedding: Embeddings | Any = None, *, store: Any = None,
                              ids: Sequence[str | None] | None = None,
                              **kwargs: Any) -> Self:
        """Async :meth:`from_documents` (the engine's async indexing)."""
        vs = cls._checked(documents, embedding, store, ids, kwargs)
        try:
            await vs.aadd_documents(documents, ids=ids)
        except BaseException:
            vs.close()
            raise
        return vs

    @classmethod
    def from_texts(cls, texts: list[str], embedding: Embeddings | Any = None,
                   metadatas: list[dict[str, Any]] | None = None, *,
                   ids: list[str] | None = None, store: Any = None, **kwargs: Any) -> Self:
        """:meth:`from_documents` over ``texts`` (with ``metadatas``, one per text)."""
        return cls.from_documents(_text_documents(texts, metadatas), embedding, store=store,
                                  ids=ids, **kwargs)

    @classmethod
    async def afrom_texts(cls, texts: list[str], embedding: Embeddings | Any = None,
                          metadatas: list[dict[str, Any]] | None = None, *,
                          ids: list[str] | None = None, store: Any = None,
                          **kwargs: Any) -> Self:
        """Async :meth:`from_texts`."""
        return await cls.afrom_documents(_text_documents(texts, metadatas), embedding,
                                         store=store, ids=ids, **kwargs)

    @classmethod
    def _checked(cls, documents: list[Document], embedding: Any, store: Any,
                 ids: Sequence[str | None] | None, kwargs: dict[str, Any]) -> Self:
        """The vector store of ``from_documents``, opened once the documents passed."""
        if store is None:
            raise TypeError(f"{cls.__name__}.from_documents() needs store=<directory, .sqlite "
                            "path, open store or VizRAG engine> (a VizRAG store persists)")
        refuse_unknown(kwargs, _CONSTRUCTOR_OPTIONS, f"{cls.__name__}.from_documents()")
        _engine_documents(documents, ids, {}, one_chunk=bool(kwargs.get("one_chunk", True)),
                          where="from_documents")
        return cls(store, embedding, **kwargs)


def _delete_ids(ids: list[str] | None, kwargs: dict[str, Any], where: str) -> list[str]:
    """``ids`` of a ``delete``: ``None`` (the base class's "delete all") is refused."""
    refuse_unknown(kwargs, (), f"VizRAGVectorStore.{where}")
    if ids is None:
        raise TypeError(f"VizRAGVectorStore.{where} takes a list of document ids, got None: "
                        "VizRAG never deletes a whole store by omission (nothing was deleted)")
    return ids


def _text_documents(texts: Iterable[str], metadatas: list[dict[str, Any]] | None
                    ) -> list[Document]:
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"from_texts() takes a list of strings, got one "
                        f"{type(texts).__name__} (it would be one text per character)")
    texts = list(texts)
    wrong = next((t for t in texts if not isinstance(t, str)), None)
    if wrong is not None:
        raise TypeError(f"from_texts() takes strings, got {type(wrong).__name__}")
    if metadatas is not None and len(metadatas) != len(texts):
        raise ValueError(f"metadatas must hold one dict per text ({len(texts)}), got "
                         f"{len(metadatas)}")
    return [Document(page_content=t, metadata=dict(m or {}))
            for t, m in zip(texts, metadatas or [{}] * len(texts), strict=True)]


_CONSTRUCTOR_OPTIONS = ("mode", "hops", "one_chunk", "chat", "engine_kwargs")
