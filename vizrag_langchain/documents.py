"""Convert a :class:`~hyperviz_core.rag.RetrievalResult` into LangChain ``Document`` objects.

Text documents carry the chunk text with ``id`` = chunk id and JSON-serialisable metadata:
the indexed document's own metadata as inserted, plus VizRAG's keys (document and chunk ids,
score and its parts, ``unmatched`` — True when nothing of the query matched the passages
returned, so they are arbitrary: :attr:`~hyperviz_core.rag.RetrievalResult.unmatched` —,
entity keys with their ``E#`` ids, hyperedge ids with their ``H#`` ids, and ``usage``:
the retrieval's model usage — ``RetrievalResult.usage`` as a JSON-safe dict, the same on
every document of one retrieval and on its image document, None when no model was called;
the LlamaIndex nodes' ``vizrag_usage``, as their ``vizrag_score`` is ``score`` here);
where the document's metadata holds one of VizRAG's keys with another value, VizRAG's value
goes under ``vizrag_<key>`` (:func:`merge_metadata`, read back with :func:`vizrag_value`).
The optional image document carries the rendering: its caption as ``page_content``, the PNG
(base64) in ``metadata["image_base64"]``, and the keys a text document has (``title``,
``score``, ``rank`` ...), so prompts and filters that read them work on it too.

Example::

    >>> from hyperviz_core.rag import RetrievalResult
    >>> from vizrag_langchain.documents import result_documents
    >>> result_documents(RetrievalResult(query="q", mode="vizrag"))
    []
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag import (
    RankedChunk,
    RenderedView,
    RetrievalResult,
    VisualContext,
    json_safe_metadata,
    visual_ids,
)
from hyperviz_core.rag.index.guards import check_fields
from hyperviz_core.rag.result_metadata import (
    VIZRAG_PREFIX,
    merge_metadata,
    vizrag_key,
    vizrag_value,
)

__all__ = [
    "IMAGE_DOC_TYPE",
    "VIZRAG_PREFIX",
    "Elided",
    "VizRAGImageDocument",
    "derived_id",
    "image_document",
    "is_image_document",
    "merge_metadata",
    "result_documents",
    "to_engine_document",
    "vizrag_key",
    "vizrag_value",
]

IMAGE_DOC_TYPE = "hyperviz_image"
"""``metadata["type"]`` of the rendered-image document."""

def _chunk_metadata(result: RetrievalResult, chunk: RankedChunk,
                    shown: dict[str, Any] | None) -> dict[str, Any]:
    ours = {
        "type": "chunk",
        "doc_id": chunk.doc_id,
        "chunk_id": chunk.chunk_id,
        "title": chunk.title,
        "rank": chunk.rank,
        "score": chunk.score,
        "score_parts": dict(sorted(chunk.evidence.items())),
        "mode": result.mode,
        "unmatched": result.unmatched,
        **result.chunk_links(chunk, shown),
        "usage": usage_dict(result),
    }
    # LangChain's "source" names where a document came from: the indexed one's is kept,
    # "vizrag" is only the default (never a second key beside the document's)
    return merge_metadata({"source": "vizrag", **chunk.metadata}, ours)[0]


def result_documents(result: RetrievalResult, k: int | None = None,
                     shown: dict[str, Any] | None = None) -> list[Document]:
    """The ranked chunks of ``result`` (at most ``k``) as text documents, best first;
    ``shown``: the export of a rendering shown instead of the result's views (its E#/H#
    are given)."""
    chunks = result.chunks if k is None else result.chunks[:k]
    return [Document(id=c.chunk_id, page_content=c.text,
                     metadata=_chunk_metadata(result, c, shown))
            for c in chunks]


class VizRAGImageDocument(Document):
    """The rendered-image ``Document``: a plain ``Document`` in every respect (it equals a
    ``Document`` with the same fields and serialises as one: ``dumpd``/``loads`` give a
    plain one) but its ``repr`` and ``str``, which shorten the PNG (``image_base64``,
    ~200 kB) and the ``export`` (~80 kB) so that a notebook cell, a log line or a prompt
    showing it stays readable (``metadata`` holds them whole)."""

    @classmethod
    def lc_id(cls) -> list[str]:
        return Document.lc_id()

    def __eq__(self, other: object) -> bool:
        """Equal to a plain ``Document`` with the same fields (what ``loads`` gives back)."""
        if not isinstance(other, Document):
            return NotImplemented
        return (self.id, self.page_content, self.metadata, self.type) == (
            other.id, other.page_content, other.metadata, other.type)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as Document)

    def _short_metadata(self) -> dict[str, Any]:
        meta = dict(self.metadata)
        if isinstance(meta.get("image_base64"), str):
            meta["image_base64"] = Elided(f"<{len(meta['image_base64'])} base64 chars>")
        if isinstance(meta.get("export"), dict):
            meta["export"] = Elided(f"<export: {len(meta['export'])} keys>")
        return meta

    def __repr__(self) -> str:
        return (f"VizRAGImageDocument(id={self.id!r}, page_content={self.page_content[:80]!r}, "
                f"metadata={self._short_metadata()!r})")

    def __str__(self) -> str:  # Document's form, the PNG and the export shortened
        return f"page_content='{self.page_content}' metadata={self._short_metadata()}"


class Elided(str):
    """A placeholder shown as it is (no quotes) in a ``repr``."""

    def __repr__(self) -> str:
        return str(self)


def usage_dict(result: RetrievalResult) -> dict[str, Any] | None:
    """``result.usage`` as a JSON-safe dict (None: no model was called)."""
    return None if result.usage is None else result.usage.model_dump(mode="json")


def image_document(view: RenderedView | VisualContext, *, view_name: str, query: str,
                   mode: str = "", score: float = 0.0, rank: int = 1,
                   unmatched: bool = False,
                   usage: dict[str, Any] | None = None) -> VizRAGImageDocument:
    """One rendering as a document (a :class:`VizRAGImageDocument`): caption as text, PNG
    base64 and mime type in metadata, and the keys of a text document (``doc_id`` =
    ``chunk_id`` = its id, ``title``, ``rank``, ``score``, ``score_parts`` = {}, ``mode``,
    ``unmatched``, ``usage``, the ``entities`` / ``hyperedges`` it shows with their ``E#`` /
    ``H#``).
    The retriever gives it the rank after the text documents and the weakest one's score:
    it sorts after the passages it shows, and a score filter that keeps them all keeps
    it."""
    doc_id = f"hyperviz-{view.sha256[:16]}"
    ents, edges = visual_ids(view.export)
    return VizRAGImageDocument(
        id=doc_id,
        page_content=view.caption,
        metadata={
            "source": "vizrag",
            "type": IMAGE_DOC_TYPE,
            "doc_id": doc_id,
            "chunk_id": doc_id,
            "title": f"HyperViz image ({view_name})",
            "rank": rank,
            "score": score,
            "score_parts": {},
            "mode": mode,
            "unmatched": unmatched,
            "usage": usage,
            "entities": list(ents),
            "entity_ids": ents,
            "hyperedges": list(edges),
            "hyperedge_ids": edges,
            "view": view_name,
            "query": query,
            "mime_type": "image/png",
            "image_base64": view.png_base64,
            "width": view.width,
            "height": view.height,
            "sha256": view.sha256,
            "export": view.export,
        },
    )


def is_image_document(doc: Document) -> bool:
    """True for the rendered-image document appended by ``include_image=True``: VizRAG's
    ``type`` (:func:`vizrag_value`), so a passage whose own metadata says
    ``type: hyperviz_image`` (VizRAG's "chunk" then sits under ``vizrag_type``) stays a
    passage and cannot pass its own picture off as the hypergraph image."""
    return (vizrag_value(doc.metadata, "type") == IMAGE_DOC_TYPE
            and "image_base64" in doc.metadata)


def to_engine_document(doc: Document, doc_id: str | None = None, *,
                       one_chunk: bool = False) -> VizDocument:
    """A LangChain document as an engine document: ``doc_id``, else ``doc.id``, else
    ``doc-<hash>`` of its title, text and metadata (:func:`derived_id`); ``metadata["title"]``
    as the title, the metadata kept (JSON-safe); ``one_chunk``: indexed as one chunk under its
    id (a text splitter's output is not windowed again).

    >>> to_engine_document(Document(page_content="Ada wrote notes.", id="ada",
    ...                             metadata={"title": "Ada", "page": 3})).metadata
    {'page': 3, 'title': 'Ada'}
    """
    meta = dict(doc.metadata or {})
    # a lone surrogate named (field and place) before the id hashes it (a bare codec error)
    check_fields(doc_id or doc.id or "", str(meta.get("title") or ""), doc.page_content, meta)
    out = VizDocument(id=doc_id or doc.id or "", text=doc.page_content,
                      title=str(meta.get("title") or ""), metadata=json_safe_metadata(meta),
                      one_chunk=one_chunk)
    if not (doc_id or doc.id) and out.metadata:
        out.id = derived_id(out)
    return out


def derived_id(doc: VizDocument) -> str:
    """The id of a document added without one: ``doc-`` + the first 16 hex digits of the
    SHA-256 of title, text and metadata as sorted, compact JSON (the content hash of
    :attr:`hyperviz_core.rag.Document.hash`, without ``one_chunk``): the same in every
    process, and two chunks of one text with other metadata (a footer of two files) are
    two documents. Without metadata it is the engine's ``doc-<hash of title + text>``.

    >>> a = VizDocument(text="All rights reserved.", metadata={"source": "a.pdf"})
    >>> b = VizDocument(text="All rights reserved.", metadata={"source": "b.pdf"})
    >>> derived_id(a) != derived_id(b), derived_id(a) == derived_id(a.model_copy())
    (True, True)
    """
    if not doc.metadata:
        return VizDocument(text=doc.text, title=doc.title).id
    return "doc-" + doc.model_copy(update={"one_chunk": False}).hash
