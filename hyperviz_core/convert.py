"""Conversions to and from HyperNetX and networkx.

* :func:`to_hypernetx` / :func:`hypernetx_parts` — a ``hypernetx.Hypergraph`` whose edge, node
  and incidence property tables carry our fields in a ``vizrag`` column (plain dicts, so any
  HyperNetX user can read them); node ids are entity names. ``from_hypernetx`` also accepts
  HyperNetX objects built elsewhere: an edge's ``weight`` lands in ``weight``, ``type``,
  ``description`` ... properties fill those fields as HIF attributes do, the others land in
  ``metadata``.
* :func:`incidence_graph` — the bipartite (König) graph: entity nodes ``("E", key)`` and
  hyperedge nodes ``("H", id)`` with attribute ``bipartite`` 0/1.
* :func:`clique_expansion` — entity–entity graph; edge attribute ``hyperedges`` lists the
  hyperedges that connect the pair, ``weight`` counts them.

HyperNetX only counts nodes that belong to an edge; isolated entities are kept in its
property stores and restored by :meth:`Hypergraph.from_hypernetx`. A hyperedge joins at
least one entity: an edge of a HyperNetX object without any node is not imported (its id
is listed in the graph's ``metadata["hnx_empty_edges"]``).

Node ids that differ only in case, spacing or Unicode form (``"Apple"`` and ``"apple"``)
are one entity, as in the HIF import (:func:`hyperviz_core.hif.read_hif`): they merge into
one entity named after the first id (in sorted order) with a :class:`HyperNetXAliasWarning`,
the other ids kept as aliases (``metadata["hif_aliases"]``) and every incidence through
them in the hyperedge's ``metadata["hif_incidences"]``, so :func:`to_hypernetx` (and
``to_hif``) write every node and incidence back. A node or edge id that is not a string
(an integer) is remembered in ``metadata["hif_id"]``, so HIF export writes it back as it was.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abc"],
    ...                 hyperedges=[Hyperedge(id="h", members=["a", "b", "c"])])
    >>> sorted(clique_expansion(hg).edges())
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> Hypergraph.from_hypernetx(hg.to_hypernetx()).members("h")
    ['a', 'b', 'c']
"""

from __future__ import annotations

import math
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING, Any

from .hif import NodeAliases, NodeAliasWarning, keep_raw_id
from .hif_fields import EDGE_FIELDS, ENTITY_FIELDS, FieldFitter
from .items import Entity, Hyperedge, HypergraphError, HypergraphView, normalize_key

if TYPE_CHECKING:  # networkx is imported by the functions that build graphs
    import networkx as nx

__all__ = ["HyperNetXAliasWarning", "clique_expansion", "hypernetx_parts", "incidence_graph",
           "to_hypernetx"]


class HyperNetXAliasWarning(NodeAliasWarning):
    """HyperNetX node ids that differ only in case, spacing or Unicode form were merged."""


#: what :func:`hypernetx_parts` returns: entities and hyperedges in order, graph metadata
HNXParts = tuple[list[Entity], list[Hyperedge], dict[str, Any]]

_COL = "vizrag"


def incidence_graph(hg: HypergraphView) -> nx.Graph:
    """Bipartite networkx graph of entities (``("E", key)``) and hyperedges (``("H", id)``)."""
    import networkx as nx

    g = nx.Graph()
    for key in sorted(hg.entities):
        ent = hg.entities[key]
        g.add_node(("E", key), bipartite=0, name=ent.name, type=ent.type)
    for hid in sorted(hg.hyperedges):
        edge = hg.hyperedges[hid]
        g.add_node(("H", hid), bipartite=1, kind=edge.kind, weight=edge.weight)
        for m in edge.members:  # the membership's attributes (weight, direction ...)
            g.add_edge(("E", m), ("H", hid), **dict(edge.member_attrs.get(m, {})))
    return g


def clique_expansion(hg: HypergraphView) -> nx.Graph:
    """Entity graph with an edge between every pair of entities sharing a hyperedge: nodes
    are entity keys carrying ``name`` and ``type``, an edge carries ``hyperedges`` (the ids,
    a list: join it before ``nx.write_graphml``, which takes no lists) and ``weight`` (how
    many)."""
    import networkx as nx

    g = nx.Graph()
    for key in sorted(hg.entities):
        g.add_node(key, name=hg.entities[key].name, type=hg.entities[key].type)
    for hid in sorted(hg.hyperedges):
        for a, b in combinations(sorted(hg.hyperedges[hid].members), 2):
            if g.has_edge(a, b):
                g[a][b]["hyperedges"].append(hid)
                g[a][b]["weight"] += 1
            else:
                g.add_edge(a, b, hyperedges=[hid], weight=1)
    return g


def to_hypernetx(hg: HypergraphView) -> Any:
    """A ``hypernetx.Hypergraph`` with all our fields in ``vizrag`` property columns."""
    import hypernetx as hnx
    import pandas as pd

    node_id = {key: _node_id(ent) for key, ent in hg.entities.items()}
    rows = [
        {"edges": _edge_id(hid, e), "nodes": node,
         "weight": float(e.member_attrs.get(m, {}).get("weight", 1.0)),
         _COL: {"member_attrs": e.member_attrs.get(m, {}), "position": i}}
        for hid, e in sorted(hg.hyperedges.items())
        for i, m in enumerate(e.members)
        for node in _incidence_nodes(e, m, node_id[m], hg.entities[m])
    ]
    inc = pd.DataFrame(rows, columns=["edges", "nodes", "weight", _COL])
    edge_props = pd.DataFrame(
        [{"id": _edge_id(hid, e), "weight": e.weight,
          _COL: e.model_dump(exclude={"id", "weight", "members", "member_attrs"})}
         for hid, e in sorted(hg.hyperedges.items())]
        + [{"id": "__vizrag_graph__", "weight": 1.0, _COL: {"graph_metadata": hg.metadata}}],
        columns=["id", "weight", _COL],
    )
    node_props = pd.DataFrame(
        [{"id": node_id[key], "weight": _node_weight(ent), _COL: ent.model_dump()}
         for key, ent in sorted(hg.entities.items())]
        + [{"id": alias, "weight": 1.0, _COL: {"alias_of": key}}
           for key, ent in sorted(hg.entities.items()) for alias in _alias_ids(ent)],
        columns=["id", "weight", _COL],
    )
    return hnx.Hypergraph(
        inc, edge_col="edges", node_col="nodes", cell_weight_col="weight",
        edge_properties=edge_props, node_properties=node_props,
    )


def _alias_ids(ent: Entity) -> list[Any]:
    """The alias node ids of an entity (``metadata["hif_aliases"]``)."""
    recs = ent.metadata.get("hif_aliases")
    if not isinstance(recs, list):
        return []
    return [r["node"] for r in recs if isinstance(r, dict) and "node" in r]


def _node_id(ent: Entity) -> Any:
    """The HyperNetX node id of an entity: the id it was read under (an integer, say), else
    its name (``"Marie Curie"``, not the key ``"marie curie"``)."""
    return ent.metadata.get("hif_id", ent.name)


def _edge_id(hid: str, edge: Hyperedge) -> Any:
    """The HyperNetX edge id of a hyperedge: the id it was read under, else its own."""
    return edge.metadata.get("hif_id", hid)


def _node_weight(ent: Entity) -> float:
    """The weight a node was read with (``metadata["hif_weight"]``), else 1."""
    w = ent.metadata.get("hif_weight", 1.0)
    return float(w) if isinstance(w, int | float) and not isinstance(w, bool) else 1.0


def _incidence_nodes(edge: Hyperedge, key: str, own: Any, ent: Entity) -> list[Any]:
    """The node ids through which ``key`` belongs to ``edge``: its own, or the incidences
    kept at import (``metadata["hif_incidences"]``: an alias, or several ids)."""
    kept = edge.metadata.get("hif_incidences")
    recs = kept.get(key) if isinstance(kept, dict) else None
    if not isinstance(recs, list) or not recs:
        return [own]
    canonical = ent.metadata.get("hif_id", ent.name)
    nodes = [own if r.get("node") == canonical else r.get("node") for r in recs
             if isinstance(r, dict)]
    return list(dict.fromkeys(nodes)) or [own]


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _props(table: Any) -> dict[Any, dict[str, Any]]:
    """Property rows keyed by uid, NaN-free, misc_properties flattened into the row."""
    out: dict[Any, dict[str, Any]] = {}
    for uid, row in table.to_dict(orient="index").items():
        row = {k: _clean(v) for k, v in row.items()}
        misc = row.pop("misc_properties", None) or {}
        out[uid] = {**misc, **{k: v for k, v in row.items() if v is not None}}
    return out


def _split(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    ours = props.get(_COL) if isinstance(props.get(_COL), dict) else None
    extra = {str(k): v for k, v in props.items() if k not in (_COL, "weight", "_level")}
    return (ours or {}), extra


def hypernetx_parts(H: Any) -> HNXParts:
    """Entities, hyperedges and metadata of any ``hypernetx.Hypergraph`` (what
    :meth:`Hypergraph.from_hypernetx <hyperviz_core.model.Hypergraph.from_hypernetx>` adds,
    in this order)."""
    try:
        edge_tab = _props(H.edges.property_store.properties)
        node_tab = _props(H.nodes.property_store.properties)
        inc_tab = _props(H.incidences.dataframe)
        incidence = H.incidence_dict
    except AttributeError as exc:
        raise HypergraphError(f"not a hypernetx.Hypergraph: {exc}") from None
    fit = FieldFitter("HyperNetX")
    entities, key_of, names = _entities(node_tab, incidence, fit)
    hyperedges: list[Hyperedge] = []
    graph_meta: dict[str, Any] = {}
    empty: list[str] = []
    for uid in sorted({*edge_tab, *incidence}, key=str):
        ours, extra = _split(edge_tab.get(uid, {}))
        if uid == "__vizrag_graph__":
            graph_meta = ours.get("graph_metadata", {})
            continue
        members = list(incidence.get(uid, []))
        if not members:  # a hyperedge joins at least one entity
            empty.append(str(uid))
            continue
        cells = {m: inc_tab.get((uid, m), {}) for m in members}
        if all(isinstance(c.get(_COL), dict) for c in cells.values()):
            members.sort(key=lambda m: cells[m][_COL].get("position", 0))
            attrs = {key_of[m]: cells[m][_COL]["member_attrs"] for m in members
                     if cells[m][_COL].get("member_attrs")}
        else:
            attrs = {key_of[m]: {k: v for k, v in c.items() if k != _COL}
                     for m, c in cells.items()
                     if any(k != "weight" or v != 1 for k, v in c.items())}
        weight = float(edge_tab.get(uid, {}).get("weight", 1.0))
        keys = [key_of[m] for m in members]
        if ours:
            hyperedges.append(Hyperedge(id=str(uid), members=keys, weight=weight,
                                        member_attrs=attrs, **ours))
            continue
        meta = _foreign_edge_meta(uid, extra, members, key_of, names)
        make = partial(Hyperedge, id=str(uid), members=keys, weight=weight,
                       member_attrs=attrs, metadata=meta)
        hyperedges.append(fit.build(make, {f: meta.pop(f) for f in EDGE_FIELDS if f in meta},
                                    meta, f"edge {uid!r}"))
    fit.warn(stacklevel=3)
    if empty:
        graph_meta = {**graph_meta, "hnx_empty_edges": empty}
    return entities, hyperedges, graph_meta


def _entities(node_tab: dict[Any, dict[str, Any]], incidence: dict[Any, Any],
              fit: FieldFitter) -> tuple[list[Entity], dict[Any, str], NodeAliases]:
    """The entities of a HyperNetX object, the entity key of each node id, and the aliases
    (node ids merged into an entity of another id, as the HIF import does): our own rows
    first (an alias row written by :func:`to_hypernetx` names its entity), then the others,
    each in sorted order."""
    node_ids = sorted({*node_tab, *(n for ms in incidence.values() for n in ms)}, key=str)
    split = {uid: _split(node_tab.get(uid, {})) for uid in node_ids}
    names = NodeAliases("HyperNetX")
    ents: dict[str, Entity] = {}
    key_of: dict[Any, str] = {}
    for uid in sorted(node_ids, key=lambda u: (not split[u][0], str(u))):
        ours, extra = split[uid]
        if isinstance(ours.get("alias_of"), str):
            key_of[uid] = ours["alias_of"]
            continue
        if ours:
            ent = Entity.model_validate(ours)
            names.canonical.setdefault(ent.key, uid)
        else:
            try:
                key = normalize_key(str(uid).strip())
            except HypergraphError:
                raise HypergraphError(f"HyperNetX node {uid!r} has an empty name") from None
            key_of[uid] = key
            if names.seen(key, uid, extra or None):
                continue
            ent = _foreign_entity(uid, extra, node_tab.get(uid, {}).get("weight"), fit)
        ents.setdefault(ent.key, ent)
        key_of[uid] = ent.key
    names.finish(ents, HyperNetXAliasWarning, stacklevel=4)
    return list(ents.values()), key_of, names


def _foreign_entity(uid: Any, extra: dict[str, Any], weight: Any, fit: FieldFitter) -> Entity:
    """The entity of a node of a HyperNetX object built elsewhere: ``type``,
    ``description`` and ``source_ids`` properties fill those fields (as HIF attributes do),
    the others, its id if not a string and a weight other than 1 go to metadata."""
    name = str(uid).strip()
    meta = dict(extra)
    keep_raw_id(meta, uid, name, None if weight in (None, 1) else weight)
    fields = {f: meta.pop(f) for f in ENTITY_FIELDS if f in meta}
    return fit.build(partial(Entity, name=name, metadata=meta), fields, meta, f"node {uid!r}")


def _foreign_edge_meta(uid: Any, extra: dict[str, Any], members: list[Any],
                       key_of: dict[Any, str], names: NodeAliases) -> dict[str, Any]:
    """The metadata of an edge of a HyperNetX object built elsewhere: its properties, its
    id if not a string, and its incidences through alias node ids (for export)."""
    meta = dict(extra)
    keep_raw_id(meta, uid, str(uid))
    by_key: dict[str, list[Any]] = {}
    for m in members:
        by_key.setdefault(key_of[m], []).append(m)
    special = {k: [{"node": u} for u in us] for k, us in by_key.items()
               if us != [names.canonical.get(k)]}
    if special:
        meta["hif_incidences"] = special
    return meta
