"""Set-based layouts positioned by Graphviz (``dot``, ``twopi``, ``fdp``/``sfdp``).

Graphviz only positions the nodes of the bipartite incidence graph; hyperedge regions are drawn
by :mod:`hyperviz_core.draw.regions` (never with Graphviz clusters, which cannot overlap). Node
names in the DOT source are generated ids (``e0``, ``h3``): no user text ever reaches Graphviz.
"""

from __future__ import annotations

import functools
import math
from collections import deque

import graphviz

from ..model import Hypergraph
from .base import PANEL_ASPECT, LayoutOrder, LayoutResult
from .gvrun import run_layout

__all__ = ["forget_layouts", "hub_entity", "set_force", "set_hier", "set_radial"]

_NODE = {"shape": "circle", "width": "0.32", "height": "0.32", "fixedsize": "true", "label": ""}
_ANCHOR = {"shape": "point", "width": "0.08", "label": ""}
#: a disconnected hypergraph's components laid out apart and packed, each in its own box
#: (``fdp`` and ``twopi`` let isolated entities settle inside another component's loop,
#: read as its members); a connected one is laid out exactly as without it
_PACK = {"pack": "24", "packmode": "graph"}


def _attr_text(attrs: dict[str, str]) -> str:
    """``[...]``: the attribute list exactly as ``graphviz`` writes it for a node."""
    g = graphviz.Graph()
    g.node("n", **attrs)
    return g.body[0].strip()[len("n "):]


_NODE_ATTRS = _attr_text(_NODE)
_ANCHOR_ATTRS = _attr_text(_ANCHOR)


def hub_entity(hg: Hypergraph, order: LayoutOrder) -> str | None:
    """The highest-degree entity (ties: first in visual-ID order)."""
    if not order.entities:
        return None
    return max(order.entities, key=lambda k: (hg.degree(k), -order.entities.index(k)))


def _names(order: LayoutOrder) -> tuple[dict[str, str], dict[str, str]]:
    return (
        {k: f"e{i}" for i, k in enumerate(order.entities)},
        {h: f"h{i}" for i, h in enumerate(order.hyperedges)},
    )


LAYOUT_MEMORY = 64
"""How many layouts (DOT text and engine → positions) a process remembers (:func:`_run`)."""


def _run(g: graphviz.Graph | graphviz.Digraph) -> dict[str, tuple[float, float]]:
    """The positions of ``g`` (:func:`~.gvrun.run_layout`); a graph laid out before gets them
    again without a Graphviz run (:func:`_positions`)."""
    return dict(_positions(g.source, g.engine))


@functools.lru_cache(maxsize=LAYOUT_MEMORY)
def _positions(source: str, engine: str) -> tuple[tuple[str, tuple[float, float]], ...]:
    """:func:`~.gvrun.run_layout` of ``source`` with ``engine``, remembered: the engines are
    deterministic (``fdp``/``sfdp`` seeded: ``start=42``), and the DOT text holds all they
    read (generated node names in visual-ID order, the attributes), so the same text gets
    the same positions. The same graph drawn again (another style, query or layout pair, a
    re-render) skips the Graphviz process (~7 ms for 30 entities, more for larger graphs);
    a failed run is not remembered. Graphviz's warnings are printed on the first run only."""
    return tuple(run_layout(source, engine).items())


def forget_layouts() -> None:
    """Forget the remembered layouts (:func:`_positions`): the next drawing of any graph
    runs Graphviz again (what a benchmark of a first rendering calls before each run)."""
    _positions.cache_clear()


def _result(
    hg: Hypergraph, order: LayoutOrder, pos: dict[str, tuple[float, float]], engine: str,
    uniform: bool = True,
) -> LayoutResult:
    en, hn = _names(order)
    ents = {k: pos[en[k]] for k in order.entities if en[k] in pos}
    edges = {h: pos[hn[h]] for h in order.hyperedges if hn[h] in pos}
    return LayoutResult(kind="set", entities=ents, hyperedges=edges, uniform=uniform,
                        engine=engine)


def _add_incidence(
    g: graphviz.Graph | graphviz.Digraph,
    hg: Hypergraph,
    order: LayoutOrder,
    en: dict[str, str],
    hn: dict[str, str],
    depth: dict[str, int] | None = None,
    stagger: int = 1,
) -> None:
    """Add the incidence graph (entity and hyperedge-anchor nodes, membership edges) to ``g``.

    With ``depth`` (BFS depth per "e:key"/"h:id"), each edge points away from the hub so
    ``dot`` builds a real multi-rank hierarchy; ``stagger`` > 1 deals the leaf entities
    below the hyperedges (members of no other) over that many ranks, as Graphviz's
    ``unflatten -l`` does, so a wide rank of leaves becomes several narrower ones. The leaves
    are dealt in turn across all hyperedges, not afresh under each: under a hub whose
    hyperedges have one leaf each, restarting the count put every leaf in the first rank.
    """
    # the DOT lines ``g.node``/``g.edge`` would write (same text, so the same layout),
    # appended directly: quoting every generated id and attribute costs ms per drawing
    op = "->" if g.directed else "--"
    lines = [f"\t{en[k]} {_NODE_ATTRS}\n" for k in order.entities]
    lines += [f"\t{hn[h]} {_ANCHOR_ATTRS}\n" for h in order.hyperedges]
    leaves = 0  # counted over every hyperedge, not restarted at each
    for h in order.hyperedges:
        for m in hg.members(h):
            if depth is None or depth.get(f"e:{m}", 0) <= depth.get(f"h:{h}", 0):
                lines.append(f"\t{en[m]} {op} {hn[h]}\n")
            elif stagger > 1 and hg.degree(m) == 1:
                lines.append(f"\t{hn[h]} {op} {en[m]} [minlen={1 + leaves % stagger}]\n")
                leaves += 1
            else:
                lines.append(f"\t{hn[h]} {op} {en[m]}\n")
    g.body.extend(lines)


def _bfs_depth(hg: Hypergraph, order: LayoutOrder, hub: str) -> dict[str, int]:
    """Depth of every incidence-graph node ("e:key"/"h:id") from the hub, per component."""
    depth: dict[str, int] = {}
    starts = [hub] + [k for k in order.entities if k != hub]
    for start in starts:
        if f"e:{start}" in depth:
            continue
        depth[f"e:{start}"] = 0
        queue = deque([f"e:{start}"])
        while queue:
            cur = queue.popleft()
            kind, ident = cur.split(":", 1)
            nbrs = (
                [f"h:{h}" for h in hg.neighbors(ident)] if kind == "e"
                else [f"e:{m}" for m in hg.members(ident)]
            )
            for nb in nbrs:
                if nb not in depth:
                    depth[nb] = depth[cur] + 1
                    queue.append(nb)
    for h in order.hyperedges:
        depth.setdefault(f"h:{h}", 0)
    return depth


def _aspect(pos: dict[str, tuple[float, float]]) -> float:
    if len(pos) < 2:
        return PANEL_ASPECT
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    return max(w, 1.0) / max(h, 1.0)


_HIER_TRIES = (("TB", 1), ("TB", 2), ("TB", 3), ("LR", 1))
"""The ``set-hier`` drawings tried in turn while the last came out wider than twice its
height: top-to-bottom ranks, then with leaf entities dealt over 2 and 3 ranks, then
left-to-right ranks."""


def set_hier(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """``dot`` on the incidence graph oriented by BFS depth from the hub (real hierarchy).

    Drawn with one uniform scale, so when top-to-bottom ranks come out much wider than a
    panel (aspect > 2), the leaf entities under each hyperedge are dealt over 2, then 3
    ranks (Graphviz's ``unflatten -l``: a wide rank of leaves, whose names had no room
    between them, becomes several narrower ones), then left-to-right ranks are tried, and
    the drawing whose aspect is nearest the panel's wins.
    """
    en, hn = _names(order)
    hub = hub_entity(hg, order)
    depth = _bfs_depth(hg, order, hub) if hub else {}
    best: tuple[float, dict[str, tuple[float, float]], str] | None = None
    for rankdir, stagger in _HIER_TRIES:
        g = graphviz.Digraph(engine="dot")
        g.attr(ranksep="0.6", nodesep="0.25", splines="false", ordering="out",
               rankdir=rankdir)
        _add_incidence(g, hg, order, en, hn, depth, stagger)
        pos = _run(g)
        miss = abs(math.log(_aspect(pos) / PANEL_ASPECT))
        if best is None or miss < best[0]:
            best = (miss, pos, rankdir)
        if _aspect(pos) <= 2.0:
            break
    assert best is not None
    engine = "dot" if best[2] == "TB" else "dot, LR"
    return _result(hg, order, best[1], engine)


def set_radial(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """``twopi`` rooted at the hub entity (components packed apart: :data:`_PACK`)."""
    en, hn = _names(order)
    hub = hub_entity(hg, order)
    g = graphviz.Graph(engine="twopi")
    g.attr(ranksep="1.1", overlap="false", splines="false", **_PACK)
    if hub:
        g.attr(root=en[hub])
    _add_incidence(g, hg, order, en, hn)
    res = _result(hg, order, _run(g), "twopi")
    if hub and hub in res.entities:
        res.center = res.entities[hub]
    return res


def set_force(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """``fdp`` (``sfdp`` above 150 nodes) with explicit seed and overlap removal, components
    packed apart (:data:`_PACK`)."""
    en, hn = _names(order)
    n = len(order.entities) + len(order.hyperedges)
    engine = "fdp" if n <= 150 else "sfdp"
    g = graphviz.Graph(engine=engine)
    g.attr(start="42", K="0.9", overlap="voronoi", sep="+6", splines="false", **_PACK)
    _add_incidence(g, hg, order, en, hn)
    return _result(hg, order, _run(g), engine)
