"""VizRAG results as LlamaIndex nodes: one ``TextNode`` per ranked chunk, one image node.

* :func:`chunk_nodes` — ``RetrievalResult.chunks`` → ``NodeWithScore(VizRAGTextNode)``; the
  node id is the chunk id, the source relationship the LlamaIndex document
  (``node.ref_doc_id``: the document id, or the ``ref_doc_id`` of an inserted node; metadata
  ``doc_id`` is the same document id, ``chunk_id`` the node id), the
  metadata the document's own (as inserted) plus VizRAG's keys (:func:`merge_metadata`: on a
  clash VizRAG's value goes under a ``vizrag_``-prefixed key, never over the document's), and
  the large VizRAG keys (score parts, entity keys, visual IDs) are excluded from what the LLM
  and the embedder read, as are the keys the document itself excluded
  (``excluded_llm_metadata_keys`` / ``excluded_embed_metadata_keys``).
  Passages returned although nothing of the query matched (``RetrievalResult.unmatched``)
  carry ``unmatched: True``. Every chunk node carries the retrieval's model usage under
  ``vizrag_usage`` (:data:`USAGE_KEY`: the ``UsageReport`` as a JSON-safe dict, the same for
  every node of one retrieval, or None when no model was called; :func:`retrieval_usage`).
  What :func:`node_layout` stored of an inserted node comes back
  (its templates; a node's character span and its ``PREVIOUS``/``NEXT``/``PARENT``/``CHILD``
  links, node ids of the same store).
* :class:`VizRAGTextNode` — a ``TextNode`` whose ``hash`` leaves out the per-query metadata
  (rank, scores, entity links), so one chunk has one hash whatever the query or mode
  (``QueryFusionRetriever`` de-duplicates and fuses nodes by hash).
* :class:`VizRAGImageNode` — an ``ImageNode`` whose ``image`` is the base64 PNG of a HyperViz
  rendering and whose text is its caption. Its content blocks put the caption as a
  ``TextBlock`` right after the ``ImageBlock`` (the stock ``ImageNode`` drops the text on the
  multimodal path), its id is a content hash, and its ``repr`` never prints the base64.
  Its metadata names what the image labels (``entity_ids``: entity key → ``E#``,
  ``hyperedge_ids``: hyperedge id → ``H#``, ``legend``: ``E#``/``H#`` → what it is;
  :func:`drawn_items` reads them back).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from hashlib import sha256
from pathlib import Path
from typing import Any

from llama_index.core.base.llms.types import BaseContentBlock, ImageBlock, TextBlock
from llama_index.core.schema import (
    Document,
    ImageNode,
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    RelatedNodeInfo,
    TextNode,
)
from pydantic import Field

from hyperviz_core.rag import RankedChunk, RetrievalResult, VisualContext, visual_ids
from hyperviz_core.rag.citations import LabelledItem, export_legend, labelled_items
from hyperviz_core.rag.index.suffixes import TEXT_SUFFIXES
from hyperviz_core.rag.index.titles import FRONT_MATTER_CHARS, front_matter
from hyperviz_core.rag.result_metadata import (
    VIZRAG_PREFIX,
    merge_metadata,
    vizrag_key,
    vizrag_value,
)
from hyperviz_core.unitext import plain_text

__all__ = [
    "CHUNK_LLM_METADATA",
    "USAGE_KEY",
    "VIZRAG_PREFIX",
    "VizRAGImageNode",
    "VizRAGTextNode",
    "chunk_nodes",
    "drawn_items",
    "image_node",
    "is_image_node",
    "merge_metadata",
    "node_layout",
    "retrieval_usage",
    "stored_ref",
    "user_metadata",
    "vizrag_value",
]

CHUNK_LLM_METADATA: tuple[str, ...] = ("title", "doc_id")
"""VizRAG's chunk metadata keys the LLM reads; VizRAG's other keys are excluded."""

ENGINE_BOOKKEEPING: tuple[str, ...] = ("source", "part", "offset", "title_inferred")
"""Keys VizRAG's own loaders and title inference add to a document: kept on the node,
never shown to the LLM."""

REF_DOC_KEY = "_llamaindex_ref_doc_id"
"""Stored metadata key: the LlamaIndex document an inserted node came from (private, like
the others: a user's own ``"ref_doc_id"`` metadata is the user's and links nothing)."""

LEGACY_REF_DOC_KEY = "ref_doc_id"
"""The key earlier versions stored the link under; read only beside :data:`REF_HASH_KEY`,
which only this package writes (a transformed document's node)."""

EXCLUDED_KEY = "_llamaindex_excluded"
"""Stored metadata key: the inserted document's excluded metadata keys (``llm``, ``embed``)."""

REF_HASH_KEY = "_llamaindex_ref_doc_hash"
"""Stored metadata key: the hash of the document a node was transformed from."""

REF_RUN_KEY = "_llamaindex_ref_doc_nodes"
"""Stored metadata key: which nodes the run that wrote a transformed document's node made of
it (``<count>:<hash of their sorted ids>``), so that a set left incomplete or doubled (a run
that failed or was interrupted between writing the new nodes and deleting the old ones)
counts as changed and is written again whole (:func:`~.documents.unchanged`)."""

LAYOUT_KEY = "_llamaindex_node"
"""Stored metadata key: what of an inserted node's own form a retrieved node gets back
(:func:`node_layout`), absent when there is nothing to keep."""

TEMPLATE_FIELDS: tuple[str, ...] = ("metadata_template", "metadata_separator", "text_template")
"""A node's templates: kept when they are not LlamaIndex's defaults."""

LINKS: dict[str, NodeRelationship] = {
    "previous": NodeRelationship.PREVIOUS, "next": NodeRelationship.NEXT,
    "parent": NodeRelationship.PARENT, "child": NodeRelationship.CHILD}
"""A node's links to other nodes, kept for a node (not a document the engine chunks)."""

IMAGE_ID_PREFIX = "vizrag-image-"

USAGE_KEY = "vizrag_usage"
"""Chunk metadata key: the model usage of the retrieval that returned the chunk
(``RetrievalResult.usage`` as a JSON-safe dict; None: no model call), hidden from the LLM
and the embedder and left out of the node's hash."""

CHUNK_STABLE_METADATA: tuple[str, ...] = ("title", "doc_id", "chunk_id")
"""VizRAG's chunk metadata keys that do not depend on the query (all others do: rank,
``vizrag_score``, ``score_<part>``, the entity and hyperedge links of the views drawn)."""

class VizRAGTextNode(TextNode):
    """A retrieved chunk: a ``TextNode`` whose ``hash`` leaves out the metadata that changes
    from query to query (``query_metadata_keys``: VizRAG's rank, scores and entity links).

    ``TextNode.hash`` covers the text and all the metadata, so the same chunk retrieved twice
    (another query, another mode) would hash differently, and ``QueryFusionRetriever``, which
    fuses nodes by hash, would count it as two. The hash is that of a plain ``TextNode`` with
    the same text and the metadata less those keys. ``class_name()`` stays ``"TextNode"``
    (a serialised node loads as a plain ``TextNode``).

    >>> a = VizRAGTextNode(text="t", metadata={"doc_id": "d", "rank": 1},
    ...                    query_metadata_keys=["rank"])
    >>> b = VizRAGTextNode(text="t", metadata={"doc_id": "d", "rank": 2},
    ...                    query_metadata_keys=["rank"])
    >>> a.hash == b.hash == TextNode(text="t", metadata={"doc_id": "d"}).hash
    True
    """

    query_metadata_keys: list[str] = Field(
        default_factory=list, repr=False,
        description="Metadata keys that depend on the query, left out of the hash.")

    @property
    def hash(self) -> str:
        skip = set(self.query_metadata_keys)
        stable = {k: v for k, v in self.metadata.items() if k not in skip}
        identity = str(self.text) + str(stable)
        return str(sha256(identity.encode("utf-8", "surrogatepass")).hexdigest())


class VizRAGImageNode(ImageNode):
    """A HyperViz rendering as a LlamaIndex image node (caption kept next to the image).

    >>> node = VizRAGImageNode(image="aGk=", image_mimetype="image/png", text="E1 = Ada")
    >>> [type(b).__name__ for b in node.get_content_blocks()]
    ['ImageBlock', 'TextBlock']
    >>> "aGk=" in repr(node)
    False
    """

    image: str | None = Field(default=None, repr=False)
    image_detail: str | None = Field(
        default="high", description="Vision detail level (OpenAI ``detail``); the labels "
        "of a rendering are unreadable at low detail.")

    @classmethod
    def class_name(cls) -> str:
        return "VizRAGImageNode"

    def get_content_blocks(
        self, metadata_mode: MetadataMode = MetadataMode.NONE
    ) -> list[BaseContentBlock]:
        """Metadata (if any), the image (with ``image_detail``), then the caption."""
        blocks: list[Any] = list(self.get_metadata_content_blocks(metadata_mode))
        for block in super().get_content_blocks(MetadataMode.NONE):
            if isinstance(block, ImageBlock) and self.image_detail:
                block.detail = self.image_detail
            blocks.append(block)
        if self.text:
            blocks.append(TextBlock(text=self.text))
        return blocks

    def __repr__(self) -> str:
        size = len(self.image or "")
        return (f"VizRAGImageNode(id_={self.node_id!r}, image=<{size} base64 chars>, "
                f"image_mimetype={self.image_mimetype!r}, caption={self.text[:60]!r})")

    def __str__(self) -> str:
        return repr(self)


def is_image_node(node: Any) -> bool:
    """True for the VizRAG image node (or any ``ImageNode``)."""
    return isinstance(node, ImageNode)


def image_node(ctx: VisualContext, *, view: str, score: float | None) -> NodeWithScore:
    """The scored image node of one rendering (id = ``vizrag-image-<sha256 prefix>``)."""
    ents, edges = visual_ids(ctx.export)
    meta = {"view": view, "sha256": ctx.sha256, "width": ctx.width, "height": ctx.height,
            "entities": ctx.entities, "hyperedges": ctx.hyperedges, "entity_ids": ents,
            "hyperedge_ids": edges, "legend": export_legend(ctx.export)}
    node = VizRAGImageNode(
        id_=IMAGE_ID_PREFIX + ctx.sha256[:32], image=ctx.png_base64,
        image_mimetype=ctx.mime_type, text=ctx.caption, metadata=meta,
        excluded_llm_metadata_keys=sorted(meta), excluded_embed_metadata_keys=sorted(meta))
    return NodeWithScore(node=node, score=score)


def drawn_items(nodes: Sequence[NodeWithScore]) -> list[LabelledItem]:
    """The items the image nodes among ``nodes`` label (their ``entity_ids`` /
    ``hyperedge_ids`` and ``legend``, each under the node's ``view`` and id), in the nodes'
    order: what an answer may cite as ``E#``/``H#``. An image node of another kind labels
    nothing."""
    out: list[LabelledItem] = []
    for item in nodes:
        meta = item.node.metadata if is_image_node(item.node) else {}
        ents, edges = meta.get("entity_ids"), meta.get("hyperedge_ids")
        if isinstance(ents, Mapping) and isinstance(edges, Mapping):
            legend = meta.get("legend")
            out += labelled_items(str(meta.get("view") or ""), ents, edges,
                                  legend=legend if isinstance(legend, Mapping) else None,
                                  image=item.node.node_id)
    return out


def stored_ref(meta: dict[str, Any]) -> str | None:
    """The LlamaIndex document a stored engine document was inserted as a node of, if any
    (:data:`REF_DOC_KEY`; a store of an earlier version: :data:`LEGACY_REF_DOC_KEY` beside
    :data:`REF_HASH_KEY`)."""
    ref = meta.get(REF_DOC_KEY)
    if not ref and REF_HASH_KEY in meta:
        ref = meta.get(LEGACY_REF_DOC_KEY)
    return str(ref) if ref else None


def body_start(node: Any, text: str) -> int:
    """Where the indexed text of ``node`` (text ``text``) starts: after the front matter a
    reader's text file opens with (a ``Document`` with a ``.md``/``.txt``... ``file_name``,
    which ``vizrag index`` leaves out too), else 0.

    >>> body_start(Document(text="", metadata={"file_name": "a.md"}),
    ...            "---\\ntitle: Atlas\\n---\\nBody.")
    21
    """
    name = (getattr(node, "metadata", None) or {}).get("file_name")
    if not (isinstance(node, Document) and isinstance(name, str) and name):
        return 0
    suffix = Path(name).suffix
    if suffix.lower() not in TEXT_SUFFIXES:
        return 0
    return front_matter(text[:FRONT_MATTER_CHARS], suffix).length


def text_base(node: Any) -> int | None:
    """Where the text the engine chunks starts in the document's own text (``node.text``),
    so that a chunk's ``start``/``end`` plus it are the document's offsets: 0, the length of
    the front matter left out (:func:`body_start`), or None when the engine's text is not a
    slice of the document's (Unicode normalisation, :func:`~hyperviz_core.unitext.plain_text`,
    changed it: decomposed accents, soft hyphens, ligatures).

    >>> text_base(Document(text="Marie Curie.")), text_base(Document(text="Zu\\u0308rich"))
    (0, None)
    """
    text = node.get_content(MetadataMode.NONE)
    start = body_start(node, text)
    body = text[start:]
    return start if plain_text(body) == body else None


def node_layout(node: Any, *, whole: bool) -> dict[str, Any]:
    """What of ``node``'s own form is stored with it (under :data:`LAYOUT_KEY`): its
    templates that are not LlamaIndex's defaults and, for a node indexed as one chunk (not
    ``whole``: a document the engine chunks), its character span in its document
    (``start_char_idx``/``end_char_idx``) and its links to other nodes (ids only); for a
    whole document whose chunks' offsets are not offsets into its text from 0, its
    :func:`text_base` (``base``: an int, or None when they are none of its text's).

    >>> node = TextNode(id_="n1", text="t", text_template="[{content}]", start_char_idx=0,
    ...                 end_char_idx=1)
    >>> node.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id="n2")
    >>> node_layout(node, whole=False)
    {'templates': {'text_template': '[{content}]'}, 'span': [0, 1], 'links': {'next': 'n2'}}
    """
    out: dict[str, Any] = {}
    templates = {name: getattr(node, name) for name in TEMPLATE_FIELDS
                 if isinstance(getattr(node, name, None), str)
                 and getattr(node, name) != TextNode.model_fields[name].default}
    if templates:
        out["templates"] = templates
    if whole:
        base = text_base(node)
        if base != 0:  # (0, the rule, is not stored: a document's hash stays as it was)
            out["base"] = base
        return out
    span = (getattr(node, "start_char_idx", None), getattr(node, "end_char_idx", None))
    if all(isinstance(v, int) for v in span):
        out["span"] = list(span)
    links: dict[str, Any] = {}
    for name, rel in LINKS.items():
        got = node.relationships.get(rel)
        if isinstance(got, RelatedNodeInfo):
            links[name] = got.node_id
        elif isinstance(got, list) and got:
            links[name] = [info.node_id for info in got]
    if links:
        out["links"] = links
    return out


def _layout_fields(stored: Any) -> dict[str, Any]:
    """The ``TextNode`` fields of a stored :func:`node_layout` (anything malformed left out)."""
    if not isinstance(stored, Mapping):
        return {}
    fields: dict[str, Any] = {}
    templates = stored.get("templates")
    if isinstance(templates, Mapping):
        fields |= {k: v for k, v in templates.items() if k in TEMPLATE_FIELDS
                   and isinstance(v, str)}
    span = stored.get("span")
    if isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span):
        fields["start_char_idx"], fields["end_char_idx"] = span
    links = stored.get("links")
    relations: dict[NodeRelationship, Any] = {}
    for name, ids in (links.items() if isinstance(links, Mapping) else ()):
        if name in LINKS and isinstance(ids, str):
            relations[LINKS[name]] = RelatedNodeInfo(node_id=ids)
        elif name in LINKS and isinstance(ids, list):
            relations[LINKS[name]] = [RelatedNodeInfo(node_id=str(i)) for i in ids]
    if relations:
        fields["relationships"] = relations
    return fields


def _chunk_span(chunk: RankedChunk) -> dict[str, Any]:
    """``start_char_idx``/``end_char_idx`` of a chunk the engine cut from a whole document:
    its ``start``/``end`` in the engine's text plus the document's stored ``base``
    (:func:`text_base`; none when that is None, or for a chunk that is a node)."""
    start, end = getattr(chunk, "start", None), getattr(chunk, "end", None)
    if chunk.chunk_id == chunk.doc_id or not (isinstance(start, int) and isinstance(end, int)):
        return {}
    stored = chunk.metadata.get(LAYOUT_KEY)
    base = stored.get("base", 0) if isinstance(stored, Mapping) else 0
    if not isinstance(base, int) or isinstance(base, bool):
        return {}
    return {"start_char_idx": base + start, "end_char_idx": base + end}


def user_metadata(meta: dict[str, Any]) -> dict[str, Any]:
    """A stored document's metadata without the keys this package stores beside it."""
    ours = {EXCLUDED_KEY, REF_DOC_KEY, REF_HASH_KEY, REF_RUN_KEY, LAYOUT_KEY}
    if REF_DOC_KEY not in meta and REF_HASH_KEY in meta:
        ours.add(LEGACY_REF_DOC_KEY)  # an earlier version's link
    return {k: v for k, v in meta.items() if k not in ours}


def _excluded(stored: Any, kind: str) -> list[str]:
    keys = stored.get(kind) if isinstance(stored, dict) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def _vizrag_meta(chunk: RankedChunk, result: RetrievalResult,
                 shown: dict[str, Any] | None, source: str) -> dict[str, Any]:
    """VizRAG's own keys of a chunk node (title, ids, rank, score parts, evidence);
    ``doc_id``: the LlamaIndex document (``source``, the node's ``ref_doc_id``)."""
    meta: dict[str, Any] = {"title": chunk.title} if chunk.title else {}
    meta |= {
        "doc_id": source,
        "chunk_id": chunk.chunk_id,
        "rank": chunk.rank,
        "vizrag_score": chunk.score,
        **result.chunk_links(chunk, shown),
        USAGE_KEY: None if result.usage is None else result.usage.model_dump(mode="json"),
    }
    for part, value in sorted(chunk.evidence.items()):
        meta[f"score_{part}"] = value
    if result.unmatched:  # nothing of the query matched: the passages are arbitrary
        meta["unmatched"] = True
    return meta


def chunk_nodes(result: RetrievalResult, shown: dict[str, Any] | None = None
                ) -> list[NodeWithScore]:
    """One ``NodeWithScore(VizRAGTextNode)`` per ranked chunk, best first: the document's own
    metadata as inserted, then VizRAG's keys (:func:`merge_metadata`: under a ``vizrag_``
    prefixed name where the document holds the key with another value); ``shown``: the
    export of a rendering shown instead of the result's views (its E#/H# are given). When
    nothing of the query matched (``result.unmatched``: the passages are arbitrary) every
    node carries ``unmatched: True`` (read it with ``vizrag_value(meta, "unmatched")``)."""
    out: list[NodeWithScore] = []
    for chunk in result.chunks:
        own = user_metadata(chunk.metadata)
        source = stored_ref(chunk.metadata) or chunk.doc_id
        meta, where = merge_metadata(own, _vizrag_meta(chunk, result, shown, source))
        added = {name for name in where.values() if name not in own}  # VizRAG's alone
        stored = chunk.metadata.get(EXCLUDED_KEY)
        hidden = ({where[k] for k in where if k not in CHUNK_LLM_METADATA}
                  | ((set(_excluded(stored, "llm")) | set(ENGINE_BOOKKEEPING)) & set(own)))
        unembedded = set(where.values()) | (set(_excluded(stored, "embed")) & set(own))
        layout = _layout_fields(chunk.metadata.get(LAYOUT_KEY))
        if "start_char_idx" not in layout:  # a node's own span, else the engine chunk's
            layout |= _chunk_span(chunk)
        links = layout.pop("relationships", {})
        node = VizRAGTextNode(
            id_=chunk.chunk_id, text=chunk.text, metadata=meta,
            excluded_llm_metadata_keys=sorted(hidden),
            excluded_embed_metadata_keys=sorted(unembedded),
            query_metadata_keys=sorted(
                {where[k] for k in where if k not in CHUNK_STABLE_METADATA} & added),
            relationships={**links, NodeRelationship.SOURCE: RelatedNodeInfo(node_id=source)},
            **layout)
        out.append(NodeWithScore(node=node, score=chunk.score))
    return out


def retrieval_usage(nodes: Sequence[NodeWithScore]) -> dict[str, Any] | None:
    """The model usage of the VizRAG retrieval that returned ``nodes`` (:data:`USAGE_KEY` of
    the first VizRAG chunk node among them: one retrieval's nodes all carry the same); None
    when no model was called, or no VizRAG chunk node is there.

    >>> node = VizRAGTextNode(text="t", metadata={USAGE_KEY: {"calls": 1}})
    >>> retrieval_usage([NodeWithScore(node=node)]), retrieval_usage([])
    ({'calls': 1}, None)
    """
    for item in nodes:
        meta = item.node.metadata
        if isinstance(item.node, VizRAGTextNode) and vizrag_key(meta, USAGE_KEY) is not None:
            usage = vizrag_value(meta, USAGE_KEY)
            return dict(usage) if isinstance(usage, Mapping) else None
    return None


def top_score(nodes: Sequence[NodeWithScore]) -> float | None:
    """The best score among ``nodes`` (None when none is scored)."""
    scores = [n.score for n in nodes if n.score is not None]
    return max(scores) if scores else None


def low_score(nodes: Sequence[NodeWithScore]) -> float | None:
    """The weakest score among ``nodes`` (None when none is scored)."""
    scores = [n.score for n in nodes if n.score is not None]
    return min(scores) if scores else None


def image_blocks(node: VizRAGImageNode) -> list[ImageBlock]:
    """The image blocks of ``node`` (for tests and debugging)."""
    return [b for b in node.get_content_blocks() if isinstance(b, ImageBlock)]
