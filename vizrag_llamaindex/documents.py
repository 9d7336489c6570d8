"""LlamaIndex documents and nodes as engine documents, and LlamaIndex ``transformations``.

Without transformations a document goes to the engine whole (the engine chunks it). With
them (``VizRAGIndex.from_documents(docs, transformations=[SentenceSplitter(...)])``, or an
index built with ``transformations=``), each document runs through them as in a vector
index and every resulting node becomes one engine document grouped under the document's id
(``ref_doc_id``), with the document's hash stored beside it, so ``refresh_ref_docs`` can
tell an unchanged document and ``insert``/``update_ref_doc`` replace the nodes an earlier
run made: the new nodes are written first, the old ones deleted after.

Example:
    >>> from llama_index.core import Document
    >>> from llama_index.core.node_parser import SentenceSplitter
    >>> doc = Document(text="Marie Curie worked in Paris. " * 60, id_="curie")
    >>> parts = split_documents([doc], [SentenceSplitter(chunk_size=128, chunk_overlap=0)])
    >>> len(parts) > 1, {ref_doc_of(p) for p in parts}
    (True, {'curie'})
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from hashlib import sha256
from pathlib import Path
from typing import Any

from llama_index.core.ingestion import arun_transformations, run_transformations
from llama_index.core.schema import (
    BaseNode,
    Document,
    ImageNode,
    MetadataMode,
    TransformComponent,
)

from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag import json_safe_metadata
from hyperviz_core.rag.index.guards import check_fields
from hyperviz_core.rag.index.stream import dedupe_last
from hyperviz_core.rag.index.suffixes import TEXT_SUFFIXES
from hyperviz_core.rag.index.titles import FRONT_MATTER_CHARS, read_title

from .node_ids import stable_node_ids
from .nodes import (
    EXCLUDED_KEY,
    LAYOUT_KEY,
    REF_DOC_KEY,
    REF_HASH_KEY,
    REF_RUN_KEY,
    body_start,
    node_layout,
    stored_ref,
)

__all__ = [
    "asplit_documents",
    "carried_media",
    "check_nodes",
    "file_body",
    "file_title",
    "latest_documents",
    "node_documents",
    "ref_doc_of",
    "replaced",
    "run_marker",
    "split_documents",
    "stored_nodes",
    "to_engine_document",
    "unchanged",
]


def file_title(node: BaseNode, text: str) -> str:
    """The title ``vizrag index`` gives the file a reader's document came from (metadata
    ``file_name``, as ``SimpleDirectoryReader`` sets it), by the core's rule
    (:func:`hyperviz_core.rag.index.titles.read_title`): for a whole ``Document`` of a text
    file (``.txt``, ``.md`` ...) its front matter's ``title``, else its first Markdown heading,
    else the file stem; for another file or a node (a part of a file), the stem. ``""``
    without a ``file_name``.

    >>> file_title(Document(text="Nashville.", metadata={"file_name": "00_Tennessee.txt"}),
    ...            "Nashville.")
    '00_Tennessee'
    """
    name = (node.metadata or {}).get("file_name")
    if not isinstance(name, str) or not name:
        return ""
    path = Path(name)
    if isinstance(node, Document) and path.suffix.lower() in TEXT_SUFFIXES:
        return read_title(path, text[:FRONT_MATTER_CHARS])
    return path.stem


def file_body(node: BaseNode, text: str) -> str:
    """``text`` without the front matter a reader's text file opens with (a ``Document``
    with a ``.md``/``.txt``... ``file_name``), as ``vizrag index`` reads the file: the front
    matter titles the document and is never chunked, retrieved or quoted.

    >>> file_body(Document(text="", metadata={"file_name": "a.md"}),
    ...           "---\\ntitle: Atlas\\n---\\nBody.")
    'Body.'
    """
    return text[body_start(node, text):]


def to_engine_document(node: BaseNode, ref_hash: str | None = None,
                       run: str | None = None, doc_title: str = "") -> VizDocument:
    """A LlamaIndex document/node as an engine document with the same id (``id_``); a
    node (not a ``Document``) is indexed as one chunk whose id is the node's (never
    windowed again by the engine's ``chunk_size``).

    A node that came from a document (``node.ref_doc_id``, e.g. ``SentenceSplitter`` output)
    keeps it in its metadata (:data:`~.nodes.REF_DOC_KEY`), so the index groups, returns and deletes
    it as part of that document (``ref_hash``: that document's hash, for
    :func:`unchanged`); the keys the node excludes from the LLM and the embedder are stored
    with it and excluded again on the retrieved nodes; ``run``: :func:`run_marker` of the
    nodes made of that document with this one.

    The title is ``metadata["title"]``, else ``doc_title`` (the title of the document a
    transformed node came from), else :func:`file_title`. The node's templates, character
    span and links to other nodes are stored under :data:`~.nodes.LAYOUT_KEY`
    (:func:`~.nodes.node_layout`) and given back to the retrieved node.
    """
    meta = dict(node.metadata or {})
    text = node.get_content(MetadataMode.NONE)
    title = str(meta.get("title") or "") or doc_title or file_title(node, text)
    whole = isinstance(node, Document)
    ref = None if whole else node.ref_doc_id
    if ref and ref != node.node_id:
        meta[REF_DOC_KEY] = ref
    if ref_hash is not None:
        meta[REF_HASH_KEY] = ref_hash
    if run is not None:
        meta[REF_RUN_KEY] = run
    excluded = {kind: sorted(keys) for kind, keys in (
        ("llm", node.excluded_llm_metadata_keys), ("embed", node.excluded_embed_metadata_keys))
        if keys}
    if excluded:
        meta[EXCLUDED_KEY] = excluded
    if whole:
        text = file_body(node, text)
    layout = node_layout(node, whole=whole)
    if layout:
        meta[LAYOUT_KEY] = layout
    return VizDocument(id=node.node_id, text=text, title=title,
                       metadata=json_safe_metadata(meta), one_chunk=not whole)  # a node: a chunk


def node_documents(nodes: Sequence[BaseNode]) -> list[VizDocument]:
    """Pre-parsed nodes (``insert_nodes``, ``VizRAGIndex(nodes)``) as engine documents, one
    per node, each with the hash its ``SOURCE`` relationship records of the document it came
    from (``relationships[SOURCE].hash``, which a node parser sets to ``doc.hash``): so
    ``refresh_ref_docs`` of that unchanged document finds its nodes and keeps them.

    >>> from llama_index.core.node_parser import SentenceSplitter
    >>> doc = Document(text="Marie Curie worked in Paris.", id_="curie")
    >>> [n.metadata[REF_HASH_KEY] == doc.hash for n in node_documents(
    ...     SentenceSplitter().get_nodes_from_documents([doc]))]
    [True]
    """
    out = []
    for node in nodes:
        source, ref_hash = node.source_node, None
        if source is not None and source.node_id != node.node_id:  # not its own source
            ref_hash = source.hash or None
        out.append(to_engine_document(node, ref_hash))
    return out


def ref_doc_of(doc: VizDocument) -> str:
    """The LlamaIndex document an engine document belongs to (itself, or the document the
    inserted node came from)."""
    return stored_ref(doc.metadata) or doc.id


def check_nodes(nodes: Sequence[BaseNode]) -> None:
    """A ``ValueError`` naming the first document or node whose id, text or metadata holds a
    lone surrogate (not valid Unicode), before anything is written — LlamaIndex's own hashing
    of it fails with a bare ``UnicodeEncodeError`` that names nothing; a ``TypeError`` for
    anything that is not a LlamaIndex document or node; a ``ValueError`` naming a node that
    carries an image (``ImageNode``, ``ImageDocument``), audio or video, which the engine
    would drop (it indexes text only), whether or not the node has text too."""
    for node in nodes:
        if not isinstance(node, BaseNode):
            hint = (": convert it with llama_index.core.Document(text=..., id_=...), or index "
                    "it with VizRAG.insert" if isinstance(node, VizDocument)
                    else ": insert() takes one document (use insert_nodes, refresh_ref_docs or "
                    "a loop for many)" if isinstance(node, (list, tuple)) else "")
            raise TypeError("VizRAGIndex indexes llama_index.core Document / BaseNode "
                            f"objects, got {type(node).__module__}.{type(node).__name__}{hint}")
        media = carried_media(node)
        if media:
            raise ValueError(
                f"VizRAGIndex indexes text only: node {node.node_id!r} carries {media}, which "
                "would not be indexed (nor returned); index its text as a Document / TextNode "
                "(e.g. a caption or OCR text of the image)")
        check_fields(node.node_id, "", node.get_content(MetadataMode.NONE),
                     dict(node.metadata or {}))


def carried_media(node: BaseNode) -> str | None:
    """What non-text content ``node`` carries (``"an image"``, ``"audio"``, ``"a video"``),
    None when it is text only: an ``ImageNode``'s ``image``/``image_path``/``image_url``, a
    ``Document``'s (``ImageDocument``'s) image, audio or video resource."""
    if isinstance(node, ImageNode) and (node.image or node.image_path or node.image_url):
        return "an image"
    for attr, what in (("image_resource", "an image"), ("audio_resource", "audio"),
                       ("video_resource", "a video")):
        if getattr(node, attr, None) is not None:
            return what
    return None


def latest_documents(documents: Sequence[Document]) -> list[Document]:
    """One document per id, the last given, by the engine's own policy
    (:func:`~hyperviz_core.rag.index.stream.dedupe_last`: later input wins, kept where it
    was given last; ids given twice with different content are named in one
    ``UserWarning``, an exact repeat is not). Documents compare by their LlamaIndex
    ``hash`` (text and metadata)."""
    stand_ins = [VizDocument(id=d.doc_id, text=d.hash) for d in documents]
    kept = {id(s) for s in dedupe_last(stand_ins)}
    return [d for d, s in zip(documents, stand_ins, strict=True) if id(s) in kept]


def run_marker(node_ids: Iterable[str]) -> str:
    """``<count>:<hash>`` of the distinct ``node_ids`` one run made of one document (stored
    with each of them, :data:`~.nodes.REF_RUN_KEY`).

    >>> run_marker(["b", "a", "a"])
    '2:7e18f737311b2dc3b2f269dd78396b03'
    """
    ids = sorted(set(node_ids))
    digest = sha256("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{len(ids)}:{digest}"


def _as_engine(documents: Sequence[Document], nodes: Sequence[BaseNode]) -> list[VizDocument]:
    hashes = {d.doc_id: d.hash for d in documents}
    titles = {d.doc_id: str((d.metadata or {}).get("title") or "")
              or file_title(d, d.get_content(MetadataMode.NONE)) for d in documents}
    refs: list[str] = []
    for node in nodes:
        # a document passed through whole (no splitter in the pipeline) is its own source
        ref = node.ref_doc_id or (node.node_id if node.node_id in hashes else None)
        if ref not in hashes:
            raise ValueError(
                f"a transformation returned node {node.node_id!r} without the document it "
                f"came from (ref_doc_id {ref!r}): VizRAGIndex groups, refreshes and deletes "
                "nodes by their document")
        refs.append(ref)
    stable_node_ids(nodes, refs)  # random UUIDs → ids of the document and text
    made: dict[str, list[str]] = {}
    for ref, node in zip(refs, nodes, strict=True):
        made.setdefault(ref, []).append(node.node_id)
    runs = {ref: run_marker(ids) for ref, ids in made.items()}
    return [to_engine_document(node, hashes[ref], runs[ref], titles[ref])
            for ref, node in zip(refs, nodes, strict=True)]


def split_documents(documents: Sequence[Document], transformations: Sequence[TransformComponent],
                    show_progress: bool = False) -> list[VizDocument]:
    """``documents`` run through ``transformations``, as engine documents (one per node;
    of two documents with one id the last counts). The caller's documents are not changed
    (transformations run on deep copies; the stored hash is of the document as given)."""
    documents = latest_documents(documents)
    copies = [_body_copy(d) for d in documents]
    nodes = run_transformations(copies, transformations, show_progress=show_progress)
    return _as_engine(documents, nodes)


async def asplit_documents(documents: Sequence[Document],
                           transformations: Sequence[TransformComponent],
                           show_progress: bool = False) -> list[VizDocument]:
    """Async :func:`split_documents` (``arun_transformations``)."""
    documents = latest_documents(documents)
    copies = [_body_copy(d) for d in documents]
    nodes = await arun_transformations(copies, transformations, show_progress=show_progress)
    return _as_engine(documents, nodes)


def _body_copy(document: Document) -> Document:
    """A deep copy of ``document`` to transform, without its file's front matter."""
    copy = document.model_copy(deep=True)
    text = copy.get_content(MetadataMode.NONE)
    body = file_body(copy, text)
    if body != text:
        copy.set_content(body)
    return copy


def stored_nodes(store: Any, refs: Iterable[str]) -> dict[str, list[VizDocument]]:
    """The stored engine documents of the LlamaIndex documents ``refs`` (a whole document,
    or the nodes inserted from it), by document id: one read of every stored document."""
    wanted = set(refs)
    out: dict[str, list[VizDocument]] = {}
    for doc in store.documents():
        ref = ref_doc_of(doc)
        if ref in wanted:
            out.setdefault(ref, []).append(doc)
    return out


def replaced(stored: dict[str, list[VizDocument]], refs: Iterable[str],
             kept: Iterable[str]) -> list[str]:
    """Ids of the engine documents in ``stored`` (:func:`stored_nodes`) of the documents
    ``refs`` that are not in ``kept``: what a new run of the transformations replaces."""
    keep = set(kept)
    return sorted(d.id for ref in set(refs) for d in stored.get(ref, []) if d.id not in keep)


def unchanged(stored: dict[str, list[VizDocument]], documents: Sequence[Document]
              ) -> list[bool]:
    """Per document: what ``stored`` (:func:`stored_nodes`) holds of it is complete and was
    made from this very document, so writing it again would change nothing: its nodes all
    carry its hash and are exactly the nodes one run made (:func:`run_marker`; nodes
    written before the marker existed: the hash alone), or it is stored whole, unchanged.
    A document its transformations turn into no node has nothing stored, so it counts as
    changed every time; so does one whose old and new nodes are both stored (a run
    interrupted between writing the new and deleting the old) or whose new nodes are
    stored in part (a run that failed midway): writing it again replaces them all."""
    return [_complete(stored.get(d.doc_id, []), d) for d in documents]


def _complete(nodes: Sequence[VizDocument], document: Document) -> bool:
    if len(nodes) == 1 and nodes[0].id == document.doc_id and (
            REF_HASH_KEY not in nodes[0].metadata):  # the document itself, stored whole
        return nodes[0].hash == to_engine_document(document).hash
    if not nodes or any(n.metadata.get(REF_HASH_KEY) != document.hash for n in nodes):
        return False
    runs = {n.metadata.get(REF_RUN_KEY) for n in nodes}
    if runs == {None}:  # nodes of an earlier version of this package: the hash alone
        return True
    return len(runs) == 1 and runs == {run_marker(n.id for n in nodes)}
