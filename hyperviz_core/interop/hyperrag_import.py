"""Import a Hyper-RAG working directory into a VizRAG store (no LLM re-extraction).

The whole directory is read and validated first (:func:`~.hyperrag_read.read_workdir`), the
store is opened only afterwards, so a missing file, a foreign or malicious pickle or a
malformed JSON file leaves no trace. Then the documents are written in batches with the
store's own :meth:`~hyperviz_core.rag.store.StoreProtocol.add_documents` (one transaction
and one merge per batch, the same result as one document at a time; identical content is a
no-op, so importing twice changes nothing). Hyper-RAG has no theme
layer: G_top is built from the imported chunks and their mapped entities by the configured
theme extractor (offline :class:`~hyperviz_core.rag.HeuristicThemeExtractor` by default).

Embeddings: with ``reuse_embeddings=True`` and an embedder of the same dimension as the
``vdb_*.json`` files, Hyper-RAG's entity, hyperedge and chunk vectors are stored as they are
(only what it has no vector for — ``UNKNOWN`` vertices, themes — is embedded); otherwise
everything is embedded with ``embedder`` (offline :class:`~hyperviz_core.rag.HashingEmbedder`
by default). Reuse is only meaningful when queries are embedded by the same model Hyper-RAG
used; the report says which path was taken and why.

Example:
    >>> import tempfile
    >>> from hyperviz_core.interop.hyperrag_import import import_hyperrag
    >>> rep = import_hyperrag("tests/data/hyperrag", tempfile.mkdtemp(),
    ...                       show_progress=False)  # doctest: +SKIP
    >>> rep.vertices, rep.hyperedges, rep.documents, rep.chunks  # doctest: +SKIP
    (348, 666, 28, 29)
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from ..model import normalize_key
from ..rag import Embedder, HashingEmbedder, HeuristicThemeExtractor, StoreStats
from ..rag.store import DocumentInput, StoreProtocol, open_store
from ..rag.store.batch import batched
from ..rag.store.protocol import stored_document_ids
from .hyperrag_map import (
    HYPERRAG_SOURCE,
    DocPlan,
    ImportPlan,
    build_plan,
    iter_documents,
    plan_document,
    rewritten,
)
from .hyperrag_pickle import HyperRAGFormatError, shown
from .hyperrag_read import VDB_FILES, HyperRAGWorkdir, VdbFile, read_vdb, read_workdir

__all__ = ["DocumentConflictError", "ImportReport", "foreign_documents", "import_hyperrag",
           "import_workdir", "read_for_import", "stale_documents"]

#: space -> (our id -> row number, the rows: a LazyMatrix or a decoded matrix)
VectorMap = dict[str, tuple[dict[str, int], Any]]


class DocumentConflictError(ValueError):
    """The import would replace stored documents that no Hyper-RAG import wrote."""


def foreign_documents(store: StoreProtocol, doc_ids: Sequence[str]) -> list[str]:
    """The ids among ``doc_ids`` that ``store`` holds as documents not written by a
    Hyper-RAG import (their ``metadata["source"]`` is not :data:`HYPERRAG_SOURCE`)."""
    out: list[str] = []
    for start in range(0, len(doc_ids), 256):  # a batch's texts at a time, not all
        out += [d.id for d in store.documents(doc_ids[start : start + 256])
                if d.metadata.get("source") != HYPERRAG_SOURCE]
    return out


def stale_documents(store: StoreProtocol, doc_ids: set[str]) -> list[str]:
    """The ids of ``store``'s documents that a Hyper-RAG import wrote (their
    ``metadata["source"]`` is :data:`HYPERRAG_SOURCE`) but ``doc_ids`` (a working dir's)
    lacks: removed from the working dir since, or imported from another one. Sorted."""
    others = sorted(stored_document_ids(store) - doc_ids)
    out: list[str] = []
    for start in range(0, len(others), 256):
        out += [d.id for d in store.documents(others[start : start + 256])
                if d.metadata.get("source") == HYPERRAG_SOURCE]
    return sorted(out)


def _check_replacements(wd: HyperRAGWorkdir, store: StoreProtocol, replace: bool) -> None:
    """Refuse (before the first write) to replace documents of ``store`` that another
    command wrote under an id the working dir uses, unless ``replace``."""
    foreign = [] if replace else foreign_documents(store, sorted(wd.docs))
    if foreign:
        ids = ", ".join(shown(i) for i in foreign[:5]) + (" ..." if len(foreign) > 5 else "")
        raise DocumentConflictError(
            f"{store.path}: the import would replace {len(foreign)} document(s) not written "
            f"by a Hyper-RAG import: {ids}; nothing was written (pass --replace-documents, "
            "replace_documents=True, to replace them)")


class ImportReport(BaseModel):
    """What :func:`import_hyperrag` found and wrote."""

    workdir: str
    store: str
    documents: int = 0
    chunks: int = 0
    vertices: int = 0
    hyperedges: int = 0
    unknown_vertices: int = 0
    singleton_hyperedges: int = 0
    documents_added: int = 0
    documents_replaced: int = 0
    documents_skipped: int = 0
    #: stored documents of a Hyper-RAG import that the working dir does not hold
    stale_documents: list[str] = Field(default_factory=list)
    documents_pruned: int = 0
    themes: int = 0
    """Chunk themes this import built (0 when no document was written; the store's own count
    is in :attr:`store_stats`)."""
    embeddings: Literal["reused", "embedded", "none"] = "embedded"
    """How this import's vectors were made: Hyper-RAG's reused, embedded, or ``"none"`` when
    no document was written (a re-import of an unchanged working dir)."""
    embedding_note: str = ""
    reused_vectors: dict[str, int] = Field(default_factory=dict)
    embedded: int = 0
    llm_cache_entries: int | None = None
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    write_seconds: float = 0.0
    store_stats: StoreStats | None = None

    def lines(self) -> list[str]:
        """Human-readable summary lines (what the CLI prints)."""
        out = [
            f"Hyper-RAG working dir {self.workdir}: {self.documents} documents, {self.chunks} "
            f"chunks, {self.vertices} vertices ({self.unknown_vertices} UNKNOWN), "
            f"{self.hyperedges} hyperedges ({self.singleton_hyperedges} with one member)",
            f"imported into {self.store}: {self.documents_added} added, "
            f"{self.documents_replaced} replaced, {self.documents_skipped} unchanged; "
            f"{self.themes} chunk themes built; {self.seconds:.2f} s "
            f"({self.write_seconds:.2f} s in the store's document writes, embedding included)",
            f"embeddings: {self.embedding_note}",
        ]
        if self.llm_cache_entries is not None:
            out.append(f"LLM cache: {self.llm_cache_entries} Hyper-RAG entries read, not "
                       "copied (keyed by Hyper-RAG's prompts, which VizRAG never sends)")
        if self.stale_documents:
            out.append(self._stale_line())
        s = self.store_stats
        if s is not None:
            out.append(f"store: documents {s.documents}, chunks {s.chunks}, entities "
                       f"{s.entities}, relation hyperedges {s.relation_hyperedges}, theme "
                       f"hyperedges {s.theme_hyperedges}")
        out.extend(f"warning: {w}" for w in self.warnings)
        return out

    def _stale_line(self) -> str:
        stale = self.stale_documents
        ids = ", ".join(shown(i) for i in stale[:5]) + (" ..." if len(stale) > 5 else "")
        if self.documents_pruned:
            return (f"pruned {self.documents_pruned} document(s) a Hyper-RAG import wrote "
                    f"that the working dir no longer holds: {ids}")
        return (f"note: the store keeps {len(stale)} document(s) a Hyper-RAG import wrote that "
                f"this working dir does not hold (removed from it since, or imported from "
                f"another working dir): {ids}; pass --prune (prune=True) to remove them")


class _Rows:
    """Row access to a decoded matrix, like :meth:`~.hyperrag_vdb.LazyMatrix.take`."""

    def __init__(self, matrix: npt.NDArray[np.float32]) -> None:
        self.matrix = matrix

    def take(self, indices: Sequence[int]) -> npt.NDArray[np.float32]:
        return self.matrix[list(indices)]


def _source(v: VdbFile) -> Any:
    if v.lazy is not None:
        return v.lazy
    if v.matrix is None:
        raise HyperRAGFormatError("vectors were not read (read_workdir(vectors=False))")
    return _Rows(v.matrix)


def _reusable(wd: HyperRAGWorkdir, plan: ImportPlan, kept: Sequence[str]) -> VectorMap:
    """Per kept space: our id → row of Hyper-RAG's vectors, and where the rows are."""
    out: VectorMap = {}
    if "entity" in kept:
        ent = wd.vdb["entity"]
        names = ent.keys or [meta.get("entity_name", "") for meta in ent.meta]
        index: dict[str, int] = {}
        for n, name in enumerate(names):
            key = plan.keys.get(str(name))
            if key is not None:
                index.setdefault(key, n)
        out["entity"] = (index, _source(ent))
    if "hyperedge" in kept:  # only stores of the old layout keep them: read them now
        rel = wd.vdb["hyperedge"]
        if rel.matrix is None:
            rel = read_vdb(wd.path / VDB_FILES["hyperedge"], vectors=True)
        index = {}
        for n, meta in enumerate(rel.meta):
            raw = meta.get("id_set")
            if isinstance(raw, list):
                members = tuple(sorted({str(m) for m in raw}))
                hid = plan.edge_id(members) if members in wd.graph.edges else None
                if hid is not None:
                    index.setdefault(hid, n)
        out["hyperedge"] = (index, _source(rel))
    if "chunk" in kept:
        chunks = wd.vdb["chunk"]
        ids = chunks.keys or chunks.ids
        out["chunk"] = ({cid: n for n, cid in enumerate(ids) if cid in wd.chunks},
                        _source(chunks))
    return out


def _doc_vectors(dp: DocPlan, vecs: VectorMap
                 ) -> dict[str, tuple[Sequence[str], npt.ArrayLike]]:
    """The reusable vectors of one document's items (only spaces present in ``vecs``)."""
    wanted = {
        "entity": sorted({e.key for ex in dp.extractions for e in ex.entities}
                         | {m for ex in dp.extractions for h in ex.hyperedges for m in h.members}),
        "hyperedge": sorted({h.id for ex in dp.extractions for h in ex.hyperedges}),
        "chunk": [c.id for c in dp.chunks],
    }
    out: dict[str, tuple[Sequence[str], npt.ArrayLike]] = {}
    for space, (index, rows) in vecs.items():
        have = [i for i in wanted[space] if i in index]
        if have:
            out[space] = (have, rows.take([index[i] for i in have]))
    return out


def _embedding_choice(wd: HyperRAGWorkdir, embedder: Embedder, reuse: bool
                      ) -> tuple[bool, str]:
    vdb = wd.vdb.get("entity") or next(iter(wd.vdb.values()), None)  # none: all missing
    dim, name = vdb.dim if vdb else 0, getattr(embedder, "name", type(embedder).__name__)
    if not reuse:
        return False, f"embedded with {name} ({embedder.dim}-d); Hyper-RAG's " \
            f"{f'{dim}-d ' * bool(vdb)}vectors not reused (pass --reuse-embeddings to reuse them)"
    if embedder.dim != dim:
        return False, f"Hyper-RAG's vectors are {dim}-d but {name} makes {embedder.dim}-d " \
            f"ones: re-embedded everything with {name}"
    return True, f"reused Hyper-RAG's {dim}-d vectors (declared compatible with {name})"


@contextlib.contextmanager
def _frozen_gc() -> Iterator[None]:
    """Keep the objects alive now (the unpickled working dir: hundreds of thousands of
    dicts and strings, all long-lived) out of the garbage collector's full passes for the
    duration (``gc.freeze``): each pass would walk all of them again (measured: 15 to 25 %
    of the import's CPU time on the 20x benchmark working dir)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


#: the SQLite page cache an import writes with (KiB; SQLite's default, see HypergraphStore
#: .page_cache): 16 MiB is half the import's memory on a 7 MB pickle, measured no faster
IMPORT_CACHE_KIB = 2048


def _page_cache(store: StoreProtocol) -> contextlib.AbstractContextManager[Any]:
    cache = getattr(store, "page_cache", None)
    return cache(IMPORT_CACHE_KIB) if callable(cache) else contextlib.nullcontext()


@contextlib.contextmanager
def _paused_gc() -> Iterator[None]:
    """No garbage collection while the block runs (then as it was)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _write(store: StoreProtocol, batch: list[DocumentInput], embedder: Embedder,
           rep: ImportReport, reused: dict[str, set[str]]) -> None:
    """Write one batch of documents (one transaction) and count the outcome into ``rep``."""
    w0 = time.perf_counter()
    written = store.add_documents(batch, embedder=embedder)
    rep.write_seconds += time.perf_counter() - w0
    rep.embedded += written.embedded
    for item, w in zip(batch, written.writes, strict=True):
        if w.status == "skipped":
            rep.documents_skipped += 1
            continue
        rep.documents_added += w.status == "added"
        rep.documents_replaced += w.status == "replaced"
        rep.themes += sum(1 for t in item.themes if t.theme)
        for space, (ids, _) in (item.vectors or {}).items():
            reused[space].update(ids)


def import_workdir(
    wd: HyperRAGWorkdir,
    store: StoreProtocol,
    *,
    embedder: Embedder | None = None,
    theme_extractor: Any = None,
    reuse_embeddings: bool = False,
    show_progress: bool = True,
    batch_size: int = 64,
    batch_items: int = 1500,
    release: bool = False,
    replace_documents: bool = False,
    prune: bool = False,
) -> ImportReport:
    """Write an already validated working dir into an open store (see :func:`import_hyperrag`).

    Documents are written in batches of at most ``batch_size`` documents or about
    ``batch_items`` mapped entities and hyperedges (what a batch holds in memory), one
    transaction (and one merge of what they touch) each. ``release=True`` empties ``wd``
    as it goes (each document's text, chunks and the rows no later document needs): what
    :func:`import_hyperrag` does with the working dir it read. A stored document that no
    Hyper-RAG import wrote is never replaced unless ``replace_documents``
    (:class:`DocumentConflictError` before the first write). Stored documents of a Hyper-RAG
    import that ``wd`` lacks are named in the report (``stale_documents``) and, with
    ``prune``, deleted after the writes."""

    t0 = time.perf_counter()
    embedder = embedder or HashingEmbedder()
    themes = theme_extractor or HeuristicThemeExtractor()
    reuse, note = _embedding_choice(wd, embedder, reuse_embeddings)
    _check_replacements(wd, store, replace_documents)  # both before the first write
    store.check_embedder(embedder.name, embedder.dim)
    stale = stale_documents(store, set(wd.docs))  # before release=True empties wd.docs
    plan = build_plan(wd)
    vecs = None
    if reuse:  # only for the spaces this store keeps vectors of
        kept = getattr(store, "vector_spaces", lambda: ("entity", "hyperedge", "chunk"))()
        vecs = _reusable(wd, plan, tuple(kept))
        if release:  # indexed now: the rows' names and ids are not read again
            for v in wd.vdb.values():
                v.keys, v.ids, v.meta = [], [], []
    rep = ImportReport(
        workdir=str(wd.path), store=str(store.path), documents=len(wd.docs),
        chunks=len(wd.chunks), vertices=len(wd.graph.vertices), hyperedges=len(wd.graph.edges),
        unknown_vertices=plan.unknown_vertices, singleton_hyperedges=plan.singleton_hyperedges,
        embeddings="reused" if reuse else "embedded", llm_cache_entries=wd.llm_cache_entries,
        warnings=plan.warnings, stale_documents=stale,
    )
    with _frozen_gc(), _page_cache(store):
        _import_documents(wd, store, plan, rep, embedder, themes, vecs, show_progress,
                          (batch_size, batch_items), release)
    if prune and stale:
        rep.documents_pruned = store.delete_documents(stale, embedder=embedder)["documents"]
    written = rep.documents_added + rep.documents_replaced
    if not written:
        rep.embeddings = "none"
    rep.embedding_note = (note if written else "nothing embedded or reused: no document "
                          f"changed (the store's vectors are {embedder.name}'s)") + (
        f"; {rep.embedded} vectors embedded with {embedder.name}" if rep.embedded else "")
    rep.seconds = round(time.perf_counter() - t0, 3)
    rep.write_seconds = round(rep.write_seconds, 3)
    rep.store_stats = store.stats()
    return rep


class _Uses:
    """Frees what the import read once the last document that needs it is planned: the
    document's text and chunk rows, and every vertex and hyperedge row whose source chunks
    are all done (so memory falls as the import goes instead of holding the whole working
    dir to the end)."""

    def __init__(self, wd: HyperRAGWorkdir, plan: ImportPlan) -> None:
        self.wd, self.plan = wd, plan
        self.left: dict[Any, int] = {}
        for table in (plan.chunk_vertices, plan.chunk_edges):
            for items in table.values():
                for item in items:
                    self.left[item] = self.left.get(item, 0) + 1

    def done(self, doc_id: str, rows: Sequence[Any]) -> None:
        wd, plan = self.wd, self.plan
        wd.docs.pop(doc_id, None)
        for row in rows:
            wd.chunks.pop(row.id, None)
            for name in plan.chunk_vertices.pop(row.id, ()):
                if self._last(name):
                    wd.graph.vertices.pop(name, None)
            for key in plan.chunk_edges.pop(row.id, ()):
                if self._last(key):
                    wd.graph.edges.pop(key, None)

    def _last(self, item: Any) -> bool:
        """Count one use of ``item`` done; whether it was its last."""
        n = self.left[item] - 1
        if n:
            self.left[item] = n
            return False
        del self.left[item]
        return True


def _chunk_metadata_kept(store: StoreProtocol, dp: DocPlan) -> bool:
    """Whether the store's chunks of an unchanged document hold the metadata an import gives
    them now (imports before 2026-12-05 gave them Hyper-RAG's ``tokens`` only)."""
    stored = {c.id: c.metadata for c in store.chunks([c.id for c in dp.chunks])}
    return all(stored.get(c.id) == c.metadata for c in dp.chunks)


def _import_documents(wd: HyperRAGWorkdir, store: StoreProtocol, plan: ImportPlan,
                      rep: ImportReport, embedder: Embedder, themes: Any,
                      vecs: VectorMap | None, show_progress: bool,
                      limits: tuple[int, int], release: bool = False) -> None:
    """Map, theme and write every document in batches (``limits``: at most this many
    documents, or entities and hyperedges, per batch)."""
    from tqdm.auto import tqdm

    reused: dict[str, set[str]] = {space: set() for space in vecs or {}}
    uses = _Uses(wd, plan) if release else None
    bar = tqdm(total=len(wd.docs), desc="importing", unit="doc", disable=not show_progress)

    def planned() -> Iterator[DocumentInput]:
        for doc, rows in iter_documents(wd):
            dp = None
            unchanged = store.document_hash(doc.id) == doc.hash
            if unchanged:
                dp = plan_document(wd, plan, doc, rows)
                if (not rewritten(store.extractions(doc.id), dp.extractions)
                        and _chunk_metadata_kept(store, dp)):
                    rep.documents_skipped += 1
                    bar.update()
                    continue  # keeps its rows: a later document's names may take their spelling
            dp = dp or plan_document(wd, plan, doc, rows)
            if uses is not None:
                uses.done(doc.id, rows)
            chunk_themes = [themes.theme(c, ex) for c, ex in zip(dp.chunks, dp.extractions,
                                                                strict=True)]
            yield DocumentInput(doc=dp.document, chunks=dp.chunks, extractions=dp.extractions,
                                themes=chunk_themes, replace=unchanged,
                                vectors=_doc_vectors(dp, vecs) if vecs is not None else None)

    for batch in batched(planned(), *limits):
        _write(store, batch, embedder, rep, reused)
        bar.update(len(batch))
        del batch  # written: not alive while the next batch is planned
    bar.close()
    rep.reused_vectors = {k: len(v) for k, v in reused.items()}


def read_for_import(workdir: str | Path, *, reuse_embeddings: bool = False
                    ) -> HyperRAGWorkdir:
    """Read and check a working dir the way an import needs it: the hypergraph as compact
    rows without its incidence index, and (to reuse them) the vectors left in their files
    until each is written. Raises :class:`HyperRAGFormatError` like :func:`read_workdir`."""
    with _paused_gc():  # loading creates only long-lived objects: no garbage to find
        return read_workdir(workdir, vectors=reuse_embeddings, incidence=False,
                            lazy_vectors=True)


def import_hyperrag(
    workdir: str | Path,
    store: StoreProtocol | str | Path,
    *,
    embedder: Embedder | None = None,
    theme_extractor: Any = None,
    reuse_embeddings: bool = False,
    show_progress: bool = True,
    replace_documents: bool = False,
    prune: bool = False,
) -> ImportReport:
    """Import a Hyper-RAG working dir into a VizRAG store; re-importing is a no-op.

    Args:
        workdir: Hyper-RAG's ``working_dir``.
        store: an open store, or a path / ``postgresql://`` URL (created if new,
            but only after the working dir validated).
        embedder: default offline :class:`~hyperviz_core.rag.HashingEmbedder`.
        theme_extractor: builds G_top per chunk (default offline heuristic).
        reuse_embeddings: store Hyper-RAG's vectors when the dimensions match.
        show_progress: tqdm bar over documents.
        replace_documents: replace stored documents with a working dir's id that another
            command (``vizrag index``) wrote; by default the import refuses them.
        prune: delete the stored documents a Hyper-RAG import wrote that the working dir
            does not hold (by default they are kept and named in the report).

    Raises:
        HyperRAGFormatError: the working dir is incomplete, malformed or unsafe (nothing
            was written).
        StoreError: the store holds vectors of another dimension (nothing was written).
        DocumentConflictError: the store holds documents under the working dir's ids that
            no Hyper-RAG import wrote, and not ``replace_documents`` (nothing was written).
    """
    wd = read_for_import(workdir, reuse_embeddings=reuse_embeddings)
    own = not isinstance(store, StoreProtocol)
    st = store if isinstance(store, StoreProtocol) else open_store(store)
    try:
        return import_workdir(wd, st, embedder=embedder, theme_extractor=theme_extractor,
                              reuse_embeddings=reuse_embeddings, show_progress=show_progress,
                              release=True, replace_documents=replace_documents,
                              prune=prune)
    finally:
        if own:
            st.close()


def entity_key(hyperrag_name: str) -> str:
    """The VizRAG entity key of a Hyper-RAG vertex name (``"VIENNA"`` → ``"vienna"``)."""
    return normalize_key(hyperrag_name)
