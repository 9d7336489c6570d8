"""Disconnected graphs: each component laid out on its own, then packed in rows.

A force layout of a disconnected graph lets its components drift into each other (an
isolated entity settled on another component's edge and read as its member), and shells
around one hub put every other component on the outer ring, their lines crossing the
hub's. As Graphviz's ``pack`` does, :func:`packed` lays out each component alone and puts
the components side by side, largest first, in rows about as wide as the whole is tall,
:data:`GAP` apart; isolated nodes come last, in a grid.

Example:
    >>> import networkx as nx
    >>> g = nx.Graph([("a", "b"), ("c", "d")])
    >>> g.add_node("e")
    >>> pos = packed(g, lambda sub: {n: (float(i), 0.0) for i, n in enumerate(sub)})
    >>> {n: (round(x, 2), round(y, 2)) for n, (x, y) in sorted(pos.items())}
    {'a': (0.0, 0.0), 'b': (0.99, 0.0), 'c': (0.0, -1.6), 'd': (0.99, -1.6), 'e': (2.59, -1.6)}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence

import networkx as nx

__all__ = ["GAP", "Box", "bounds", "components", "ordered_subgraph", "pack_offsets", "packed"]

Pos = dict[Hashable, tuple[float, float]]

#: the space between two packed components, in layout units (the shell layout's rings are
#: 1.6 apart; a component of ``n`` nodes is about ``1.4 * sqrt(n)`` across)
GAP = 1.6


def components(g: nx.Graph) -> list[list[Hashable]]:
    """The connected components of ``g``, each in ``g``'s node order, largest first (ties
    in the order of their first node)."""
    rank = {n: i for i, n in enumerate(g.nodes)}
    comps = [sorted(c, key=rank.__getitem__) for c in nx.connected_components(g)]
    return sorted(comps, key=lambda c: (-len(c), rank[c[0]]))


Box = tuple[float, float, float, float]


def bounds(pos: Pos) -> Box:
    """``(min x, min y, max x, max y)`` of ``pos``."""
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    return min(xs), min(ys), max(xs), max(ys)


def pack_offsets(boxes: Sequence[Box], gap: float = GAP) -> list[tuple[float, float]]:
    """Shifts that put ``boxes`` (bounding boxes of disjoint parts) in rows, left to right
    and top to bottom, ``gap`` apart, without overlapping; the first box stays where it
    is."""
    area = sum((b[2] - b[0] + gap) * (b[3] - b[1] + gap) for b in boxes)
    width = max(max(b[2] - b[0] for b in boxes), math.sqrt(area))
    out: list[tuple[float, float]] = []
    x = y = row = 0.0
    for x0, y0, x1, y1 in boxes:
        if x > 0 and x + (x1 - x0) > width:
            x, y, row = 0.0, y - row - gap, 0.0
        out.append((x - x0, y - y1))
        x += x1 - x0 + gap
        row = max(row, y1 - y0)
    fx, fy = out[0]
    return [(dx - fx, dy - fy) for dx, dy in out]


def ordered_subgraph(g: nx.Graph, nodes: Sequence[Hashable]) -> nx.Graph:
    """The subgraph of ``g`` on ``nodes``, its nodes in that order (a subgraph view
    iterates a set of them, in an order that changes with ``PYTHONHASHSEED``)."""
    sub = nx.Graph()
    sub.add_nodes_from(nodes)
    sub.add_edges_from((a, b) for a, b in g.edges(nodes) if b in sub)
    return sub


def packed(g: nx.Graph, lay: Callable[[nx.Graph], Pos], *,
           first: tuple[Pos, Box] | None = None) -> Pos:
    """Positions of ``g``'s nodes: ``lay(g)`` when it is connected; else ``lay`` of each
    component of two or more nodes (scaled to ``1.4 * sqrt(n)`` across), a point for each
    isolated node, packed by :func:`pack_offsets`. ``first``, when given, is a part laid
    out already and the box it takes (it stays in place; ``g`` holds the other nodes)."""
    comps = components(g)
    if first is None and len(comps) == 1:
        return lay(g)
    parts: list[Pos] = [first[0]] if first else []
    for comp in comps:
        if len(comp) == 1:
            parts.append({comp[0]: (0.0, 0.0)})
            continue
        pos = lay(ordered_subgraph(g, comp))
        half = max(max(abs(c) for c in p) for p in pos.values()) or 1.0
        scale = 0.7 * math.sqrt(len(comp)) / half
        parts.append({n: (x * scale, y * scale) for n, (x, y) in pos.items()})
    boxes = [bounds(p) for p in parts]
    if first:
        boxes[0] = first[1]
    out: Pos = {}
    for part, (dx, dy) in zip(parts, pack_offsets(boxes), strict=True):
        out.update({n: (x + dx, y + dy) for n, (x, y) in part.items()})
    return out
