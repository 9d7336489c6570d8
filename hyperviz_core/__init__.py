"""HyperViz core: the hypergraph model, renderer and VizRAG engine (framework-agnostic).

Nothing here imports LlamaIndex or LangChain; the wrappers live in ``vizrag_llamaindex`` and
``vizrag_langchain``.
"""

from __future__ import annotations

from .convert import clique_expansion, incidence_graph, to_hypernetx
from .hif import HIFAliasWarning, HIFError, hypergraph_to_hif, validate_hif
from .idmap import IdMap, UnknownVisualIdError
from .layouts import LayoutOrder, LayoutResult, available_layouts, get_layout, register_layout
from .metrics import compute_metrics
from .model import (
    DuplicateIdError,
    EmptyNameError,
    Entity,
    Hyperedge,
    Hypergraph,
    HypergraphError,
    HypergraphStats,
    UnknownEntityError,
    UnknownHyperedgeError,
    from_hypernetx,
    hypergraph_from_hif,
    merge_descriptions,
    normalize_key,
)
from .prune import Budget, PruneReport, entity_importance, prune
from .render import HyperViz, Rendering, render_collage
from .style import Style
from .viewer import render_html

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "DuplicateIdError",
    "EmptyNameError",
    "Entity",
    "HIFAliasWarning",
    "HIFError",
    "HyperViz",
    "Hyperedge",
    "Hypergraph",
    "HypergraphError",
    "HypergraphStats",
    "IdMap",
    "LayoutOrder",
    "LayoutResult",
    "PruneReport",
    "Rendering",
    "Style",
    "UnknownEntityError",
    "UnknownHyperedgeError",
    "UnknownVisualIdError",
    "__version__",
    "available_layouts",
    "clique_expansion",
    "compute_metrics",
    "entity_importance",
    "from_hypernetx",
    "get_layout",
    "hypergraph_from_hif",
    "hypergraph_to_hif",
    "incidence_graph",
    "merge_descriptions",
    "normalize_key",
    "prune",
    "register_layout",
    "render_collage",
    "render_html",
    "to_hypernetx",
    "validate_hif",
]
