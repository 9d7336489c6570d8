"""Visual context for any retrieved passages: their sub-hypergraph, rendered by HyperViz.

Framework wrappers (the LlamaIndex postprocessor, the LangChain image renderer, the Hyper-RAG
bridge) call this to turn a list of retrieved passages — from any retriever — into the image a
multimodal model reads, without doing retrieval themselves:

* :func:`render_passages` — ``(id, text)`` passages → :class:`VisualContext`. When a ``store``
  is given, passages whose id is one of its chunk ids contribute the store's G_bot entities
  whose sources include that chunk; the other passages are extracted from their text with
  the indexer's extractor (offline :class:`~hyperviz_core.rag.HeuristicExtractor` by default)
  and merged in. The sub-hypergraph keeps every hyperedge whose members all lie in it.
  With ``filters`` (the query's metadata filter), the store's entities and hyperedges are
  those a filtered query shows (:func:`~.retrieve.shown.passing_graph`: all their source
  chunks pass), so no text of an excluded document reaches the picture or its caption; the
  store's passages are also extracted from their own text, so an entity an excluded
  document names too (the subject of a shared topic) is still drawn, as they say it.
* :func:`render_hypergraph` — a ready sub-hypergraph → :class:`VisualContext`.
* :meth:`VisualContext.from_view` — wrap an engine rendering
  (:class:`~hyperviz_core.rag.RenderedView`, e.g. ``RetrievalResult.bottom_view``).

Empty input: an empty ``passages`` sequence raises ``ValueError``; passages in which nothing
is found give a valid context of an empty rendering (``ctx.is_empty`` is True), so callers
decide whether to send it.

Example:
    >>> from hyperviz_core.rag.visual_context import render_passages
    >>> ctx = render_passages([("p1", "Marie Curie worked with Pierre Curie in Paris.")],
    ...                       query="Where did Marie Curie work?")
    >>> ctx.mime_type, ctx.png[:4], ctx.entities >= 2, ctx.is_empty
    ('image/png', b'\\x89PNG', True, False)
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Iterable, Mapping, Sequence, Sized
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from ..model import Hypergraph
from ..prune import Budget
from .hooks import Hook, HookEvent, afire, elapsed_ms, error_text, fire
from .retrieve.filters import ChunkFilter, as_filter
from .retrieve.shown import passing_graph

if TYPE_CHECKING:
    from ..render import HyperViz
    from .extract import Extractor
    from .result import RenderedView
    from .store import StoreProtocol
    from .types import ChunkExtraction

__all__ = [
    "VisualContext",
    "arender_passages",
    "passages_hypergraph",
    "render_hypergraph",
    "render_passages",
]

Passages = Sequence[tuple[str, str]]


class VisualContext(BaseModel):
    """A rendered sub-hypergraph ready to send to a multimodal model.

    ``entities``/``hyperedges`` count what the image shows (after congestion control);
    ``export`` is the renderer's JSON export (visual IDs ``E#``/``H#`` → keys, geometry).
    """

    png_base64: str
    mime_type: Literal["image/png"] = "image/png"
    width: int
    height: int
    caption: str = ""
    export: dict[str, Any] = Field(default_factory=dict)
    sha256: str
    entities: int = 0
    hyperedges: int = 0

    @property
    def png(self) -> bytes:
        """The PNG bytes."""
        return base64.b64decode(self.png_base64)

    @property
    def is_empty(self) -> bool:
        """True when the rendering shows no entity."""
        return self.entities == 0

    @property
    def data_url(self) -> str:
        """``data:image/png;base64,...`` (what chat APIs accept as an image URL)."""
        return f"data:{self.mime_type};base64,{self.png_base64}"

    @classmethod
    def from_view(cls, view: RenderedView) -> VisualContext:
        """Wrap an engine rendering (``RetrievalResult.top_view``/``bottom_view``)."""
        export = dict(view.export)
        return cls(png_base64=view.png_base64, width=view.width, height=view.height,
                   caption=view.caption, export=export, sha256=view.sha256,
                   entities=len(export.get("entities", [])),
                   hyperedges=len(export.get("hyperedges", [])))

    def __repr__(self) -> str:
        return (f"VisualContext({self.width}x{self.height}, {self.entities} entities, "
                f"{self.hyperedges} hyperedges, sha256={self.sha256[:12]})")

    __str__ = __repr__


# ---------------------------------------------------------------------------- building
def _checked(passages: Passages) -> list[tuple[str, str]]:
    """Validated ``(id, text)`` pairs, first occurrence of each id kept, input order."""
    out: dict[str, str] = {}
    for item in passages:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"a passage must be an (id, text) tuple, got {type(item).__name__}")
        pid, text = item
        if not isinstance(pid, str) or not pid or not isinstance(text, str):
            raise TypeError(f"a passage must be (non-empty str id, str text), got {item!r:.80}")
        out.setdefault(pid, text)
    if not out:
        raise ValueError("render_passages() needs at least one (id, text) passage")
    return list(out.items())


def _split(pairs: list[tuple[str, str]], store: StoreProtocol | None
           ) -> tuple[list[str], list[tuple[str, str]]]:
    """(passage ids that are chunks of ``store``, passages to extract from their text)."""
    if store is None:
        return [], pairs
    known = {c.id for c in store.chunks([pid for pid, _ in pairs])}
    return ([pid for pid, _ in pairs if pid in known],
            [(pid, text) for pid, text in pairs if pid not in known])


def _from_store(store: StoreProtocol, chunk_ids: list[str], flt: Any = None) -> Hypergraph:
    """G_bot entities whose sources include ``chunk_ids``, with the hyperedges among them;
    under the filter ``flt``, only those whose source chunks all pass it."""
    if not chunk_ids:
        return Hypergraph()
    wanted = set(chunk_ids)
    bottom = store.bottom()
    keys = [k for k in sorted(bottom.entities) if wanted.intersection(
        bottom.entities[k].source_ids)]
    hg = bottom.subgraph(seed_entities=keys, hops=0)
    flt = as_filter(flt)
    if flt is None:
        return hg
    return passing_graph(hg, flt, lambda ids: {c.id: c for c in store.chunks(ids)})


def _chunk(pid: str, text: str) -> Any:
    from .types import Chunk

    return Chunk(id=pid, doc_id=pid, text=text)


def _merged(base: Hypergraph, extractions: Sequence[ChunkExtraction]) -> Hypergraph:
    """``base`` plus each extraction's chunk hypergraph (the indexer's G_Di), merged."""
    from .index.indexer import extraction_hypergraph

    out = base
    for ex in extractions:
        if ex.entities or ex.hyperedges:
            out = out.merge(extraction_hypergraph(ex))
    return out


def _extractor(extractor: Extractor | None) -> Extractor:
    if extractor is not None:
        return extractor
    from .extract import HeuristicExtractor

    return HeuristicExtractor()


def passages_hypergraph(
    passages: Passages,
    *,
    store: StoreProtocol | None = None,
    extractor: Extractor | None = None,
    filters: ChunkFilter | Mapping[str, Any] | None = None,
) -> Hypergraph:
    """The sub-hypergraph :func:`render_passages` renders (see the module docstring).

    >>> hg = passages_hypergraph([("p1", "Marie Curie met Pierre Curie in Paris.")])
    >>> "marie curie" in hg.entities, hg.entities["marie curie"].source_ids
    (True, ['p1'])
    """
    pairs = _checked(passages)
    from_store, to_extract = _split(pairs, store)
    if filters is not None:  # the store's passages are read from their own text too
        to_extract = pairs
    base = _from_store(store, from_store, filters) if store is not None else Hypergraph()
    ex = _extractor(extractor)
    extractions = [ex.extract(_chunk(pid, text)) for pid, text in to_extract if text.strip()]
    return _merged(base, extractions)


async def apassages_hypergraph(
    passages: Passages,
    *,
    store: StoreProtocol | None = None,
    extractor: Extractor | None = None,
    filters: ChunkFilter | Mapping[str, Any] | None = None,
) -> Hypergraph:
    """Async :func:`passages_hypergraph` (extractions run concurrently)."""
    pairs = _checked(passages)
    from_store, to_extract = await asyncio.to_thread(_split, pairs, store)
    if filters is not None:  # the store's passages are read from their own text too
        to_extract = pairs
    base = Hypergraph()
    if store is not None:
        base = await asyncio.to_thread(_from_store, store, from_store, filters)
    ex = _extractor(extractor)
    extractions = await asyncio.gather(
        *(ex.aextract(_chunk(pid, text)) for pid, text in to_extract if text.strip()))
    return _merged(base, extractions)


# ---------------------------------------------------------------------------- rendering
def _renderer(renderer: HyperViz | None) -> HyperViz:
    """``renderer``, or the default one (the renderer — matplotlib — is imported only when
    something is drawn, so importing the framework wrappers stays cheap)."""
    if renderer is not None:
        return renderer
    from ..render import HyperViz

    return HyperViz(budget=Budget())


def _context(rendering: Any) -> VisualContext:
    from .result import RenderedView

    return VisualContext.from_view(RenderedView.from_rendering(rendering))


def _texts(passages: Passages) -> dict[str, str] | None:
    return {pid: text for pid, text in _checked(passages) if text} or None


def render_hypergraph(
    hg: Hypergraph,
    *,
    renderer: HyperViz | None = None,
    query: str | None = None,
    chunk_texts: dict[str, str] | None = None,
) -> VisualContext:
    """Render a ready sub-hypergraph (dual view, congestion control on by default).

    >>> from hyperviz_core.testing import random_hypergraph
    >>> ctx = render_hypergraph(random_hypergraph(8, 4, seed=1))
    >>> (ctx.width, ctx.height), ctx.entities
    ((1536, 768), 8)
    """
    rendering = _renderer(renderer).render(hg, query=query, chunk_texts=chunk_texts or None)
    return _context(rendering)


def render_passages(
    passages: Passages,
    *,
    store: StoreProtocol | None = None,
    extractor: Extractor | None = None,
    renderer: HyperViz | None = None,
    query: str | None = None,
    hooks: Iterable[Hook] = (),
    filters: ChunkFilter | Mapping[str, Any] | None = None,
) -> VisualContext:
    """Render the sub-hypergraph of retrieved ``(id, text)`` passages.

    Args:
        passages: ``(id, text)`` pairs; ids that are chunk ids of ``store`` read their
            entities from the store, the others are extracted from the text.
        store: a VizRAG store (optional).
        extractor: an :class:`~hyperviz_core.rag.Extractor` (default: offline heuristic).
        renderer: a :class:`~hyperviz_core.render.HyperViz` (default: dual view,
            congestion control on).
        query: the question; feeds the renderer's importance (what survives pruning).
        hooks: stage hooks that get the ``render`` events (``start``, then ``end`` or
            ``error``; ``view`` = ``"passages"``), as a retrieval's renderings do.
        filters: the metadata filter the passages were retrieved under (a ``ChunkFilter``
            or its dict): the store's facts drawn are only those of chunks that pass it.

    Raises:
        ValueError: ``passages`` is empty.
        TypeError: an item is not an ``(id, text)`` pair of strings.
    """
    hooks, base, t0 = list(hooks), _base(passages), time.perf_counter()
    fire(hooks, HookEvent("render", "start", dict(base)))
    try:
        hg = passages_hypergraph(passages, store=store, extractor=extractor, filters=filters)
        ctx = render_hypergraph(hg, renderer=renderer, query=query,
                                chunk_texts=_texts(passages))
    except Exception as exc:
        fire(hooks, _failed(base, exc, t0))
        raise
    fire(hooks, _rendered(base, ctx, t0))
    return ctx


async def arender_passages(
    passages: Passages,
    *,
    store: StoreProtocol | None = None,
    extractor: Extractor | None = None,
    renderer: HyperViz | None = None,
    query: str | None = None,
    hooks: Iterable[Hook] = (),
    filters: ChunkFilter | Mapping[str, Any] | None = None,
) -> VisualContext:
    """Async :func:`render_passages` (extraction awaited, rendering in a worker thread;
    awaitable hook results awaited)."""
    hooks, base, t0 = list(hooks), _base(passages), time.perf_counter()
    await afire(hooks, HookEvent("render", "start", dict(base)))
    try:
        hg = await apassages_hypergraph(passages, store=store, extractor=extractor,
                                        filters=filters)
        rendering = await _renderer(renderer).arender(hg, query=query,
                                                      chunk_texts=_texts(passages))
        ctx = _context(rendering)
    except Exception as exc:
        await afire(hooks, _failed(base, exc, t0))
        raise
    await afire(hooks, _rendered(base, ctx, t0))
    return ctx


def _base(passages: Passages) -> dict[str, Any]:
    return {"view": "passages", "passages": len(passages) if isinstance(passages, Sized)
            else None}


def _failed(base: dict[str, Any], exc: BaseException, t0: float) -> HookEvent:
    return HookEvent("render", "error", {**base, "error": error_text(exc),
                                         "elapsed_ms": elapsed_ms(t0)})


def _rendered(base: dict[str, Any], ctx: VisualContext, t0: float) -> HookEvent:
    """The ``render`` end event: what was drawn, as a retrieval's ``render`` end reports."""
    return HookEvent("render", "end", {
        **base, "entities": ctx.entities, "hyperedges": ctx.hyperedges, "width": ctx.width,
        "height": ctx.height, "sha256": ctx.sha256, "elapsed_ms": elapsed_ms(t0)})
