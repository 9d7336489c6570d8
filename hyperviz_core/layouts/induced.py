"""Induced layouts: hyperedges become square nodes linked to their members.

* ``bi-inc`` — two columns (entities | hyperedges), ordered by spectral ordering followed by
  median sweeps, keeping the order with the fewest incidence-edge crossings.
* ``ra-cen`` — shells by shortest-path distance (on the incidence graph) from the highest-degree
  entity, angles from ``networkx.shell_layout`` ordered by the parents' mean angle; the shells
  are ellipses shaped like the panel (:func:`shell_stretch`).
* ``cli-exp`` — ``networkx.spring_layout(seed=42, k=0.95)`` on the incidence graph plus the clique
  expansion (clique edges are drawn solid, incidence edges dashed).

A disconnected hypergraph is laid out component by component and packed in rows
(:mod:`.pack`); ``ra-cen`` draws the hub's component in shells, the others packed beside.
"""

from __future__ import annotations

import importlib
import math
from collections import deque
from collections.abc import Hashable
from itertools import combinations

import networkx as nx
import numpy as np

from ..model import Hypergraph
from .base import LayoutOrder, LayoutResult
from .gv import hub_entity
from .pack import bounds, ordered_subgraph, packed

__all__ = ["bi_inc", "cli_exp", "count_crossings", "ra_cen", "shell_stretch", "spectral_order"]

Node = tuple[str, str]


def _incidence(hg: Hypergraph, order: LayoutOrder) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(("E", k) for k in order.entities)
    g.add_nodes_from(("H", h) for h in order.hyperedges)
    for h in order.hyperedges:
        for m in hg.members(h):
            g.add_edge(("E", m), ("H", h))
    return g


def count_crossings(pairs: list[tuple[int, int]]) -> int:
    """Crossings of two-layer edges given as (left index, right index) pairs."""
    if len(pairs) < 2:
        return 0
    a = np.array(pairs, dtype=np.int64)
    i1, i2 = a[:, 0][:, None], a[:, 0][None, :]
    j1, j2 = a[:, 1][:, None], a[:, 1][None, :]
    cross = ((i1 < i2) & (j1 > j2)) | ((i1 > i2) & (j1 < j2))
    return int(np.triu(cross, 1).sum())


def spectral_order(g: nx.Graph) -> list[Node]:
    """Nodes sorted by the Fiedler vector, component by component (largest first).

    Dense eigen-decomposition (graphs here have at most a few hundred nodes); the vector's
    sign is fixed so the result is deterministic.
    """
    nodes: list[Node] = list(g.nodes)
    rank = {n: i for i, n in enumerate(nodes)}
    comps = sorted((sorted(c, key=rank.__getitem__) for c in nx.connected_components(g)),
                   key=lambda c: (-len(c), rank[c[0]]))
    out: list[Node] = []
    for comp in comps:
        if len(comp) <= 2:
            out.extend(comp)
            continue
        idx = {n: i for i, n in enumerate(comp)}
        lap = np.zeros((len(comp), len(comp)))
        for a, b in g.subgraph(comp).edges():
            i, j = idx[a], idx[b]
            lap[i, j] = lap[j, i] = -1.0
        lap[np.diag_indices_from(lap)] = -lap.sum(axis=1)
        # scipy's LAPACK: numpy's threaded OpenBLAS is ~20x slower on such small matrices
        _, vecs = importlib.import_module("scipy.linalg").eigh(lap)
        fied = vecs[:, 1]
        nz = np.flatnonzero(np.abs(fied) > 1e-9)
        if len(nz) and fied[nz[0]] < 0:
            fied = -fied
        order = sorted(range(len(comp)), key=lambda i: (round(float(fied[i]), 9), i))
        out.extend(comp[i] for i in order)
    return out


def _median_sort(items: list[str], nbrs: dict[str, list[str]], pos: dict[str, int]) -> list[str]:
    def key(item: str) -> tuple[float, int]:
        vals = sorted(pos[n] for n in nbrs[item])
        if not vals:
            return (math.inf, items.index(item))
        mid = len(vals) // 2
        med = vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2.0
        return (float(med), items.index(item))

    return sorted(items, key=key)


def _bi_order(hg: Hypergraph, order: LayoutOrder) -> tuple[list[str], list[str]]:
    g = _incidence(hg, order)
    ents, edges = list(order.entities), list(order.hyperedges)
    if g.number_of_edges() >= 2:
        spec = spectral_order(g)
        ents = [n[1] for n in spec if n[0] == "E"]
        edges = [n[1] for n in spec if n[0] == "H"]
    e_nb = {k: hg.neighbors(k) for k in order.entities}
    h_nb = {h: hg.members(h) for h in order.hyperedges}

    def crossings(es: list[str], hs: list[str]) -> int:
        ep = {k: i for i, k in enumerate(es)}
        hp = {h: i for i, h in enumerate(hs)}
        return count_crossings([(ep[m], hp[h]) for h in hs for m in h_nb[h]])

    best = (crossings(ents, edges), ents, edges)
    for _ in range(6):
        edges = _median_sort(edges, h_nb, {k: i for i, k in enumerate(ents)})
        ents = _median_sort(ents, e_nb, {h: i for i, h in enumerate(edges)})
        c = crossings(ents, edges)
        if c < best[0]:
            best = (c, ents, edges)
    return best[1], best[2]


def _column(
    items: list[str], x: float, rows: int, step: float
) -> dict[str, tuple[float, float]]:
    """Items top to bottom, dealt round-robin over sub-columns of at most ``rows`` items."""
    n = len(items)
    k = max(1, math.ceil(n / rows))
    out = {}
    for i, item in enumerate(items):
        y = 1.0 - (i + 0.5) / max(n, 1)
        dx = (i % k - (k - 1) / 2.0) * step if k > 1 else 0.0
        out[item] = (x + dx, y)
    return out


def bi_inc(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """Two columns, crossing-reduced (spectral ordering + median sweeps)."""
    ents, edges = _bi_order(hg, order)
    return LayoutResult(
        kind="induced",
        entities=_column(ents, 0.0, 12, 0.06),
        hyperedges=_column(edges, 1.0, 9, 0.07),
        engine="spectral+median",
        columns=(list(ents), list(edges)),
    )


def _circ_mean(angles: list[float]) -> float:
    return math.atan2(sum(math.sin(a) for a in angles), sum(math.cos(a) for a in angles))


def _shell_offset(targets: list[float]) -> float:
    """The rotation of a shell whose i-th of n nodes sits at ``2πi/n + offset`` that brings
    the nodes closest to ``targets`` (their parents' mean angles, in shell order; 10.0 for a
    node without a parent): the circular mean of ``target_i − 2πi/n`` (maximises
    Σ cos(slot_i − target_i)), 0 when there is no target or no preferred direction. Without
    it every shell started at angle 0, so an outer node could face away from its parent and
    its incidence line cross the hub and other non-members."""
    n = len(targets)
    diffs = [t - 2 * math.pi * i / n for i, t in enumerate(targets) if t < 10.0]
    x = sum(math.cos(a) for a in diffs)
    y = sum(math.sin(a) for a in diffs)
    if not diffs or math.hypot(x, y) < 1e-6 * len(diffs):
        return 0.0
    return round(math.atan2(y, x), 12)  # rounded: the same offset on every platform


def ra_cen(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """Shells by distance from the hub entity; spring fallback when there is no centre."""
    hub = hub_entity(hg, order)
    g = _incidence(hg, order)
    if hub is None or hg.degree(hub) == 0:
        return cli_exp(hg, order, engine="spring (no centre)")
    root: Node = ("E", hub)
    dist: dict[Node, int] = {root: 0}
    queue = deque([root])
    while queue:
        cur = queue.popleft()
        for nb in g.neighbors(cur):
            if nb not in dist:
                dist[nb] = dist[cur] + 1
                queue.append(nb)
    all_nodes: list[Node] = [n for n in g.nodes if n in dist]
    depth = max(dist.values())
    shells: list[list[Node]] = [[root]]
    angle: dict[Node, float] = {root: 0.0}
    for d in range(1, depth + 1):
        layer = [n for n in all_nodes if dist[n] == d]
        if not layer:
            continue

        def key(n: Node, d: int = d) -> tuple[float, int]:
            parents = [angle[p] for p in g.neighbors(n) if p in angle and dist[p] == d - 1]
            a = _circ_mean(parents) % (2 * math.pi) if parents else 10.0
            return (a, all_nodes.index(n))

        layer.sort(key=key)
        shells.append(layer)
        targets = {n: key(n)[0] for n in layer} if d > 1 else {}
        offset = _shell_offset([targets[n] for n in layer] if targets else [])
        for i, n in enumerate(layer):
            angle[n] = 2 * math.pi * i / len(layer) + offset
    pos: dict[Hashable, tuple[float, float]] = {}
    rings: list[float] = []
    radius = 0.0
    for i, layer in enumerate(shells):
        if i:
            radius = max(radius + 1.6, len(layer) * 1.25 / (2 * math.pi))
            rings.append(radius)
        for n in layer:
            a = angle[n] if i else 0.0
            pos[n] = (radius * math.cos(a), radius * math.sin(a))
    (sx, sy), pos = _with_the_rest(g, pos, radius, order.aspect)
    ents = {n[1]: p for n, p in pos.items() if n[0] == "E"}  # type: ignore[index]
    edges = {n[1]: p for n, p in pos.items() if n[0] == "H"}  # type: ignore[index]
    names = [f"d={i}" for i in range(1, len(rings) + 1)]
    return LayoutResult(kind="induced", entities=ents, hyperedges=edges, rings=rings,
                        center=(0.0, 0.0), ring_names=names, engine="shell",
                        ring_stretch=(sx, sy))


def _stretches(shells: dict[Hashable, tuple[float, float]],
               aspect: float) -> list[tuple[float, float]]:
    """The stretches :func:`_with_the_rest` tries: the panel's shape, then round."""
    return list(dict.fromkeys([shell_stretch(list(shells.values()), aspect), (1.0, 1.0)]))


def _with_the_rest(
    g: nx.Graph, shells: dict[Hashable, tuple[float, float]], radius: float, aspect: float,
) -> tuple[tuple[float, float], dict[Hashable, tuple[float, float]]]:
    """The shells' stretch and every node's position: the shells stretched to the panel
    (:func:`shell_stretch`) and the graph's other components packed beside them. Packed
    beside, those can make the whole wider (or taller) than the panel, so the round shells
    are packed too and the layout whose shape is nearer the panel's is kept (the stretched
    one on a tie)."""
    best: tuple[float, tuple[float, float], dict[Hashable, tuple[float, float]]] | None = None
    for sx, sy in _stretches(shells, aspect):
        pos = {n: (sx * x, sy * y) for n, (x, y) in shells.items()}
        if len(pos) == g.number_of_nodes():  # one component: nothing packed beside
            return (sx, sy), pos
        rest = ordered_subgraph(g, [n for n in g.nodes if n not in pos])
        pos = packed(rest, _spring, first=(pos, (-sx * radius, -sy * radius,
                                                 sx * radius, sy * radius)))
        x0, y0, x1, y1 = bounds(pos)
        miss = abs(math.log(max(x1 - x0, 1e-9) / max(y1 - y0, 1e-9) / aspect))
        if best is None or miss < best[0]:
            best = (miss, (sx, sy), pos)
    assert best is not None
    return best[1], best[2]


MAX_STRETCH = 1.6
"""The most ``ra-cen`` widens (or, in a tall panel, heightens) its shells."""


def shell_stretch(points: list[tuple[float, float]], aspect: float) -> tuple[float, float]:
    """x and y factors that widen (or heighten) ``ra-cen``'s circular shells into ellipses
    until the drawing's bounding box is shaped like a panel of the given width / height
    (at most :data:`MAX_STRETCH` either way; one factor is always 1).

    Names are written across, beside their nodes: on circles in a wide panel the names of
    the nodes at the top and bottom of a shell, side by side, had no room and were left
    out (shown by ID only), while the panel's sides stayed empty. A drawing already as
    wide as its panel (a long chain on the outer shells, say) is left as it is.

    >>> square = [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)]
    >>> shell_stretch(square, 1.5), shell_stretch(square, 0.8), shell_stretch(square, 3.0)
    ((1.5, 1.0), (1.0, 1.25), (1.6, 1.0))
    >>> shell_stretch([(-2.0, 0.0), (2.0, 0.0), (0.0, -1.0), (0.0, 1.0)], 1.5)
    (1.0, 1.333333)
    """
    if len(points) < 2 or not math.isfinite(aspect) or aspect <= 0:
        return (1.0, 1.0)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    if w <= 0 or h <= 0:
        return (1.0, 1.0)
    ratio = aspect * h / w  # > 1: the panel is wider than the drawing
    if ratio >= 1.0:
        return (round(min(ratio, MAX_STRETCH), 6), 1.0)
    return (1.0, round(min(1.0 / ratio, MAX_STRETCH), 6))


def _spring(g: nx.Graph) -> dict[Hashable, tuple[float, float]]:
    """``networkx.spring_layout`` (seed 42, k 0.95) as float pairs."""
    return {n: (float(p[0]), float(p[1]))
            for n, p in nx.spring_layout(g, seed=42, k=0.95).items()}


def cli_exp(hg: Hypergraph, order: LayoutOrder, engine: str = "spring") -> LayoutResult:
    """Spring layout of incidence + clique-expansion edges (seed 42, k 0.95)."""
    g = _incidence(hg, order)
    clique: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    rank = {k: i for i, k in enumerate(order.entities)}
    for h in order.hyperedges:
        members = sorted(hg.members(h), key=rank.__getitem__)
        for a, b in combinations(members, 2):
            if (a, b) not in seen:
                seen.add((a, b))
                clique.append((a, b))
                g.add_edge(("E", a), ("E", b))
    pos = {n: (0.0, 0.0) for n in g.nodes} if g.number_of_nodes() == 1 else packed(g, _spring)
    ents = {n[1]: p for n, p in pos.items() if n[0] == "E"}  # type: ignore[index]
    edges = {n[1]: p for n, p in pos.items() if n[0] == "H"}  # type: ignore[index]
    return LayoutResult(kind="induced", entities=ents, hyperedges=edges, clique_edges=clique,
                        engine=engine)
