"""A bipartite networkx graph read back into a hypergraph (the inverse of
:func:`~hyperviz_core.convert.incidence_graph`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .items import Entity, Hyperedge, HypergraphError
from .model import Hypergraph

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["from_incidence_graph"]


def from_incidence_graph(g: nx.Graph) -> Hypergraph:
    """The :class:`~hyperviz_core.model.Hypergraph` of a bipartite networkx graph: what
    :func:`incidence_graph` makes, or any graph whose nodes carry ``bipartite`` 0 (entities)
    or 1 (hyperedges). An entity is named by its node's ``name`` (else the node: ``key`` of
    ``("E", key)``), typed by ``type``; a hyperedge's id is ``id`` of ``("H", id)`` (else
    the node as text), its ``kind`` and ``weight`` its node's, its members its neighbours in
    the graph's order, each edge's attributes the membership's (``weight``, ``direction``
    ...). Descriptions are not in such a graph. A node without ``bipartite`` 0/1 is a
    :class:`HypergraphError`; a hyperedge node without neighbours is left out (its id
    listed in ``metadata["nx_empty_edges"]``).

    >>> from hyperviz_core import Hypergraph
    >>> hg = Hypergraph.from_hif({"incidences": [{"edge": "r", "node": "Ada"},
    ...                                          {"edge": "r", "node": "Bob", "weight": 2}]})
    >>> back = from_incidence_graph(hg.to_incidence_graph())
    >>> back.members("r"), back.hyperedges["r"].member_attrs
    (['ada', 'bob'], {'bob': {'weight': 2}})
    """
    def tagged(node: Any, tag: str) -> Any:
        return node[1] if isinstance(node, tuple) and len(node) == 2 and node[0] == tag else None

    for node, side in g.nodes(data="bipartite"):
        if side not in (0, 1):
            raise HypergraphError(f"node {node!r} has no 'bipartite' attribute 0 (entity) or "
                                  "1 (hyperedge)")
    hg = Hypergraph()
    keys: dict[Any, str] = {}
    for node, data in g.nodes(data=True):
        if data["bipartite"] == 0:
            raw = data.get("name") or tagged(node, "E") or node
            ent = Entity(name=str(raw), type=str(data.get("type") or "entity"))
            keys[node] = hg.add_entity(ent).key
    empty: list[str] = []
    for node, data in g.nodes(data=True):
        if data["bipartite"] != 1:
            continue
        hid = str(tagged(node, "H") or node)
        near = [m for m in g.adj[node] if m in keys]
        if not near:
            empty.append(hid)
            continue
        hg.add_hyperedge(Hyperedge(
            id=hid, members=[keys[m] for m in near], kind=data.get("kind", "relation"),
            weight=float(data.get("weight", 1.0)),
            member_attrs={keys[m]: dict(g.edges[node, m]) for m in near if g.edges[node, m]}))
    if empty:
        hg.metadata["nx_empty_edges"] = empty
    return hg
