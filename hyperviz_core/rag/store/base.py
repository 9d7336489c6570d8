"""Backend-neutral values of the store: its error, its counts, a write's outcome.

Every backend (:mod:`.sqlite`, and any added beside it) raises :class:`StoreError` and returns
:class:`StoreStats` / :class:`DocumentWrite`, so callers never see a backend's own types.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ..types import Chunk, ChunkExtraction, ChunkTheme, Document
from ..vectors import SPACES

__all__ = [
    "BatchWrite",
    "DocumentInput",
    "DocumentWrite",
    "StoreClosedError",
    "StoreError",
    "StoreNotFoundError",
    "StoreReplacedError",
    "StoreStats",
    "VectorsArg",
    "check_embedder",
    "check_space",
    "chunk_text",
    "read_stats",
    "redact_url",
    "validate_write",
]

#: precomputed embeddings ``{space: (ids, matrix)}`` given to ``add_document``
VectorsArg = dict[str, tuple[Sequence[str], npt.ArrayLike]]


class StoreError(ValueError):
    """The store file is missing, corrupt, of another format or newer; or a write is invalid."""


class StoreReplacedError(StoreError):
    """The store file an open store object reads was deleted or replaced by another process
    (its writes would go to the unlinked file and be lost): open the store again."""

    def __init__(self, path: object) -> None:
        super().__init__(f"the store file {path} was deleted or replaced by another process "
                         "since it was opened; open it again")


class StoreClosedError(StoreError):
    """The store object was closed (``close()``; an engine closes the store it opened):
    every later use fails the same way, so an indexing run stops at once."""

    def __init__(self, path: object) -> None:
        super().__init__(f"the store {path} is closed: a closed object is not reopened; "
                         "make a new one over the same path (a new VizRAG, retriever or "
                         "index)")


class StoreNotFoundError(StoreError, FileNotFoundError):
    """A reader's store does not exist (``open_store(..., must_exist=True)``): no store file
    at the path, or no VizRAG store in the database. Also a :class:`FileNotFoundError`."""

    def __init__(self, spec: object) -> None:
        super().__init__(f"no VizRAG store at {redact_url(str(spec))} (create one with "
                         "`vizrag index` or VizRAG(path).insert(...), or fix the path)")


def check_space(space: str) -> None:
    """Raise :class:`StoreError` for an unknown vector space."""
    if space not in SPACES:
        raise StoreError(f"unknown vector space {space!r}; expected one of {list(SPACES)}")


#: embedder-name prefixes of the framework adapters: (framework, how an embedder is passed)
_FRAMEWORKS = {"langchain": ("LangChain", "embedding=... / embedder=<your Embeddings>"),
               "llamaindex": ("LlamaIndex", "embed_model=...")}


def check_embedder(store: object, info: tuple[str, int] | None, name: str, dim: int) -> None:
    """Raise :class:`StoreError` when ``store`` (named in the message) holds vectors of
    another dimension than ``dim`` (``info``: its ``embedder_info()``), or vectors of a
    framework's embedder (``langchain:...``, ``llamaindex:...``) and ``name`` is none of that
    framework's (opened without it: the offline one would query them); log a warning when
    only the embedder's name differs otherwise.

    >>> check_embedder("s", ("hashing", 512), "minilm", 384)
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.store.base.StoreError: store s holds 512-dimensional vectors from \
embedder 'hashing'; embedder 'minilm' makes 384-dimensional ones. Use the same embedder or a \
new store
    """
    if info is None:
        return
    prefix = info[0].split(":", 1)[0] if info[0] else ""
    framework = _FRAMEWORKS.get(prefix)
    foreign = framework is not None and not name.startswith(prefix + ":")
    if info[1] != dim or foreign:  # a framework's vectors queried by another model: never
        hint = (f" (a {framework[0]} embedder cannot be made again from the name the store "
                f"keeps: pass it when opening the store, {framework[1]})"
                if framework and foreign else "")
        makes = (f"makes {dim}-dimensional ones" if info[1] != dim else
                 f"is another model (of the same dimension, {dim})")
        raise StoreError(
            f"store {store} holds {info[1]}-dimensional vectors from embedder {info[0]!r}; "
            f"embedder {name!r} {makes}. Use the same embedder or a new store{hint}")
    if info[0] and name and info[0] != name:
        logging.getLogger("hyperviz_core.rag.store").warning(
            "store %s was embedded with %r, now using %r (same dim %d)", store, info[0], name,
            dim)


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^/@:]*):[^/@]*@")

STORE_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
"""A store spec that is a URL (``scheme://...``; group 1 the scheme) rather than a path."""


def redact_url(text: str) -> str:
    """``text`` with the password of a ``scheme://user:password@host`` URL hidden (safe to
    print in an error).

    >>> redact_url("mysql://rag:S3cret@db/x")
    'mysql://rag:***@db/x'
    """
    return _USERINFO.sub(r"\1:***@", text.strip())


class StoreStats(BaseModel):
    """Counts of a store (what ``vizrag stats`` prints)."""

    documents: int
    chunks: int
    entities: int
    relation_hyperedges: int
    theme_hyperedges: int
    key_entities: int
    themes: int = 0
    vectors: dict[str, int] = Field(default_factory=dict)
    embedder: str | None = None
    embedding_dim: int | None = None
    llm_cache_entries: int = 0
    path: str = ""


def read_stats(rows: Callable[[str], list[Any]], embedder: tuple[str, int] | None,
               path: str) -> StoreStats:
    """The :class:`StoreStats` of a store whose SQL ``rows(sql)`` answers (both backends
    share the tables these counts read); ``embedder`` is the store's ``embedder_info()``."""
    def one(sql: str) -> int:
        return int(rows(sql)[0][0])

    kinds = dict(rows("SELECT kind, COUNT(*) FROM hyperedges GROUP BY kind"))
    vecs = dict(rows("SELECT space, COUNT(*) FROM embeddings GROUP BY space"))
    return StoreStats(
        documents=one("SELECT COUNT(*) FROM documents"),
        chunks=one("SELECT COUNT(*) FROM chunks"),
        entities=one("SELECT COUNT(*) FROM entities"),
        relation_hyperedges=int(kinds.get("relation", 0)),
        theme_hyperedges=int(kinds.get("theme", 0)),
        key_entities=one("SELECT COUNT(DISTINCT key) FROM key_entities"),
        themes=one("SELECT COUNT(*) FROM themes"),
        vectors={s: int(vecs.get(s, 0)) for s in SPACES},
        embedder=embedder[0] if embedder else None,
        embedding_dim=embedder[1] if embedder else None,
        llm_cache_entries=one("SELECT COUNT(*) FROM llm_cache"),
        path=path,
    )


class DocumentWrite(BaseModel):
    """Outcome of :meth:`HypergraphStore.add_document`."""

    doc_id: str
    status: Literal["added", "replaced", "skipped"]
    chunks: int = 0
    entities_touched: int = 0
    hyperedges_touched: int = 0
    embedded: int = 0


class DocumentInput(BaseModel):
    """One document of :meth:`StoreProtocol.add_documents
    <hyperviz_core.rag.store.StoreProtocol.add_documents>`: the arguments of ``add_document``.

    >>> from hyperviz_core.rag.types import Chunk, Document
    >>> item = DocumentInput(doc=Document(id="d", text="t"),
    ...                      chunks=[Chunk(id="c", doc_id="d", text="t")])
    >>> item.doc.id, len(item.chunks), item.vectors
    ('d', 1, None)
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    doc: Document
    chunks: Sequence[Chunk]
    extractions: Sequence[ChunkExtraction] = ()
    themes: Sequence[ChunkTheme] = ()
    #: precomputed embeddings ``{space: (ids, matrix)}`` of this document's items
    vectors: VectorsArg | None = None
    #: write it even when the stored version has the same hash (its extraction changed
    #: while its text did not, e.g. a re-imported Hyper-RAG description was rewritten)
    replace: bool = False


class BatchWrite(BaseModel):
    """Outcome of ``add_documents``: one :class:`DocumentWrite` per input, in input order.

    ``embedded`` counts the vectors computed for the whole batch (a batch embeds each changed
    item once); it is also carried by the batch's last written document, so summing
    ``writes[i].embedded`` gives the same total.
    """

    writes: list[DocumentWrite] = Field(default_factory=list)
    embedded: int = 0
    transactions: int = 0

    def count(self, status: str) -> int:
        """How many documents ended with ``status`` (``added``/``replaced``/``skipped``)."""
        return sum(1 for w in self.writes if w.status == status)


def validate_write(
    doc: Document,
    chunks: Sequence[Chunk],
    extractions: Sequence[ChunkExtraction],
    themes: Sequence[ChunkTheme],
) -> None:
    """Raise :class:`StoreError` unless the chunks, extractions and themes belong to ``doc``.

    >>> from hyperviz_core.rag.types import Chunk, Document
    >>> validate_write(Document(id="d", text="t"), [Chunk(id="c", doc_id="x", text="t")],
    ...                [], [])
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.store.base.StoreError: chunks ['c'] do not belong to document 'd'
    """
    ids = [c.id for c in chunks]
    if len(set(ids)) != len(ids):
        raise StoreError(f"document {doc.id!r}: duplicate chunk ids")
    bad = [c.id for c in chunks if c.doc_id != doc.id]
    if bad:
        raise StoreError(f"chunks {bad[:3]} do not belong to document {doc.id!r}")
    known = set(ids)
    named = [("ChunkExtraction", e.chunk_id) for e in extractions]
    named += [("ChunkTheme", t.chunk_id) for t in themes]
    for what, cid in named:
        if cid not in known:
            raise StoreError(f"{what} names chunk {cid!r}, not a chunk of document {doc.id!r}")


def chunk_text(chunk: Chunk) -> str:
    """The text a chunk is embedded with: its title (if any), a newline, its text."""
    title = str(chunk.metadata.get("title", "") or "")
    return f"{title}\n{chunk.text}" if title else chunk.text
