"""The state the retrieval stages share, and what a stage may yield to its driver.

A stage is a generator over one :class:`RetrievalState`: it reads what earlier stages left
there, writes its own results, and *yields* an :class:`LLMRequest` whenever it needs the chat
model (the driver sends the answer back, or throws the provider's exception in) and a
:class:`~hyperviz_core.rag.hooks.HookEvent` for every hook call (the driver dispatches it, sync
or async). Its return value is the payload of its ``end`` event. This is what lets the sync
and async drivers share every line of the stages.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ...idmap import IdMap
from ...model import Hypergraph
from ..hooks import HookEvent
from ..prompts import Prompts
from ..providers.protocols import ChatModel, Embedder
from ..result import RetrievalResult
from ..store.protocol import StoreProtocol
from ..store.sqlite.merge import entity_text, hyperedge_text
from .chunk_index import ChunkIndex
from .config import RetrievalConfig
from .subgraph import FullLayer

if TYPE_CHECKING:
    from .lazy import LazyCorpus

__all__ = ["EMPTY_STORE", "Corpus", "LLMRequest", "RetrievalState", "Step"]

#: the warning of a retrieval from a store that holds nothing (a mistyped path opened by
#: ``VizRAG(path)`` creates such a store)
EMPTY_STORE = ("the store is empty (nothing indexed; VizRAG(path) creates a store where none "
               "is: pass must_exist=True to refuse a path without one)")


@dataclass
class LLMRequest:
    """One model call requested by a stage."""

    stage: str
    prompt: str
    images: list[bytes] = field(default_factory=list)
    system: str | None = None
    json_mode: bool = True

    def key(self) -> tuple[str, str, str, tuple[bytes, ...], str | None, bool]:
        """What makes two requests the same (:attr:`RetrievalState.asked`)."""
        return "llm", self.stage, self.prompt, tuple(self.images), self.system, self.json_mode


#: what stages yield / receive / return (the end-event payload)
Step = Generator[LLMRequest | HookEvent, Any, dict[str, Any]]


@dataclass
class Corpus:
    """What retrieval reads from the store, loaded whole once per store state (see
    ``Retriever``); :class:`~.lazy.LazyCorpus` answers the same calls by indexed lookups."""

    bottom: Hypergraph
    top: Hypergraph
    chunks: ChunkIndex
    matrices: dict[str, tuple[list[str], npt.NDArray[np.float32]]] = field(default_factory=dict)
    #: per space, the store's ``vector_index_epochs`` count its copy in ``matrices`` was made at
    matrices_epochs: dict[str, int] = field(default_factory=dict)
    layers: dict[str, FullLayer] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.chunks)

    def layer(self, layer: Literal["bottom", "top"], keys: Iterable[str], hops: int
              ) -> FullLayer:
        """The part of ``layer`` within ``hops`` of ``keys`` (here the whole layer, one
        :class:`~.subgraph.FullLayer` per store state: its caches serve every query)."""
        full = self.layers.get(layer)
        if full is None:
            full = self.layers[layer] = FullLayer(self.bottom if layer == "bottom"
                                                  else self.top)
        return full

    def known_entities(self, keys: Iterable[str]) -> set[str]:
        """The keys of ``keys`` that are entities of the bottom layer."""
        return {k for k in keys if k in self.bottom.entities}

    def entity_names(self, keys: Iterable[str]) -> dict[str, str]:
        """Entity key → display name."""
        out: dict[str, str] = {}
        for k in keys:
            ent = self.bottom.entities.get(k) or self.top.entities.get(k)
            if ent is not None:
                out[k] = ent.name
        return out

    def entity_texts(self, keys: Iterable[str]) -> dict[str, str]:
        """Entity key → the text its vector is made of (name: description)."""
        ents = self.bottom.entities
        return {k: entity_text(ents[k].name, ents[k].description) for k in keys if k in ents}

    def theme_texts(self, hids: Iterable[str]) -> dict[str, str]:
        """Theme hyperedge id → the text its vector is made of (description, member names,
        keywords)."""
        out: dict[str, str] = {}
        for hid in hids:
            edge = self.top.hyperedges.get(hid)
            if edge is not None:
                names = self.entity_names(edge.members)
                out[hid] = hyperedge_text("theme", edge.description,
                                          [names.get(k, k) for k in edge.members],
                                          edge.keywords)
        return out

    def known_themes(self, hids: Iterable[str]) -> set[str]:
        """The ids of ``hids`` that are theme hyperedges."""
        return {h for h in hids if h in self.top.hyperedges}

    def theme_members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        """Theme hyperedge id → member keys."""
        return {h: list(self.top.hyperedges[h].members) for h in hids
                if h in self.top.hyperedges}

    def link_titles(self, text: str) -> list[str]:
        """Document-title entities named verbatim by ``text``."""
        return self.chunks.link(text)

    def rank_index(self) -> ChunkIndex:
        """The chunk index ranking reads."""
        return self.chunks


@dataclass
class RetrievalState:
    """Inputs of one retrieval and everything its stages have found so far."""

    query: str
    cfg: RetrievalConfig
    res: RetrievalResult
    corpus: Corpus | LazyCorpus
    store: StoreProtocol
    embedder: Embedder
    chat: ChatModel | None
    prompts: Prompts
    renderer: Callable[[bool], Any]
    """``renderer(congestion_control)`` → the HyperViz drawing I_top/I_bot."""
    visual: bool = False
    """Images go to the model (vizrag/hyper-lite with ``retrieval_visualization``)."""
    views: tuple[str, ...] = ()
    """The views drawn (``"top"``, ``"bottom"``; none without rendering; see
    ``RetrievalConfig.render`` and ``render_views``)."""
    keyword_extractor: Any = None
    """A :class:`~..extract.base.KeywordExtractor` the keywords come from (else the chat
    model's keyword prompt, else the heuristic)."""
    asked: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    """What this query's providers answered, kept across its attempts: the model's answers
    (by :meth:`LLMRequest.key`) and the embedder's vectors (by the texts). An attempt run
    again (the store changed under the first) asks only what it had not
    (:func:`~.stages.ask`)."""
    # keywords
    kw_vecs: npt.NDArray[np.float32] | None = None
    linked: list[str] = field(default_factory=list)
    spelled: dict[str, float] = field(default_factory=dict)
    """Entities a misspelt query word names → their weight (:mod:`.repair`)."""
    view_query: str = ""
    """The query with its repaired words appended, which the views' importance reads
    (:mod:`.repair`; the query itself where nothing was repaired)."""
    # themes / top_view / locate
    e_rel: dict[str, float] = field(default_factory=dict)
    themes: list[str] = field(default_factory=list)
    theme_members: dict[str, list[str]] = field(default_factory=dict)
    sub_top: Hypergraph | None = None
    top_shown: Hypergraph | None = None  # sub_top as shown (``filters=``: :mod:`.shown`)
    shown_keys: dict[str, bool] = field(default_factory=dict)  # entity → shown (``filters=``)
    top_imp: dict[str, float] = field(default_factory=dict)
    top_ids: IdMap | None = None
    anchors: dict[str, float] = field(default_factory=dict)
    # bottom_entities / bottom_view
    v_rel: dict[str, float] = field(default_factory=dict)
    b_ents: dict[str, float] = field(default_factory=dict)
    b_edges: dict[str, float] = field(default_factory=dict)
    sub_bot: Hypergraph | None = None
    bot_ids: IdMap | None = None

    def __post_init__(self) -> None:
        self.view_query = self.view_query or self.query

    def named(self) -> dict[str, float]:
        """Entities the query names → weight: linked by name (1) or by a repaired
        spelling (:attr:`spelled`)."""
        return {**self.spelled, **dict.fromkeys(self.linked, 1.0)}
