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

import tempfile
import warnings
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from llama_index.core import Settings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.chat_engine.types import BaseChatEngine, ChatMode
from llama_index.core.data_structs.registry import INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS
from llama_index.core.indices.base import BaseIndex
from llama_index.core.indices.registry import INDEX_STRUCT_TYPE_TO_INDEX_CLASS
from llama_index.core.llms import LLM
from llama_index.core.schema import BaseNode, Document, TransformComponent
from llama_index.core.storage.docstore.types import RefDocInfo
from llama_index.core.storage.storage_context import StorageContext

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreNotFoundError, StoreProtocol, redact_url

from .adapters import LlamaIndexChatModel, LlamaIndexEmbedder
from .documents import check_nodes, ref_doc_of, to_engine_document
from .index_struct import INDEX_TYPE, IndexVizRAG
from .lifecycle import IndexLifecycle, close_owned
from .nodes import user_metadata
from .options import (
    check_documents,
    check_engine_options,
    check_models,
    engine_option_names,
    recorded_options,
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
from .writes import IndexWrites

__all__ = ["INDEX_TYPE", "IndexVizRAG", "VizRAGIndex", "ref_doc_of", "to_engine_document"]

class VizRAGIndex(IndexLifecycle, IndexWrites, BaseIndex[IndexVizRAG]):
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
    are waited for, and a temporary store directory is removed only after them. The writes
    (``insert`` ... ``delete_ref_doc``) are :class:`~vizrag_llamaindex.writes.IndexWrites`'.
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


INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS[INDEX_TYPE] = IndexVizRAG  # type: ignore[index]
INDEX_STRUCT_TYPE_TO_INDEX_CLASS[INDEX_TYPE] = VizRAGIndex  # type: ignore[index]
