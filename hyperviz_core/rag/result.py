"""Structured retrieval output: what ``VizRAG.retrieve``/``query`` return and the CLI prints.

Everything is a pydantic model, so a :class:`RetrievalResult` round-trips through JSON
(``result.model_dump_json()`` / ``RetrievalResult.model_validate_json(text)``). Renderings are
carried as base64 PNG plus the renderer's export dict and caption, so a result file is
self-contained (the HTML viewer can be rebuilt from it).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from .providers.usage import UsageReport

if TYPE_CHECKING:
    from ..viewer import InlineViewer

__all__ = [
    "UNMATCHED_WARNING",
    "AnswerKind",
    "CaptionOnlyWarning",
    "Citations",
    "RankedChunk",
    "RenderedView",
    "RetrievalResult",
    "RetrievedEntity",
    "RetrievedHyperedge",
    "SentPrompt",
    "image_sha256",
    "rendered_links",
    "visual_ids",
]

AnswerKind = Literal["llm", "extractive", "none"]


def visual_ids(export: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """The ``E#`` of each entity key and the ``H#`` of each hyperedge id drawn by a
    rendering, from its export (``RenderedView.export`` / ``VisualContext.export``).

    >>> visual_ids({"entities": [{"key": "ada", "id": "E1"}],
    ...             "hyperedges": [{"key": "h-1", "id": "H1"}]})
    ({'ada': 'E1'}, {'h-1': 'H1'})
    """
    def ids(kind: str) -> dict[str, str]:
        return {str(item.get("key")): str(item.get("id")) for item in export.get(kind, [])
                if isinstance(item, Mapping) and item.get("id")}
    return ids("entities"), ids("hyperedges")


def _sourced(export: Mapping[str, Any], kind: str, chunk_id: str) -> list[str]:
    """Keys of the ``kind`` items (``entities``/``hyperedges``) of a rendering's export whose
    ``source_ids`` hold ``chunk_id``, in the export's order."""
    return [str(item.get("key")) for item in export.get(kind, [])
            if isinstance(item, Mapping) and chunk_id in (item.get("source_ids") or ())]


def rendered_links(shown: Mapping[str, Any], chunk_id: str, entities: Sequence[str] = (),
                   hyperedges: Sequence[str] = ()) -> dict[str, Any]:
    """What links passage ``chunk_id`` to a rendering (its export ``shown``): ``entities`` /
    ``hyperedges`` — the keys given (a retrieval's own, best first), then those the
    rendering draws from this passage (its ``source_ids``) — and their ``E#`` / ``H#``
    (``entity_ids`` / ``hyperedge_ids``, for those drawn). A mode that links no entity to
    its chunks (``naive``) still gets the IDs of the image shown.

    >>> rendered_links({"entities": [{"key": "ada", "id": "E1", "source_ids": ["c1"]}],
    ...                 "hyperedges": [{"key": "h-1", "id": "H1", "source_ids": ["c2"]}]}, "c1")
    {'entities': ['ada'], 'entity_ids': {'ada': 'E1'}, 'hyperedges': [], 'hyperedge_ids': {}}
    """
    ents, drawn = visual_ids(shown)
    keys = list(dict.fromkeys([*entities, *_sourced(shown, "entities", chunk_id)]))
    edges = list(dict.fromkeys([*hyperedges, *_sourced(shown, "hyperedges", chunk_id)]))
    return {"entities": keys, "entity_ids": {k: ents[k] for k in keys if k in ents},
            "hyperedges": edges, "hyperedge_ids": {h: drawn[h] for h in edges if h in drawn}}


def image_sha256(png: bytes) -> str:
    """Hex SHA-256 of image bytes (how results name the images sent to a model)."""
    return hashlib.sha256(png).hexdigest()

#: the warning of a retrieval that returned passages nothing of the query matched
#: (:attr:`RetrievalResult.unmatched`), as the rank stage records it and the wrappers log it
UNMATCHED_WARNING = ("no passage matched the query (no word of it, no entity it names): the "
                     "passages returned are arbitrary")


class CaptionOnlyWarning(UserWarning):
    """The model is not a chat model, so of a rendering only its caption reaches it (the
    framework wrappers warn with it)."""


class RankedChunk(BaseModel):
    """One retrieved passage with its final score and the evidence behind it.

    ``evidence`` holds the score components before weighting (``bm25``, ``vector`` and
    ``ppr`` in [0, 1]; ``graph`` in [0, 1.5] with the default weights: home evidence plus
    capped mention evidence);
    ``entities`` the keys of retrieved entities whose sources include this chunk;
    ``metadata`` the chunk's stored metadata (its document's metadata and title: what the
    document was inserted with, e.g. ``{"source": "notes/a.md"}`` from a file loader);
    ``start``/``end`` its character span in its document's text as the engine stored it
    (NFC-composed, :func:`~hyperviz_core.unitext.plain_text`) and ``index`` its place among
    the document's chunks.
    """

    chunk_id: str
    doc_id: str
    score: float
    rank: int
    text: str
    title: str = ""
    evidence: dict[str, float] = Field(default_factory=dict)
    entities: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    start: int = 0
    end: int = 0
    index: int = 0


class RetrievedEntity(BaseModel):
    """An entity reached by retrieval. ``visual_id`` is its ``E#`` in the bottom rendering
    (or the top one for top-layer-only entities) when one was rendered."""

    key: str
    name: str
    type: str = "entity"
    description: str = ""
    score: float = 0.0
    layer: Literal["top", "bottom"] = "bottom"
    role: Literal["anchor", "related", "context"] = "related"
    source_ids: list[str] = Field(default_factory=list)
    visual_id: str | None = None


class RetrievedHyperedge(BaseModel):
    """A relation or theme hyperedge reached by retrieval (``visual_id`` = its ``H#``)."""

    id: str
    kind: Literal["relation", "theme"] = "relation"
    members: list[str] = Field(default_factory=list)
    description: str = ""
    score: float = 0.0
    source_ids: list[str] = Field(default_factory=list)
    visual_id: str | None = None


class RenderedView(BaseModel):
    """One rendering (I_top or I_bot): PNG (base64), size, caption and the export dict."""

    png_base64: str
    width: int
    height: int
    caption: str = ""
    layouts: list[str] = Field(default_factory=list)
    export: dict[str, Any] = Field(default_factory=dict)
    sha256: str = ""

    @classmethod
    def from_rendering(cls, rendering: Any) -> RenderedView:
        """Build from a renderer ``Rendering`` (png, width, height, caption, export())."""
        png: bytes = rendering.png
        return cls(
            png_base64=base64.b64encode(png).decode("ascii"),
            width=int(rendering.width),
            height=int(rendering.height),
            caption=str(getattr(rendering, "caption", "")),
            layouts=[str(x) for x in getattr(rendering, "layouts", [])],
            export=rendering.export(),
            sha256=image_sha256(png),
        )

    @property
    def png(self) -> bytes:
        """The PNG bytes."""
        return base64.b64decode(self.png_base64)

    @property
    def is_empty(self) -> bool:
        """True when the rendering shows no entity (a filter nothing of the view passes)."""
        return not self.export.get("entities")

    def _repr_png_(self) -> bytes:  # a notebook shows the image itself
        return self.png

    def __repr__(self) -> str:  # not the base64 PNG and the export (300 kB)
        try:
            return (f"RenderedView({self.width}x{self.height}, layouts={self.layouts}, "
                    f"{len(self.png_base64) * 3 // 4} PNG bytes, sha256={self.sha256[:12]})")
        except AttributeError:  # built without its fields (model_construct)
            return "RenderedView(...)"

    __str__ = __repr__

    def to_html(self) -> str:
        """A self-contained HTML viewer of this view (as ``Rendering.to_html``)."""
        from ..viewer import render_html

        return str(render_html(self.export, png=self.png))

    def viewer(self, height: int = 640) -> InlineViewer:
        """The viewer for a notebook: :meth:`to_html` in a sandboxed ``<iframe>``
        (``result.bottom_view.viewer()`` as a cell's last line shows it)."""
        from ..viewer import InlineViewer

        return InlineViewer(self.to_html(), height=height)

    def id_map(self) -> dict[str, str]:
        """Visual ID → key (entities and hyperedges) as recorded in the export. (Unlike
        ``Rendering``, whose ``id_map`` is an :class:`~hyperviz_core.IdMap` field and whose
        ``export()`` is a method, a view read back from JSON holds ``export`` as a field.)"""
        out: dict[str, str] = {}
        for item in self.export.get("entities", []):
            out[str(item.get("id"))] = str(item.get("key"))
        for item in self.export.get("hyperedges", []):
            out[str(item.get("id"))] = str(item.get("key"))
        return out


class SentPrompt(BaseModel):
    """A prompt sent to the chat model (kept for debugging): stage, text, image hashes."""

    stage: str
    prompt: str
    system: str | None = None
    images: list[str] = Field(default_factory=list)  # SHA-256 of each PNG sent
    response: str | None = None


class Citations(BaseModel):
    """The citations of an answer (in order of first mention, no duplicates).

    ``passages``: the ranks (``[n]``) of the passages it cites that its prompt carried;
    ``ids``: the ``E#``/``H#`` it cites that its prompt named; ``unknown``: what it cites
    that its prompt did not give (``"[7]"``, ``"H9"``); ``carried``: how many passages the
    prompt carried."""

    passages: list[int] = Field(default_factory=list)
    ids: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)
    carried: int = 0

    def warning(self) -> str | None:
        """One line naming the made-up citations (None when there are none)."""
        if not self.unknown:
            return None
        given = f"passages [1]-[{self.carried}]" if self.carried else "no passages"
        shown = ", ".join(self.unknown[:10]) + (" ..." if len(self.unknown) > 10 else "")
        return f"the answer cites {shown}, which its prompt did not give ({given})"


class RetrievalResult(BaseModel):
    """The outcome of one query, from keywords to (optionally) the answer."""

    query: str
    mode: str
    top_k: int = 5
    keywords: list[str] = Field(default_factory=list)
    anchors: list[str] = Field(default_factory=list)
    located: list[str] = Field(default_factory=list)
    chunks: list[RankedChunk] = Field(default_factory=list)
    entities: list[RetrievedEntity] = Field(default_factory=list)
    hyperedges: list[RetrievedHyperedge] = Field(default_factory=list)
    top_view: RenderedView | None = None
    bottom_view: RenderedView | None = None
    timings: dict[str, float] = Field(default_factory=dict)  # stage -> milliseconds
    prompts: list[SentPrompt] = Field(default_factory=list)
    answer: str | None = None
    answer_kind: AnswerKind = "none"
    citations: Citations | None = None
    """What a model's answer cites (``answer_kind="llm"``), checked against its prompt:
    :func:`~hyperviz_core.rag.citations.read_citations`."""
    settings: dict[str, Any] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    skipped_views: dict[str, str] = Field(default_factory=dict)
    """View (``"top"``/``"bottom"``) → why it was not rendered (nothing would read it,
    ``render=False``, text mode ...); empty when every view of the mode was rendered."""

    matched: bool | None = None
    """Whether anything of the query reached the passages returned — a word of it (BM25), an
    entity it names, or a semantic embedder's chunk vectors; set by the ranking of the
    graph modes (None: decided by the scores alone)."""

    usage: UsageReport | None = None
    """The chat-model calls this query made (keywords, locate, the answer, streamed too):
    calls, tokens (provider-reported, else estimated ``len/4``), retries, failures, images,
    seconds (:mod:`~hyperviz_core.rag.query_usage`); None when no model was called
    (offline)."""

    #: why the chat model is not called again in this query (a call failed with a
    #: retryable error, its retries spent: :class:`~.query_usage.CountedChat`)
    _chat_down: BaseException | None = PrivateAttr(default=None)

    def __repr__(self) -> str:  # a summary: the whole result is model_dump_json()'s
        try:
            views = [n for n, v in (("top", self.top_view), ("bottom", self.bottom_view)) if v]
            return (f"RetrievalResult(query={self.query[:80]!r}, mode={self.mode!r}, "
                    f"chunks={[c.doc_id for c in self.chunks]}, entities={len(self.entities)}, "
                    f"hyperedges={len(self.hyperedges)}, views={views}, "
                    f"answer_kind={self.answer_kind!r}, warnings={len(self.warnings)})")
        except AttributeError:  # built without its fields (model_construct)
            return "RetrievalResult(...)"

    __str__ = __repr__

    @property
    def unmatched(self) -> bool:
        """Whether passages were returned that nothing of the query matched (every score 0,
        or :attr:`matched` False: only graph evidence the query did not seed), so they are
        arbitrary."""
        return bool(self.chunks) and (self.matched is False
                                      or max(c.score for c in self.chunks) <= 0)

    def chunk_links(self, chunk: RankedChunk,
                    shown: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """What links ``chunk`` to the hypergraph, in the result's order (best first), with
        the ``E#``/``H#`` IDs of the rendered views (what the framework wrappers put in a
        chunk's metadata):
        ``entities`` (retrieved entity keys it holds), ``entity_ids`` (key → ``E#``),
        ``hyperedges`` (retrieved hyperedges sourced from it), ``hyperedge_ids`` (id → ``H#``).

        I_top and I_bot number their entities and hyperedges each from 1, so only the IDs of
        the views rendered are given: themes and top-layer entities when I_top was drawn,
        relations and bottom entities when I_bot was drawn or when nothing was (the numbering
        of the answer prompt's listings). ``shown``: the export of another rendering shown
        instead of the views (e.g. :func:`~hyperviz_core.rag.render_passages`' for the
        modes that draw none); its IDs are given, for the chunk's entities and hyperedges
        and those the rendering draws from the chunk (:func:`rendered_links`).

        >>> r = RetrievalResult(query="q", mode="naive")
        >>> r.chunk_links(RankedChunk(chunk_id="c", doc_id="d", score=1.0, rank=1, text="t"))
        {'entities': [], 'entity_ids': {}, 'hyperedges': [], 'hyperedge_ids': {}}
        """
        keys = list(chunk.entities)
        edges = [h for h in self.hyperedges if chunk.chunk_id in h.source_ids]
        if shown is not None:
            return rendered_links(shown, chunk.chunk_id, keys, [h.id for h in edges])
        top = self.top_view is not None
        bottom = self.bottom_view is not None or not top
        visual = {e.key: e.visual_id for e in self.entities
                  if e.visual_id and (top if e.layer == "top" else bottom)}
        labels = {h.id: (h.visual_id if (top if h.kind == "theme" else bottom) else None)
                  for h in edges}
        return {"entities": keys, "entity_ids": {k: visual[k] for k in keys if k in visual},
                "hyperedges": list(labels),
                "hyperedge_ids": {h: v for h, v in labels.items() if v}}

    @property
    def images_sent(self) -> list[str]:
        """SHA-256 of every image sent to a model, in order."""
        return [h for p in self.prompts for h in p.images]

    def passages(self, limit: int | None = None) -> list[tuple[str, str]]:
        """The ranked chunks as ``(chunk id, text)`` pairs, best first (the first ``limit``):
        what :func:`~hyperviz_core.rag.render_passages` draws for a mode that drew no view
        (``text``, ``naive``)."""
        chunks = self.chunks if limit is None else self.chunks[:limit]
        return [(c.chunk_id, c.text) for c in chunks]

    def to_json(self, *, indent: int | None = None) -> str:
        """JSON text (same as ``model_dump_json``)."""
        return self.model_dump_json(indent=indent)

    @classmethod
    def from_json(cls, text: str | bytes) -> RetrievalResult:
        """Parse JSON produced by :meth:`to_json`."""
        return cls.model_validate_json(text)
