"""Copy a store into another one, of any backend (what ``vizrag migrate`` runs).

Documents are copied in batches (one transaction and one merge per batch of up to 64
documents, which ends as copying them one by one) with their chunks, their raw extraction output
(:meth:`~.protocol.StoreProtocol.extractions`), their themes and the source's vectors, so the
destination rebuilds exactly the source's merged layers without any model call (a vector the
destination needs for an item outside the batch, e.g. a theme whose member a later document
renamed, is the source's vector of that id); then the model-call cache is copied and the counts
of both stores are compared — the vector counts of the spaces both stores keep (a store made
before compact vectors also keeps the ``hyperedge`` space, which a new store does not).
Every document is read by id (its chunks, themes and vectors with ``IN`` lists), so a copy
takes time linear in the store's size.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag import Document, VizRAG
    >>> from hyperviz_core.rag.store import open_store
    >>> rag = VizRAG(tempfile.mkdtemp(), show_progress=False)
    >>> _ = rag.insert([Document(title="Ada", text="Ada Lovelace met Charles Babbage.")])
    >>> with open_store(tempfile.mkdtemp()) as dst:
    ...     copy_store(rag.store, dst, show_progress=False).verified
    True
    >>> rag.close()
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy.typing as npt
from pydantic import BaseModel

from ..types import Document
from ..vectors import SPACES
from .base import DocumentInput, StoreError, StoreStats, VectorsArg
from .batch import batched
from .protocol import StoreProtocol, stored_document_ids

__all__ = ["TransferReport", "copy_store"]

#: documents copied per transaction (``add_documents``), at most, or about this many
#: entities and hyperedges
BATCH_DOCUMENTS = 64
BATCH_ITEMS = 2000


class TransferReport(BaseModel):
    """Outcome of :func:`copy_store`: what was copied and both stores' counts."""

    documents_copied: int
    documents_skipped: int
    cache_entries: int
    source: StoreStats
    destination: StoreStats
    verified: bool
    mismatches: list[str]
    #: vector spaces the source keeps and the destination does not (not copied, not compared)
    spaces_not_copied: list[str] = []
    #: ids of documents the destination held with other content, replaced by the source's
    #: (a source changed since an interrupted copy, or another corpus's ids: see the CLI)
    documents_replaced: list[str] = []


class _SourceEmbedder:
    """Stands for the source's embedder: its name and dimension, and no model behind it."""

    def __init__(self, src: StoreProtocol, name: str, dim: int) -> None:
        self.src, self.name, self.dim = src, name, dim

    def stored_vectors(self, space: str, ids: list[str]) -> tuple[list[str], npt.NDArray[Any]]:
        """The source's vectors of ``ids`` (the stores ask for those they lack)."""
        return self.src.vectors(space, ids)

    def embed(self, texts: list[str]) -> npt.NDArray[Any]:
        raise StoreError(f"the source store has no vector for {len(texts)} item(s) "
                         f"(e.g. {texts[0][:60]!r}); it cannot be copied without re-embedding")


def _spaces(store: StoreProtocol) -> tuple[str, ...]:
    """The vector spaces ``store`` keeps (every space for a store without the method)."""
    spaces = getattr(store, "vector_spaces", None)
    return tuple(spaces()) if spaces is not None else SPACES


def _counts(stats: StoreStats, spaces: tuple[str, ...]) -> dict[str, Any]:
    out = stats.model_dump(exclude={"path"})
    out["vectors"] = {s: n for s, n in out["vectors"].items() if s in spaces}
    return out


def _mismatches(src: StoreStats, dst: StoreStats, spaces: tuple[str, ...]) -> list[str]:
    a, b = _counts(src, spaces), _counts(dst, spaces)
    return [f"{k}: source {a[k]!r}, destination {b.get(k)!r}"
            for k in sorted(a) if a[k] != b.get(k)]


def _document_input(src: StoreProtocol, doc: Document, themes_of: dict[str, list[str]],
                    spaces: tuple[str, ...]) -> DocumentInput:
    """What ``add_documents`` needs to rebuild ``doc`` exactly: its chunks, raw extraction
    output, themes and the source's vectors of everything they mention."""
    chunk_ids = src.chunk_ids(doc.id)
    extractions = src.extractions(doc.id)
    themes = src.themes(chunk_ids)
    wanted: dict[str, list[str]] = {"chunk": chunk_ids, "entity": [], "hyperedge": []}
    for ex in extractions:
        wanted["entity"] += [e.key for e in ex.entities]
        wanted["hyperedge"] += [h.id for h in ex.hyperedges]
    wanted["entity"] += [k for t in themes for k in t.key_entities]
    wanted["theme"] = sorted({h for cid in chunk_ids for h in themes_of.get(cid, ())})
    vectors: VectorsArg = {space: src.vectors(space, wanted[space]) for space in spaces}
    return DocumentInput(doc=doc, chunks=src.chunks(chunk_ids), extractions=extractions,
                         themes=themes, vectors=vectors)


def copy_store(src: StoreProtocol, dst: StoreProtocol, *,
               show_progress: bool = True) -> TransferReport:
    """Copy every document (and the model-call cache) of ``src`` into ``dst``.

    Documents already in ``dst`` with the same content are skipped, so an interrupted copy
    can be resumed; one there with other content is replaced, and named in the report's
    ``documents_replaced``. The source is read in one snapshot (its ``read_snapshot()``: one read
    transaction held open for the copy, on SQLite and on PostgreSQL): documents another
    process adds, replaces or deletes while the copy runs are copied as they were when it
    began.
    Raises :class:`StoreError` before writing anything when the stores' embedding
    dimensions differ or ``dst`` holds documents ``src`` lacks (two corpora would be mixed
    for good), or naming the
    document the destination refuses (nothing of its batch is written; the batches before
    it are kept).
    """
    hold = getattr(src, "read_snapshot", None)  # one state of the source for the copy
    with hold() if callable(hold) else contextlib.nullcontext():
        return _copy(src, dst, show_progress)


def _copy(src: StoreProtocol, dst: StoreProtocol, show_progress: bool) -> TransferReport:
    from tqdm.auto import tqdm

    info = src.embedder_info()
    embedder = _SourceEmbedder(src, *info) if info else None
    if info:
        dst.check_embedder(info[0], info[1])
    spaces = _spaces(dst)
    copied = skipped = 0
    themes_of: dict[str, list[str]] = {}  # chunk id -> theme hyperedges it supports
    for hid, cids in sorted(src.theme_hyperedge_chunks().items()):
        for cid in cids:
            themes_of.setdefault(cid, []).append(hid)
    docs = src.documents()
    extra = sorted(stored_document_ids(dst) - {d.id for d in docs})
    if extra:
        raise StoreError(
            f"destination {dst.path} holds {len(extra)} document(s) the source lacks (e.g. "
            f"{extra[0]!r}): a copy goes into a new or empty store, or one an interrupted copy "
            "of this source left; nothing was written")
    bar = tqdm(total=len(docs), desc="copying documents", unit="doc",
               disable=not show_progress)

    replaced: list[str] = []

    def missing() -> Iterator[DocumentInput]:
        nonlocal skipped
        for doc in docs:
            held = dst.document_hash(doc.id)
            if held == doc.hash:
                skipped += 1
                bar.update()
            else:
                if held is not None:
                    replaced.append(doc.id)
                yield _document_input(src, doc, themes_of, spaces)

    for batch in batched(missing(), BATCH_DOCUMENTS, BATCH_ITEMS):
        try:
            written = dst.add_documents(batch, embedder=embedder)
        except StoreError as exc:
            bar.close()
            raise StoreError(f"{exc} (copying documents {batch[0].doc.id!r} to "
                             f"{batch[-1].doc.id!r}: nothing of them was written; the "
                             f"{copied} documents copied before are kept)") from exc
        copied += sum(w.status != "skipped" for w in written.writes)
        bar.update(len(batch))
        del batch, written  # not alive while the next batch is read
    bar.close()
    items = src.cache_items()
    for key, value, model in items:
        dst.cache_put(key, value, model=model)
    a, b = src.stats(), dst.stats()
    mismatches = _mismatches(a, b, tuple(s for s in SPACES if s in spaces))
    return TransferReport(documents_copied=copied, documents_skipped=skipped,
                          cache_entries=len(items), source=a, destination=b,
                          verified=not mismatches, mismatches=mismatches,
                          spaces_not_copied=[s for s in _spaces(src) if s not in spaces],
                          documents_replaced=replaced)
