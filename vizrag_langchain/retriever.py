"""``VizRAGRetriever``: the VizRAG engine as a LangChain ``BaseRetriever``.

Example::

    >>> from vizrag_langchain import VizRAGRetriever
    >>> retriever = VizRAGRetriever(store="out/store", k=4)        # doctest: +SKIP
    >>> docs = retriever.invoke("Who founded Iron Maiden?", k=2)   # doctest: +SKIP
    >>> docs[0].metadata["chunk_id"] == docs[0].id                 # doctest: +SKIP
    True

``include_image=True`` (per retriever or per call) renders the bottom sub-hypergraph and
appends one extra document (``metadata["type"] == "hyperviz_image"``); ``k`` counts text
documents only. The modes that draw no view (``text``, ``naive``) render the sub-hypergraph
of the ranked chunks instead (``metadata["view"] == "passages"``), as the LlamaIndex
retriever does, and the chunks' ``entity_ids``/``hyperedge_ids`` are that image's. Without
it nothing is rendered (a rendering costs most of a retrieval), unless the engine has a
chat/vision model, which then reads the renderings itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor, set_config_context
from langchain_core.runnables.utils import coro_with_context
from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from hyperviz_core.rag import (
    MAX_HOPS,
    MODES,
    RenderedView,
    RetrievalResult,
    VisualContext,
    VizRAG,
    arender_passages,
    check_hops,
    render_passages,
)
from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag.index.report import warn_empty
from hyperviz_core.rag.index.stream import dedupe_last
from hyperviz_core.rag.retrieve.filters import ChunkFilter, MetadataCondition, as_filter

from .documents import (
    derived_id,
    image_document,
    result_documents,
    to_engine_document,
    usage_dict,
)
from .engine import SharedEngine, resolve_engine
from .engine import _unpickle as _unpickle  # pickles made when it lived here still load
from .events import async_event_hook, event_hook
from .options import CALL_OPTIONS, check_flag, check_k, refuse_unknown, unpack_search_kwargs

__all__ = ["VizRAGRetriever", "core_filter"]

#: what ``invoke(query, ...)`` takes per call (the shared options and ``filter``)
_CALL_OPTIONS = (*CALL_OPTIONS, "filter")


def core_filter(value: Any) -> ChunkFilter | None:
    """The engine's :class:`~hyperviz_core.rag.retrieve.filters.ChunkFilter` of a LangChain
    ``filter``: a dict in the vector-store style of PGVector, Chroma and MongoDB
    (``{"key": value}`` equality; ``$eq $ne $gt $gte $lt $lte $in $nin $between $exists
    $like $ilike $contains $not_contains $all $not`` per key; ``$and``/``$or``/``$nor`` lists
    and ``$not`` at the top level:
    :meth:`~hyperviz_core.rag.retrieve.filters.ChunkFilter.from_mongo`), the engine's own
    filter, or ``None``/``{}`` (no filter). A callable (``InMemoryVectorStore``'s
    ``Callable[[Document], bool]``) is a ``TypeError``: the engine filters the chunks it
    ranks, before any LangChain document exists.

    >>> core_filter({"year": {"$gte": 2021}}).filters[0].op
    '>='
    >>> core_filter({"name": {"$like": "Ada%"}}).filters[0].op
    'like'
    """
    if value is None or isinstance(value, ChunkFilter | MetadataCondition):
        return as_filter(value)
    if isinstance(value, Mapping):  # metadata keys, or exactly a retriever's dump of one
        dumped = set(value) == {"filters", "condition"} and isinstance(value["filters"], list)
        return as_filter(value) if dumped else (ChunkFilter.from_mongo(value) if value
                                                else None)
    if callable(value):
        raise TypeError("filter= takes a dict such as {'year': {'$gte': 2021}} (the "
                        "operators $eq $ne $gt $gte $lt $lte $in $nin $between $exists $like "
                        "$ilike $contains $not_contains $all $not $and $or $nor), not a "
                        "callable: VizRAG filters the chunks it ranks by their metadata")
    raise TypeError(f"filter= takes a dict such as {{'year': {{'$gte': 2021}}}}, got "
                    f"{type(value).__name__}")



class VizRAGRetriever(SharedEngine, BaseRetriever):
    """Retrieve ranked passages from a VizRAG store.

    Args:
        store: store directory, ``.sqlite`` path (strings pass through to ``VizRAG``), an
            open store (``HypergraphStore`` or another ``StoreProtocol``) or a ``VizRAG``.
        k: number of text documents returned.
        mode: retrieval mode (``vizrag``, ``text``, ``hyper-lite``, ``naive``).
        hops: sub-hypergraph radius (0-3).
        include_image: append the rendered sub-hypergraph as one extra document.
        chat, embedder: VizRAG or LangChain models for an engine created here (``None`` =
            offline defaults; the embedder must match the one the store was indexed with).
        engine_kwargs: further ``VizRAG(...)`` arguments for an engine created here.
        one_chunk: each document added is one chunk, indexed whole under its id (what a
            LangChain text splitter made; default: the engine windows long documents by its
            ``chunk_size``).
        filter: return only chunks whose metadata passes it (:func:`core_filter`: a dict
            such as ``{"year": {"$gte": 2021}}``; ``doc_id`` names the document id); the
            ranking is masked, not changed.

    ``invoke(q, k=..., mode=..., hops=..., include_image=..., filter=...)`` overrides per
    call (a call's ``filter`` replaces the retriever's; also
    through ``batch``/``ainvoke``/``abatch``). Stage hooks of the engine are reported to
    callback handlers as custom events ``vizrag.<stage>.<phase>``.
    """

    store: Any = Field(exclude=True)
    k: int = Field(default=4, ge=1)
    mode: str = "vizrag"
    hops: int = Field(default=1, ge=0, le=MAX_HOPS)
    include_image: bool = False
    one_chunk: bool = False
    chat: Any = Field(default=None, exclude=True)
    embedder: Any = Field(default=None, exclude=True)
    engine_kwargs: dict[str, Any] = Field(default_factory=dict)
    filter: ChunkFilter | None = None

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_options(cls, data: Any) -> Any:
        """A misspelt option (``top_k=3``) is a ``TypeError`` saying the name (``k``), not
        pydantic's "Extra inputs are not permitted"; ``search_kwargs={"k": 2}`` (a vector
        store retriever's spelling) sets ``k`` (:func:`~.options.unpack_search_kwargs`)."""
        if isinstance(data, dict):
            data = unpack_search_kwargs(data, "VizRAGRetriever", filter_ok=True)
            refuse_unknown(data, cls.model_fields, "VizRAGRetriever")
        return data

    @field_validator("mode")
    @classmethod
    def _check_mode(cls, mode: str) -> str:
        if mode not in MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}; valid modes: {', '.join(MODES)}")
        return mode

    @field_validator("filter", mode="before")
    @classmethod
    def _filter(cls, value: Any) -> ChunkFilter | None:
        return core_filter(value)

    @field_validator("k", "hops", "include_image", "one_chunk", mode="before")
    @classmethod
    def _strict(cls, value: Any, info: ValidationInfo) -> Any:
        """As strict as a call's options: no ``"3"`` → 3, ``True`` → 1, ``2.0`` → 2 or
        ``"yes"`` → True (pydantic's lax coercion), with the same messages."""
        return _STRICT[str(info.field_name)](value)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        self._open()  # after validation: a store error is raised as it is (pydantic would
        # wrap it in a ValidationError whose details carry the raw URL and its password)

    def _open(self) -> None:
        """Open (or adopt) the engine now, so a bad store fails at construction."""
        self._open_engine(self.store, chat=self.chat, embedder=self.embedder,
                          engine_kwargs=self.engine_kwargs)

    @classmethod
    def _over(cls, engine: VizRAG, store: Any, *, chat: Any = None, embedder: Any = None,
             engine_kwargs: dict[str, Any] | None = None, **options: Any) -> VizRAGRetriever:
        """A retriever over ``engine``, just opened for ``store`` with these models: over a
        path it keeps the path and the models (so it pickles, reopening the store) and
        closes the engine on :meth:`close`; over a store object or engine, ``store=engine``."""
        if not isinstance(store, (str, Path)):
            return cls(store=engine, **options)
        out = cls(store=str(store), shared_engine=engine, chat=chat, embedder=embedder,
                  engine_kwargs=engine_kwargs or {}, **options)
        out._owned = True
        return out

    @classmethod
    def from_documents(cls, documents: Sequence[Document], store: Any, *, chat: Any = None,
                       embedder: Any = None, engine_kwargs: dict[str, Any] | None = None,
                       ids: Sequence[str | None] | None = None,
                       **kwargs: Any) -> VizRAGRetriever:
        """Index LangChain ``documents`` into ``store`` and return a retriever over it.

        ``store``: a directory or ``.sqlite`` path (created when missing), an open store or
        a ``VizRAG``; ``chat``/``embedder``: models for extraction and embeddings (``None``
        = offline); ``kwargs``: the retriever's ``k``, ``mode``, ``hops``,
        ``include_image`` (or ``search_kwargs={"k": ...}``), ``one_chunk``; ``ids``: as
        :meth:`add_documents` takes them. The retriever's options and the documents are
        checked before a store is created.
        """
        kwargs = unpack_search_kwargs(kwargs, "from_documents()", filter_ok=True)
        refuse_unknown(kwargs, [n for n in cls.model_fields if n not in _NOT_OPTIONS],
                       "from_documents()")
        blank = cls.model_construct(store=None)  # each option checked as __init__ will
        for name, value in kwargs.items():
            cls.__pydantic_validator__.validate_assignment(blank, name, value)
        docs = _distinct(_engine_documents(documents, ids, {}, one_chunk=blank.one_chunk,
                                           where="from_documents"))  # before a store exists
        engine = resolve_engine(store, chat=chat, embedder=embedder,
                                engine_kwargs=engine_kwargs)
        owned = isinstance(store, (str, Path))  # close() closes what we opened
        try:
            retriever = cls._over(engine, store, chat=chat, embedder=embedder,
                                 engine_kwargs=engine_kwargs, **kwargs)
            retriever._insert(_distinct(retriever._earlier_ids(docs)))  # checked above
        except BaseException:
            if owned:  # nobody else can close the engine opened for this path
                engine.close()
            raise
        return retriever

    def add_documents(self, documents: Sequence[Document], *,
                      ids: Sequence[str | None] | None = None,
                      **kwargs: Any) -> list[str]:
        """Index ``documents`` (one engine document each) and return their ids: ``ids[i]``
        when given (as a LangChain vector store takes them; ``None`` or ``""`` in it falls
        back), else ``doc.id``, else ``doc-<hash of title, text and metadata>`` (so chunks
        with the same text from two files are two documents). Re-adding unchanged content is
        a no-op; a changed document with the same id replaces the old one. One id given twice
        in a call: an identical repeat is indexed once; two different documents under one id
        are a ``ValueError`` (nothing is added). Other options raise ``TypeError`` (nothing
        is silently ignored)."""
        docs = self._earlier_ids(
            _engine_documents(documents, ids, kwargs, one_chunk=self.one_chunk))
        self._insert(_distinct(docs))
        return [d.id for d in docs]

    def _earlier_ids(self, docs: list[VizDocument]) -> list[VizDocument]:
        """``docs``, each id derived from its content kept as an earlier version stored it:
        ids without metadata in them (``doc-<hash of title + text>``, before 2026-12-05) name
        a stored document with the same title, text and metadata, so re-adding it stays a
        no-op instead of a second copy under the new id."""
        derived = [d for d in docs if d.metadata and d.id == derived_id(d)]
        if not derived:  # ids given, or no metadata: each id is what it always was
            return docs
        store = self._engine.store
        olds = {d.id: VizDocument(text=d.text, title=d.title).id for d in derived}
        stored = {s.id: s for s in store.documents(sorted(set(olds.values())))}  # one read
        for doc in derived:
            old = stored.get(olds[doc.id])
            if (old is not None and old.metadata == doc.metadata
                    and not store.has_document(doc.id)):
                doc.id = old.id
        return docs

    def _insert(self, docs: list[VizDocument]) -> None:
        if docs:
            report = self._engine.insert(docs)
            report.raise_for_failures()
            warn_empty(report, stacklevel=3)

    async def aadd_documents(self, documents: Sequence[Document], *,
                             ids: Sequence[str | None] | None = None,
                             **kwargs: Any) -> list[str]:
        """Async :meth:`add_documents`."""
        docs = self._earlier_ids(_engine_documents(documents, ids, kwargs,
                                                   one_chunk=self.one_chunk,
                                                   where="aadd_documents"))
        if docs:
            report = await self._engine.ainsert(_distinct(docs))
            report.raise_for_failures()
            warn_empty(report)
        return [d.id for d in docs]

    def delete(self, ids: Sequence[str]) -> None:
        """Delete documents by id, with whatever only they supported (both layers), in one
        store transaction: all of them, or none when anything fails.

        As a LangChain vector store's ``delete``, it takes the ids :meth:`add_documents`
        returned **or the ids of retrieved documents** (``[d.id for d in docs]``: chunk
        ids): a chunk id deletes the whole document it is a chunk of
        (``metadata["doc_id"]``; a document added whole, ``one_chunk=True`` or shorter than
        a chunk, is its one chunk). Ids that name neither a document nor a chunk are
        ignored, as ``InMemoryVectorStore.delete`` ignores them."""
        if ids is None or isinstance(ids, str):
            raise TypeError(f"delete() takes a list of document ids, got {ids!r:.80} (nothing "
                            "was deleted; VizRAG deletes only documents named by id)")
        # a non-string id: the engine's TypeError before anything goes
        self._engine.delete_many(self._document_ids(list(ids)))

    def _document_ids(self, ids: list[Any]) -> list[Any]:
        """``ids`` with each chunk id (one not a document's) replaced by its document's."""
        store = self._engine.store
        chunk_ids = [i for i in ids if isinstance(i, str) and not store.has_document(i)]
        owner = {c.id: c.doc_id for c in store.chunks(chunk_ids)} if chunk_ids else {}
        return [owner.get(i, i) if isinstance(i, str) else i for i in ids]

    async def adelete(self, ids: Sequence[str]) -> None:
        """Async :meth:`delete` (the store transaction runs in a worker thread, so the event
        loop is not blocked)."""
        await run_in_executor(None, self.delete, ids)

    @property
    def engine(self) -> VizRAG:
        """The VizRAG engine behind this retriever."""
        return self._engine

    # ------------------------------------------------------------------ helpers
    def _options(self, k: int | None, mode: str | None, hops: int | None,
                 include_image: bool | None, flt: Any = None
                 ) -> tuple[int, dict[str, Any], bool]:
        n = self.k if k is None else check_k(k)
        chosen = self.filter if flt is None else core_filter(flt)
        if mode is not None:
            self._check_mode(mode)
        if hops is not None:
            check_hops(hops)
        if include_image is not None:
            check_flag("include_image", include_image)
        image = self.include_image if include_image is None else include_image
        # Render only for an asked-for image, or for the engine's own vision model
        # (None = the engine's setting), never just for the wrapper.
        render = True if image else (None if self._engine.chat is not None else False)
        opts = {"mode": self.mode if mode is None else mode, "top_k": n,
                "hops": self.hops if hops is None else hops, "render": render}
        if image:  # the image document is I_bot's: I_top is not drawn for it
            opts["render_views"] = ("bottom",)
        if chosen is not None:
            opts["filters"] = chosen
        return n, opts, image

    @staticmethod
    def _check_query(query: Any) -> None:
        if not isinstance(query, str):
            raise TypeError(f"VizRAGRetriever takes the question as a string, got "
                            f"{type(query).__name__}")

    @staticmethod
    def _passages(result: RetrievalResult, n: int, image: bool) -> list[tuple[str, str]]:
        """The passages to render when an image is asked for and the mode drew no view
        (``text``, ``naive``) or its views show nothing (a filter none of them passes): the
        sub-hypergraph of the ranked chunks is drawn instead."""
        if not image or _view(result) is not None:
            return []
        return result.passages(n)

    @staticmethod
    def _documents(result: RetrievalResult, n: int, image: bool,
                   passages: VisualContext | None = None) -> list[Document]:
        shown = passages is not None and not passages.is_empty
        docs = result_documents(result, n, passages.export if shown and passages else None)
        view: RenderedView | VisualContext | None = _view(result)
        name = "bottom" if view is not None and view is result.bottom_view else "top"
        if shown:  # the rendering of the ranked chunks: its E#/H# label them
            view, name = passages, "passages"
        elif not image:
            view = None
        if view is not None and docs:  # after the passages it shows, scored like the
            # weakest one (no passage, e.g. a filter nothing passes: no drawing of nothing)
            scores = [c.score for c in result.chunks[:n]]
            docs.append(image_document(view, view_name=name, query=result.query,
                                       mode=result.mode, score=min(scores, default=0.0),
                                       rank=len(docs) + 1, unmatched=result.unmatched,
                                       usage=usage_dict(result)))
        return docs

    # ------------------------------------------------------------------ retrieval
    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None, mode: str | None = None, hops: int | None = None,
        include_image: bool | None = None, filter: Any = None, **other: Any,
    ) -> list[Document]:
        refuse_unknown(other, _CALL_OPTIONS, "VizRAGRetriever.invoke()")
        self._check_query(query)
        n, opts, image = self._options(k, mode, hops, include_image, filter)
        hook = event_hook(run_manager)
        if self._engine.chat is None or not run_manager.handlers:
            result = self._engine.retrieve(query, hooks=[hook] if hook else None, **opts)
        else:  # the engine's LangChain model calls become child runs of this retrieval
            with set_config_context({"callbacks": run_manager.get_child()}) as ctx:
                result = ctx.run(self._engine.retrieve, query, hooks=[hook] if hook else None,
                                 **opts)
        passages = self._passages(result, n, image)
        drawn = (render_passages(passages, store=self._engine.store, query=query,
                                 hooks=[hook] if hook else (), filters=opts.get("filters"))
                 if passages else None)
        return self._documents(result, n, image, drawn)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None, mode: str | None = None, hops: int | None = None,
        include_image: bool | None = None, filter: Any = None, **other: Any,
    ) -> list[Document]:
        refuse_unknown(other, _CALL_OPTIONS, "VizRAGRetriever.ainvoke()")
        self._check_query(query)
        n, opts, image = self._options(k, mode, hops, include_image, filter)
        hook = async_event_hook(run_manager)
        call = self._engine.aretrieve(query, hooks=[hook] if hook else None, **opts)
        if self._engine.chat is None or not run_manager.handlers:
            result = await call
        else:  # the engine's LangChain model calls become child runs of this retrieval
            with set_config_context({"callbacks": run_manager.get_child()}) as ctx:
                result = await coro_with_context(call, ctx)
        passages = self._passages(result, n, image)
        drawn = (await arender_passages(passages, store=self._engine.store, query=query,
                                        hooks=[hook] if hook else (),
                                        filters=opts.get("filters")) if passages else None)
        return self._documents(result, n, image, drawn)


def _view(result: RetrievalResult) -> RenderedView | None:
    """The view an image document shows: I_bot, else I_top, one that shows something."""
    return next((v for v in (result.bottom_view, result.top_view)
                 if v is not None and not v.is_empty), None)


def _engine_documents(documents: Sequence[Document], ids: Sequence[str | None] | None,
                      options: dict[str, Any], *, one_chunk: bool = False,
                      where: str = "add_documents") -> list[VizDocument]:
    """One engine document per LangChain document (``where``: the method named in errors)."""
    if options:
        raise TypeError(f"{where} got unknown option(s) {sorted(options)}; it takes "
                        "documents and ids")
    if isinstance(documents, (str, bytes, Document)):
        raise TypeError(f"{where} takes a list of langchain_core.documents.Document objects, "
                        f"got one {type(documents).__name__}")
    wrong = next((d for d in documents if not isinstance(d, Document)), None)
    if wrong is not None:
        raise TypeError(f"{where} takes langchain_core.documents.Document objects, got "
                        f"{type(wrong).__name__}")
    if ids is None:
        return [to_engine_document(d, one_chunk=one_chunk) for d in documents]
    if isinstance(ids, str) or len(ids) != len(documents):
        raise ValueError(f"ids must be a list with one id per document ({len(documents)}), "
                         f"got {ids!r:.80}")
    bad = [i for i in ids if i is not None and not isinstance(i, str)]
    if bad:
        raise TypeError(f"ids must be strings (or None for doc.id / a hash), got {bad[0]!r}")
    # None (LangChain builds [d.id for d in docs]) falls back to doc.id, else the hash
    return [to_engine_document(d, doc_id=i or None, one_chunk=one_chunk)
            for d, i in zip(documents, ids, strict=True)]


def _distinct(docs: list[VizDocument]) -> list[VizDocument]:
    """``docs`` with each id once (the core's :func:`~hyperviz_core.rag.index.stream.
    dedupe_last`: an identical repeat is indexed once), refused when two of them share an id
    with different content (one would silently replace the other)."""
    seen: dict[str, VizDocument] = {}
    for doc in docs:
        first = seen.setdefault(doc.id, doc)
        if first is not doc and first.model_dump() != doc.model_dump():
            raise ValueError(f"two documents of one call have the id {doc.id!r} and different "
                             "content: give them distinct ids (nothing was added)")
    return dedupe_last(docs) if len(seen) < len(docs) else docs


#: fields of the retriever that are not options of ``from_documents(**kwargs)``
_NOT_OPTIONS = frozenset({"store", "chat", "embedder", "engine_kwargs", "shared_engine"})

_STRICT: dict[str, Callable[[Any], Any]] = {
    "k": check_k, "hops": check_hops,
    "include_image": lambda value: check_flag("include_image", value),
    "one_chunk": lambda value: check_flag("one_chunk", value)}
