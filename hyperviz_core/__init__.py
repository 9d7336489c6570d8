"""HyperViz core: the hypergraph model, renderer and VizRAG engine (framework-agnostic).

Nothing here imports LlamaIndex or LangChain; the wrappers live in ``vizrag_llamaindex`` and
``vizrag_langchain``.

The model (entities, hyperedges, hypergraphs, HIF, id maps, pruning) is imported with the
package; the renderer, layouts, metrics, style, viewer and the networkx/HyperNetX
conversions are imported on first use of one of their names (:func:`__getattr__`), so a
process that only queries a store never loads matplotlib, shapely or graphviz.

Example:
    >>> import hyperviz_core
    >>> hyperviz_core.Style.__name__      # imported now, on first use
    'Style'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .convert import HyperNetXAliasWarning
from .hif import HIFAliasWarning, HIFError, NodeAliasWarning, hypergraph_to_hif, validate_hif
from .hif_fields import AttributeKeptWarning
from .idmap import IdMap, UnknownVisualIdError
from .lazy import lazy_exports
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
    preferred_name,
)

# eager: the function ``prune`` shares its name with its module, which the engine imports
from .prune import Budget, PruneReport, entity_importance, prune

if TYPE_CHECKING:
    from .convert import clique_expansion, incidence_graph, to_hypernetx
    from .incidence_import import from_incidence_graph
    from .layouts import (
        LayoutOrder,
        LayoutResult,
        available_layouts,
        get_layout,
        register_layout,
    )
    from .metrics import compute_metrics
    from .render import HyperViz, Rendering, render_collage
    from .style import Style
    from .viewer import render_html

__version__ = "0.1.0"

#: public name → the module it is imported from on first use
_LAZY: dict[str, str] = {
    "clique_expansion": ".convert",
    "incidence_graph": ".convert",
    "from_incidence_graph": ".incidence_import",
    "to_hypernetx": ".convert",
    "LayoutOrder": ".layouts",
    "LayoutResult": ".layouts",
    "available_layouts": ".layouts",
    "get_layout": ".layouts",
    "register_layout": ".layouts",
    "compute_metrics": ".metrics",
    "HyperViz": ".render",
    "Rendering": ".render",
    "render_collage": ".render",
    "Style": ".style",
    "render_html": ".viewer",
}


if not TYPE_CHECKING:  # a type checker reads the imports above: a misspelt name is an
    # error there, not Any
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "AttributeKeptWarning",
    "Budget",
    "DuplicateIdError",
    "EmptyNameError",
    "Entity",
    "HIFAliasWarning",
    "HIFError",
    "HyperNetXAliasWarning",
    "HyperViz",
    "Hyperedge",
    "Hypergraph",
    "HypergraphError",
    "HypergraphStats",
    "IdMap",
    "LayoutOrder",
    "LayoutResult",
    "NodeAliasWarning",
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
    "from_incidence_graph",
    "get_layout",
    "hypergraph_from_hif",
    "hypergraph_to_hif",
    "incidence_graph",
    "merge_descriptions",
    "normalize_key",
    "preferred_name",
    "prune",
    "register_layout",
    "render_collage",
    "render_html",
    "to_hypernetx",
    "validate_hif",
]
