"""HyperViz core: the hypergraph model, renderer and VizRAG engine (framework-agnostic).

Nothing here imports LlamaIndex or LangChain; the wrappers live in ``vizrag_llamaindex`` and
``vizrag_langchain``.
"""

from __future__ import annotations

from .convert import clique_expansion, from_hypernetx, incidence_graph, to_hypernetx
from .hif import HIFError, hypergraph_from_hif, hypergraph_to_hif, validate_hif
from .idmap import IdMap, UnknownVisualIdError
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
    merge_descriptions,
    normalize_key,
)

__version__ = "0.1.0"

__all__ = [
    "DuplicateIdError",
    "EmptyNameError",
    "Entity",
    "HIFError",
    "Hyperedge",
    "Hypergraph",
    "HypergraphError",
    "HypergraphStats",
    "IdMap",
    "UnknownEntityError",
    "UnknownHyperedgeError",
    "UnknownVisualIdError",
    "__version__",
    "clique_expansion",
    "from_hypernetx",
    "hypergraph_from_hif",
    "hypergraph_to_hif",
    "incidence_graph",
    "merge_descriptions",
    "normalize_key",
    "to_hypernetx",
    "validate_hif",
]
