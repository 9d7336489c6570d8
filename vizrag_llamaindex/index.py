"""``VizRAGIndex``: a LlamaIndex index whose documents live in a VizRAG store.

Documents go to the engine whole, by ``doc.id_``; the engine chunks, extracts and embeds them
(LlamaIndex's ``SentenceSplitter`` is never applied, so nothing is chunked twice and no random
node id creates a duplicate). Re-inserting an unchanged document is a no-op, a changed one
replaces the old version, and ``delete_ref_doc`` removes the document and whatever only it
supported from both hypergraph layers.

Without ``store_dir`` the store lives in a temporary directory owned by the index;
``index.storage_context.persist(persist_dir=D)`` copies it to ``D/vizrag.sqlite`` next to the
JSON files, and ``load_index_from_storage(StorageContext.from_defaults(persist_dir=D))``
reopens it (in any process that imported :mod:`vizrag_llamaindex`).

Example:
    >>> from llama_index.core import Document
    >>> index = VizRAGIndex.from_documents(
    ...     [Document(text="Marie Curie worked with Pierre Curie in Paris.", id_="curie")])
    >>> sorted(index.ref_doc_info)
    ['curie']
    >>> index.insert(Document(text="Marie Curie worked with Pierre Curie in Paris.",
    ...                       id_="curie"))      # unchanged: a no-op
    >>> index.engine.stats().documents
    1
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import warnings
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.chat_engine.types import BaseChatEngine, ChatMode
from llama_index.core.data_structs.data_structs import IndexStruct
from llama_index.core.data_structs.registry import INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS
from llama_index.core.indices.base import BaseIndex
from llama_index.core.indices.registry import INDEX_STRUCT_TYPE_TO_INDEX_CLASS
from llama_index.core.llms import LLM
from llama_index.core.schema import BaseNode, Document, TransformComponent
from llama_index.core.storage.docstore.types import RefDocInfo
from llama_index.core.storage.storage_context import StorageContext

from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag import IndexReport, VizRAG
from hyperviz_core.rag.engine_args import refuse_unknown_options
from hyperviz_core.rag.index.report import warn_empty
from hyperviz_core.rag.index.stream import caller_level
from hyperviz_core.rag.store import StoreNotFoundError, StoreProtocol, redact_url

from .adapters import LlamaIndexChatModel, LlamaIndexEmbedder
from .documents import (
    asplit_documents,
    check_nodes,
    latest_documents,
    node_documents,
    ref_doc_of,
    replaced,
    split_documents,
    stored_nodes,
    to_engine_document,
    unchanged,
)
from .lifecycle import IndexLifecycle, close_owned
from .nodes import user_metadata
from .options import (
    check_documents,
    check_engine_options,
    check_models,
    engine_option_names,
    recorded_options,
    warn_embedded,
    warn_skipped,
)
from .query import build_query_engine, multimodal_chat_engine
from .retriever import RETRIEVER_OPTIONS, VizRAGRetriever, check_options, not_picklable
from .storage import (
    VizRAGStorageContext,
    backup_store,
    loaded_embedder_error,
    loaded_store_path,
    persist_dir_of,
)

__all__ = ["INDEX_TYPE", "IndexVizRAG", "VizRAGIndex", "ref_doc_of", "to_engine_document"]

log = logging.getLogger(__name__)

INDEX_TYPE = "vizrag"


@dataclass
class IndexVizRAG(IndexStruct):
    """The index struct: where the VizRAG store is (absolute path; set on persist)."""

    store_path: str | None = None
    persist_file: str | None = None
    """The store's file name in the persist directory, set on persist: loaded from a persist
    directory, the index opens that file there (a copied or moved directory opens its own
    copy; :func:`~.storage.loaded_store_path`), ``store_path`` only otherwise."""
    transformed: bool = False
    """Documents were indexed through transformations, or nodes of a document were
    inserted: later writes of a document replace its nodes even without transformations."""
    engine_options: dict[str, Any] = field(default_factory=dict)
    """The JSON-valued ``VizRAG`` options the index was opened with (``top_k``, ``mode``,
    ``chunk_size`` ...), given to the engine again when it is loaded."""

    @classmethod
    def get_type(cls) -> str:  # type: ignore[override]
        return INDEX_TYPE


Stored = dict[str, list[VizDocument]]
"""What :func:`~.documents.stored_nodes` read: document id → its stored engine documents."""


class VizRAGIndex(IndexLifecycle, BaseIndex[IndexVizRAG]):
    """A LlamaIndex index over a VizRAG store (see the module docstring).

    Args:
        nodes: optional nodes to index (each becomes one engine document, by node id).
        llm: a LlamaIndex LLM for extraction, keywords and locate (default: offline).
        embed_model: a LlamaIndex embedding model (default: offline hashed embeddings; must
            be the one the store was built with).
        store_dir: the store directory (default: a temporary directory owned by the index).
        engine: an open ``VizRAG`` engine to wrap instead (``llm``/``embed_model`` ignored).
        engine_options: ``VizRAG`` keyword arguments (``mode``, ``top_k``, ``hops``,
            ``chunk_size``, ``extractor`` ...); those with JSON values are recorded in the
            index struct and used again by ``load_index_from_storage`` (its own keyword
            arguments win), the others (objects) are named in a warning on persist.

    ``close(timeout=None)``, ``await aclose(timeout=None)``, ``with`` and ``async with``
    close what the index opened (:mod:`~vizrag_llamaindex.lifecycle`): queries in flight
    are waited for, and a temporary store directory is removed only after them.
    """

    index_struct_cls = IndexVizRAG

    def __init__(
        self,
        nodes: Sequence[BaseNode] | None = None,
        *,
        index_struct: IndexVizRAG | None = None,
        storage_context: StorageContext | None = None,
        llm: LLM | None = None,
        embed_model: BaseEmbedding | None = None,
        store_dir: str | Path | None = None,
        engine: VizRAG | None = None,
        callback_manager: CallbackManager | None = None,
        transformations: list[TransformComponent] | None = None,
        show_progress: bool = False,
        **engine_options: Any,
    ) -> None:
        check_models(llm, embed_model)  # before any store is created
        check_engine_options(engine_options)
        if nodes is not None:
            check_documents(nodes, "VizRAGIndex(nodes)")
            check_nodes(list(nodes))
        self._llm = llm
        #: only transformations passed here apply (not ``Settings.transformations``)
        self._splitters: list[TransformComponent] = list(transformations or [])
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        struct = index_struct or IndexVizRAG()
        owned = engine is None
        #: engine options a persist cannot record (objects), named once when persisting
        self._unrecorded: list[str] = []
        context = VizRAGStorageContext.wrap(storage_context or StorageContext.from_defaults())
        context.refuse_second(struct.index_id)  # before a store_dir is made
        if engine is None:
            engine_options = {**struct.engine_options, **engine_options}  # explicit win
            struct.engine_options, self._unrecorded = recorded_options(engine_options)
            engine = self._open(struct, llm, embed_model, store_dir, show_progress,
                                engine_options, loading=index_struct is not None,
                                context=storage_context)
        elif store_dir is not None or engine_options:
            raise ValueError("pass either engine= or store_dir/engine options, not both")
        if self._splitters:  # objects too: a reloaded index chunks new documents otherwise
            self._unrecorded.append("transformations")
        if store_dir is not None or index_struct is None:
            struct.store_path = None if self._tmp else str(Path(engine.store.path).resolve())
            struct.persist_file = None
        self._engine = engine
        self._owns_engine = owned
        # close only what the index opened (a caller's engine stays open)
        self._finalizer = weakref.finalize(self, close_owned, engine if owned else None,
                                           self._tmp)
        super().__init__(index_struct=struct, storage_context=context,
                         callback_manager=callback_manager, show_progress=show_progress,
                         transformations=transformations or [])
        context.attach(self)
        if nodes:
            self._insert(nodes)

    def _open(self, struct: IndexVizRAG, llm: LLM | None, embed_model: BaseEmbedding | None,
              store_dir: str | Path | None, show_progress: bool,
              options: dict[str, Any], *, loading: bool,
              context: StorageContext | None) -> VizRAG:
        persist_dir = persist_dir_of(context)
        recorded = store_dir is None and loading
        if recorded:
            store_dir = loaded_store_path(struct.store_path, struct.persist_file, persist_dir)
            if not store_dir:
                raise ValueError(
                    "this VizRAGIndex was persisted without its store: persist it with "
                    "index.storage_context.persist(persist_dir=...) (the index's own storage "
                    "context), or pass store_dir= to load_index_from_storage")
        warn_settings(llm, embed_model)
        if store_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="vizrag-llamaindex-")
            store_dir = self._tmp.name
        chat = LlamaIndexChatModel(llm) if llm is not None else None
        embedder = LlamaIndexEmbedder(embed_model) if embed_model is not None else None
        if loading:  # a loaded index reads the store it recorded; never a new empty one
            options = {**options, "must_exist": True}
        try:
            return VizRAG(store_dir, chat=chat, embedder=embedder,
                          show_progress=show_progress, **options)
        except BaseException as exc:
            if self._tmp is not None:  # nothing of a failed index is left behind
                self._tmp.cleanup()
                self._tmp = None
            if recorded and isinstance(exc, StoreNotFoundError):
                raise _missing_store(str(store_dir), struct, persist_dir) from None
            mismatch = (loaded_embedder_error(exc, struct.index_id, embed_model, context)
                        if loading and embed_model is not None else None)
            if mismatch is not None:
                raise mismatch from exc
            raise

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_documents(  # type: ignore[override]
        cls,
        documents: Sequence[Document],
        llm: LLM | None = None,
        embed_model: BaseEmbedding | None = None,
        store_dir: str | Path | None = None,
        show_progress: bool = False,
        storage_context: StorageContext | None = None,
        callback_manager: CallbackManager | None = None,
        transformations: list[TransformComponent] | None = None,
        **engine_options: Any,
    ) -> VizRAGIndex:
        """Index ``documents`` (a list): each handed to the engine whole (by ``doc.id_``), or,
        with ``transformations``, the nodes they make, grouped under the document's id."""
        check_documents(documents, "from_documents()")  # before a store is made
        check_nodes(list(documents))  # (a lone surrogate, an image, not a node: no store)
        index = cls(llm=llm, embed_model=embed_model, store_dir=store_dir,
                    show_progress=show_progress, storage_context=storage_context,
                    callback_manager=callback_manager, transformations=transformations,
                    **engine_options)
        index._add(list(documents))
        return index

    @classmethod
    def from_store(cls, store_dir: str | Path, *, llm: LLM | None = None,
                   embed_model: BaseEmbedding | None = None, **kwargs: Any) -> VizRAGIndex:
        """Open an existing VizRAG store (e.g. built by ``vizrag index``): a directory or
        ``.sqlite`` file, or a store URL (``postgresql://...``, given to the engine as is)."""
        return cls(store_dir=store_dir, llm=llm, embed_model=embed_model, must_exist=True,
                   **kwargs)

    # ------------------------------------------------------------------ properties
    @property
    def engine(self) -> VizRAG:
        """The wrapped ``VizRAG`` engine."""
        return self._engine

    @property
    def store(self) -> StoreProtocol:
        """The engine's store."""
        return self._engine.store

    @property
    def ref_doc_info(self) -> dict[str, RefDocInfo]:
        """Document id → its chunk ids and metadata, read from the store (the nodes inserted
        from one document grouped under its id)."""
        store = self._engine.store
        out: dict[str, RefDocInfo] = {}
        for doc in store.documents():
            ref = ref_doc_of(doc)
            info = out.setdefault(ref, RefDocInfo(node_ids=[],
                                                  metadata=user_metadata(doc.metadata)))
            info.node_ids.extend(store.chunk_ids(doc.id))
        return out

    # ------------------------------------------------------------------ writes
    def _split(self, docs: Sequence[BaseNode]) -> tuple[list[Document], list[BaseNode]]:
        """(documents that replace what is stored of them, nodes indexed as they are)."""
        if not self._splitters and not self._index_struct.transformed:
            return [], list(docs)
        return ([d for d in docs if isinstance(d, Document)],
                [d for d in docs if not isinstance(d, Document)])

    def _add(self, docs: Sequence[BaseNode], stored: Stored | None = None) -> None:
        """Index documents (through the transformations, if any) and nodes (as they are);
        ``stored``: what :func:`stored_nodes` read of these documents already, if any."""
        check_nodes(docs)
        warn_embedded(docs)
        whole, nodes = self._split(docs)
        if whole:
            parts = (split_documents(whole, self._splitters, self._show_progress)
                     if self._splitters else [to_engine_document(d) for d in whole])
            self._replace(whole, parts, stored)
        if nodes:
            self._mark_nodes(nodes)
            self._report(self._engine.insert(node_documents(nodes)))

    async def _aadd(self, docs: Sequence[BaseNode], stored: Stored | None = None) -> None:
        check_nodes(docs)
        warn_embedded(docs)
        whole, nodes = self._split(docs)
        if whole:
            parts = (await asplit_documents(whole, self._splitters, self._show_progress)
                     if self._splitters else [to_engine_document(d) for d in whole])
            await asyncio.to_thread(self._replace, whole, parts, stored)
        if nodes:
            self._mark_nodes(nodes)
            self._report(await self._engine.ainsert(node_documents(nodes)))

    def _mark_nodes(self, nodes: Sequence[BaseNode]) -> None:
        """Nodes of a document (its SOURCE, not themselves) make the index one that stores
        documents as nodes: a later ``update_ref_doc``/``refresh_ref_docs`` of that document
        replaces its nodes instead of writing it beside them."""
        if not self._index_struct.transformed and not all(
                n.ref_doc_id in (None, n.node_id) for n in nodes):
            self._mark_transformed()

    def _mark_transformed(self) -> None:
        """Record (once, with the index when persisted) that documents are stored as
        nodes: later writes of a document replace its nodes."""
        if not self._index_struct.transformed:
            self._index_struct.transformed = True
            self._storage_context.index_store.add_index_struct(self._index_struct)

    def _replace(self, documents: Sequence[Document], parts: Sequence[VizDocument],
                 stored: Stored | None = None) -> None:
        """Write the transformed ``parts``, then delete what earlier runs made from these
        documents and this run did not (nothing is deleted when the write fails), as the
        engine replaces a text file's parts (:mod:`hyperviz_core.rag.index.replace`): two
        store transactions. A run that stops between them leaves old and new nodes
        stored; each new node records the set its run made (:func:`~.documents.run_marker`),
        so ``refresh_ref_docs`` finds the set doubled (or, after a failed write, incomplete)
        and writes the document again, which deletes every node but the new ones."""
        refs = [d.doc_id for d in documents]
        if stored is None:
            stored = stored_nodes(self._engine.store, refs)
        stale = replaced(stored, refs, [p.id for p in parts])
        if self._splitters:
            self._mark_transformed()
        if parts:  # a failed part raises here, before anything of the old version goes
            self._report(self._engine.insert(list(parts)))
        if stale:  # one transaction: the old version goes whole or stays whole
            self._engine.delete_many(sorted(stale))

    @staticmethod
    def _report(report: IndexReport) -> None:
        """Raise for failed documents; warn when extraction records were skipped."""
        report.raise_for_failures()
        level = caller_level()  # the caller's line (``insert``, ``VizRAGIndex(nodes)`` ...)
        warn_skipped(report, stacklevel=level)
        warn_empty(report, stacklevel=level)

    def _build_index_from_nodes(self, nodes: Sequence[BaseNode],
                                **build_kwargs: Any) -> IndexVizRAG:
        self._add(nodes)
        return self._index_struct

    def _insert(self, nodes: Sequence[BaseNode], **insert_kwargs: Any) -> None:
        self._add(nodes)

    def insert(self, document: Document, **insert_kwargs: Any) -> None:
        """Index one document by ``document.id_`` (unchanged: no-op; changed: replaced)."""
        self._add([document])

    async def ainsert(self, document: Document, **insert_kwargs: Any) -> None:
        """Async :meth:`insert`."""
        await self._aadd([document])

    def insert_nodes(self, nodes: Sequence[BaseNode], **insert_kwargs: Any) -> None:
        """Index nodes as documents (one engine document per node id)."""
        self._add(nodes)

    async def ainsert_nodes(self, nodes: Sequence[BaseNode], **insert_kwargs: Any) -> None:
        """Async :meth:`insert_nodes`."""
        await self._aadd(nodes)

    def update_ref_doc(self, document: Document, **update_kwargs: Any) -> None:
        """Replace a document (one transaction in the store)."""
        self._add([document])

    async def aupdate_ref_doc(self, document: Document, **update_kwargs: Any) -> None:
        """Async :meth:`update_ref_doc`."""
        await self._aadd([document])

    def _changed(self, documents: Sequence[Document]
                 ) -> tuple[list[bool], list[Document], Stored | None]:
        """Per document, whether its id is new or changed — judged on the last document of
        each id, the one kept (as the engine keeps the last of one id) —, the documents to
        write, and (with transformations) what is stored of them, read once for the write."""
        check_nodes(documents)
        store = self._engine.store
        latest = latest_documents(documents)
        stored = None
        if self._splitters or self._index_struct.transformed:  # documents stored as nodes
            stored = stored_nodes(store, [d.doc_id for d in latest])
            flags = [not same for same in unchanged(stored, latest)]
        else:
            flags = []
            for doc in latest:
                conv = to_engine_document(doc)
                flags.append(store.document_hash(conv.id) != conv.hash)
        by_id = {d.doc_id: f for d, f in zip(latest, flags, strict=True)}
        return ([by_id[d.doc_id] for d in documents], [d for d in latest if by_id[d.doc_id]],
                stored)

    def refresh_ref_docs(self, documents: Sequence[Document],
                         **update_kwargs: Any) -> list[bool]:
        """Insert new and changed documents; True for each one that was (re)indexed (of
        two documents with one id the last counts, and both positions say what it did)."""
        changed, todo, stored = self._changed(documents)
        self._add(todo, stored)
        return changed

    async def arefresh_ref_docs(self, documents: Sequence[Document],
                                **update_kwargs: Any) -> list[bool]:
        """Async :meth:`refresh_ref_docs`."""
        changed, todo, stored = await asyncio.to_thread(self._changed, documents)
        await self._aadd(todo, stored)
        return changed

    def delete_nodes(self, node_ids: list[str], delete_from_docstore: bool = False,
                     **delete_kwargs: Any) -> None:
        """Delete engine documents by id, in one store transaction; every id is checked
        first, so a list holding one that is not a document deletes nothing, and a failure
        midway (e.g. re-embedding what they shared) deletes none. VizRAG reads no other
        keyword argument: any other is a ``TypeError`` naming it (never dropped)."""
        _check_delete_kwargs(delete_kwargs, "delete_nodes()")
        self._check_node_ids(node_ids)
        self._engine.delete_many(node_ids)
        for node_id in node_ids if delete_from_docstore else ():
            self.docstore.delete_document(node_id, raise_error=False)
        self._storage_context.index_store.add_index_struct(self._index_struct)

    async def adelete_nodes(self, node_ids: list[str], delete_from_docstore: bool = False,
                            **delete_kwargs: Any) -> None:
        """Async :meth:`delete_nodes` (the store write runs in a worker thread)."""
        _check_delete_kwargs(delete_kwargs, "adelete_nodes()")
        self._check_node_ids(node_ids)
        await asyncio.to_thread(self._engine.delete_many, node_ids)
        for node_id in node_ids if delete_from_docstore else ():
            await self.docstore.adelete_document(node_id, raise_error=False)
        await self._storage_context.index_store.async_add_index_struct(self._index_struct)

    def _check_node_ids(self, node_ids: Sequence[str]) -> None:
        if isinstance(node_ids, str):
            raise TypeError("delete_nodes() takes a list of node ids")
        for node_id in node_ids:
            if not isinstance(node_id, str):
                raise TypeError(f"node ids must be strings, not {type(node_id).__name__}")
            self._check_node(node_id)

    def _check_node(self, node_id: str) -> None:
        if not self._engine.store.has_document(node_id):
            raise ValueError(f"VizRAG deletes whole documents; {node_id!r} is not a document "
                             "id (use delete_ref_doc(ref_doc_id))")

    def _delete_node(self, node_id: str, **delete_kwargs: Any) -> None:
        self._check_node(node_id)
        self._engine.delete(node_id)

    def delete_ref_doc(self, ref_doc_id: str, delete_from_docstore: bool = False,
                       **delete_kwargs: Any) -> None:
        """Delete a document (with the nodes inserted from it) and whatever only it
        supported (both layers, vectors), in one store transaction: when anything fails
        midway, every node of it is still there. An id that is no document is logged as
        LlamaIndex's indexes log it ("not found, nothing deleted"), naming the document to
        delete when the id is a retrieved chunk's (``node.node_id``: use
        ``node.ref_doc_id``); a keyword argument VizRAG does not read is a ``TypeError``."""
        _check_delete_kwargs(delete_kwargs, "delete_ref_doc()")
        if not isinstance(ref_doc_id, str):
            raise TypeError(f"delete_ref_doc() takes one document id (a string), not "
                            f"{type(ref_doc_id).__name__}")
        store = self._engine.store
        # the whole document and the nodes inserted from it (each an engine document of
        # its own; both can be there when transformations came or went)
        ids = replaced(stored_nodes(store, [ref_doc_id]), [ref_doc_id], kept=())
        if not ids:
            log.warning("ref_doc_id %s not found, nothing deleted.%s", ref_doc_id,
                        self._chunk_hint(ref_doc_id))
            return
        self._engine.delete_many(sorted(ids))  # one transaction: all of them or none

    def _chunk_hint(self, chunk_id: str) -> str:
        """When ``chunk_id`` is a stored chunk's id, which document to delete instead."""
        store = self._engine.store
        found = store.chunks([chunk_id])
        doc = store.get_document(found[0].doc_id) if found else None
        if doc is None:
            return ""
        return (f" It is the id of a chunk (a retrieved node) of document "
                f"{ref_doc_of(doc)!r}: delete_ref_doc({ref_doc_of(doc)!r}) deletes that "
                "document (node.ref_doc_id names it)")

    async def adelete_ref_doc(self, ref_doc_id: str, delete_from_docstore: bool = False,
                              **delete_kwargs: Any) -> None:
        """Async :meth:`delete_ref_doc` (the store write runs in a worker thread)."""
        _check_delete_kwargs(delete_kwargs, "adelete_ref_doc()")
        await asyncio.to_thread(self.delete_ref_doc, ref_doc_id)

    # ------------------------------------------------------------------ persistence
    def persist_store(self, target: Path) -> None:
        """Back the store up to ``target`` and record it in the index struct."""
        if self._unrecorded:  # said once per index
            warnings.warn(f"VizRAGIndex persists its JSON options only: "
                          f"{', '.join(self._unrecorded)} (objects) will not be restored by "
                          "load_index_from_storage; pass them to it again",
                          UserWarning, stacklevel=3)
            self._unrecorded = []
        backup_store(self._engine.store, target)
        self._index_struct.store_path = str(Path(target).resolve())
        self._index_struct.persist_file = Path(target).name  # resolved against the dir on load
        self._storage_context.index_store.add_index_struct(self._index_struct)

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        not_picklable(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> NoReturn:
        not_picklable(self)

    # ------------------------------------------------------------------ query side
    def as_retriever(self, **kwargs: Any) -> VizRAGRetriever:
        """A :class:`VizRAGRetriever` (options: ``top_k``, ``mode``, ``hops``,
        ``include_image``, ``image_view``, ``filters``, ``doc_ids``, ``node_ids``);
        vector-store options VizRAG cannot honour (``vector_store_query_mode``,
        ``sparse_top_k``) raise ``ValueError``, unknown names (``topk=3``)
        ``TypeError``; the arguments of LlamaIndex's query and chat engines (which
        ``as_query_engine`` / ``as_chat_engine`` pass on here) are ignored here."""
        check_options(kwargs, engine_option_names())
        options = {k: v for k, v in kwargs.items() if k in RETRIEVER_OPTIONS}
        options.setdefault("callback_manager", self._callback_manager)
        return VizRAGRetriever(self, **options)

    def as_chat_engine(self, chat_mode: Any = ChatMode.BEST, llm: Any = None,
                       **kwargs: Any) -> BaseChatEngine:
        """LlamaIndex chat engines over this index; ``llm`` defaults to the index's own
        (``Settings.llm`` is never read). With a chat LLM the retrieving modes (``best``,
        ``condense_plus_context``, ``context``) are LlamaIndex's multimodal chat engines, so
        the image reaches the LLM; ``condense_question`` goes through :meth:`as_query_engine`
        (which sends it too)."""
        llm = llm or self._llm
        if llm is None:
            raise ValueError("a VizRAG chat engine needs an LLM: pass llm=... (Settings.llm "
                             "is never read)")
        engine = multimodal_chat_engine(self.as_retriever(**kwargs), chat_mode, llm, **kwargs)
        if engine is not None:  # the retrieving modes with a chat LLM: the image is sent
            return engine
        return super().as_chat_engine(chat_mode=chat_mode, llm=llm, **kwargs)

    def as_query_engine(self, llm: Any = None, **kwargs: Any) -> BaseQueryEngine:
        """A ``RetrieverQueryEngine`` whose chat LLM receives the hypergraph image.

        ``llm`` defaults to the index's own LLM; ``Settings.llm`` is never read. A chat LLM
        gets ``multimodal=True``; any other LLM gets only the caption (one warning).
        """
        manager = kwargs.pop("callback_manager", None) or self._callback_manager
        return build_query_engine(self.as_retriever(callback_manager=manager, **kwargs),
                                  llm or self._llm, callback_manager=manager, **kwargs)


def warn_settings(llm: LLM | None, embed_model: BaseEmbedding | None) -> None:
    """One ``UserWarning`` per model the user set in LlamaIndex's ``Settings`` (its private
    ``_llm`` / ``_embed_model``: set, not the lazy default, which is resolved only when
    something reads ``Settings.llm``) and did not pass: VizRAG never reads ``Settings``."""
    if llm is None and getattr(Settings, "_llm", None) is not None:
        warnings.warn("VizRAGIndex does not read Settings.llm: pass llm=Settings.llm to use it "
                      "for extraction, query keywords and the locate step (otherwise "
                      "indexing uses the offline heuristic extraction); as_query_engine / "
                      "as_chat_engine need llm= too", UserWarning, stacklevel=5)
    if embed_model is None and getattr(Settings, "_embed_model", None) is not None:
        warnings.warn("VizRAGIndex does not read Settings.embed_model: pass "
                      "embed_model=Settings.embed_model to use it (otherwise the store's "
                      "recorded offline embedder, or the hashed embeddings)", UserWarning,
                      stacklevel=5)


def _missing_store(path: str, struct: IndexVizRAG, persist_dir: Path | None
                   ) -> FileNotFoundError:
    """The error of a loaded index whose recorded store is not there."""
    if struct.persist_file and persist_dir is not None:
        return FileNotFoundError(
            f"the persist dir {str(persist_dir)!r} has no {struct.persist_file}, the VizRAG "
            f"store this index was persisted with: copy it along with the JSON files, or "
            "pass store_dir= to load_index_from_storage")
    return FileNotFoundError(
        f"the VizRAG store {redact_url(path)} recorded in the index struct is missing; pass "
        "store_dir= to load_index_from_storage if the directory moved")


def _check_delete_kwargs(given: dict[str, Any], where: str) -> None:
    """A ``TypeError`` naming a keyword argument a delete does not read (a misspelt
    ``delete_from_docstore`` must not be dropped silently)."""
    refuse_unknown_options(given, (), f"VizRAGIndex.{where}",
                           offered=("delete_from_docstore",))


INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS[INDEX_TYPE] = IndexVizRAG  # type: ignore[index]
INDEX_STRUCT_TYPE_TO_INDEX_CLASS[INDEX_TYPE] = VizRAGIndex  # type: ignore[index]
