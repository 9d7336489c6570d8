"""The write side of a :class:`~vizrag_llamaindex.VizRAGIndex` (a mixin of it, as
:class:`~.lifecycle.IndexLifecycle` is): ``insert``, ``insert_nodes``, ``update_ref_doc``,
``refresh_ref_docs``, ``delete_nodes``, ``delete_ref_doc`` and their async forms.

Documents go to the engine whole, by ``doc.id_`` (or, with transformations, the nodes they
make, grouped under the document's id); an unchanged document is a no-op, a changed one
replaces the old version, and a delete removes a document and whatever only it supported,
in one store transaction.

Example:
    >>> from llama_index.core import Document
    >>> from vizrag_llamaindex import VizRAGIndex
    >>> index = VizRAGIndex.from_documents([Document(text="Ada met Babbage.", id_="a")])
    >>> index.refresh_ref_docs([Document(text="Ada met Babbage.", id_="a"),
    ...                         Document(text="Curie met Pierre.", id_="c")])
    [False, True]
    >>> index.delete_ref_doc("c")
    >>> sorted(index.ref_doc_info)
    ['a']
    >>> index.close()
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.schema import BaseNode, Document, TransformComponent
from llama_index.core.storage.storage_context import StorageContext

from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag import IndexReport, VizRAG
from hyperviz_core.rag.engine_args import refuse_unknown_options
from hyperviz_core.rag.index.report import warn_empty
from hyperviz_core.rag.index.stream import caller_level

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
from .index_struct import IndexVizRAG
from .options import warn_embedded, warn_skipped

if TYPE_CHECKING:
    from llama_index.core.storage.docstore.types import BaseDocumentStore

__all__ = ["IndexWrites", "Stored"]

#: the index's logger (these writes were in :mod:`~vizrag_llamaindex.index`)
log = logging.getLogger("vizrag_llamaindex.index")

Stored = dict[str, list[VizDocument]]
"""What :func:`~.documents.stored_nodes` read: document id → its stored engine documents."""


class IndexWrites:
    """The writes of an index over ``_engine`` (see the module docstring); documents are
    split by ``_splitters`` (the transformations given to the index), if any."""

    _engine: VizRAG
    _splitters: list[TransformComponent]
    _index_struct: IndexVizRAG
    _storage_context: StorageContext
    _show_progress: bool

    if TYPE_CHECKING:
        @property
        def docstore(self) -> BaseDocumentStore: ...

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


def _check_delete_kwargs(given: dict[str, Any], where: str) -> None:
    """A ``TypeError`` naming a keyword argument a delete does not read (a misspelt
    ``delete_from_docstore`` must not be dropped silently)."""
    refuse_unknown_options(given, (), f"VizRAGIndex.{where}",
                           offered=("delete_from_docstore",))
