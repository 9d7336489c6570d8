"""Helpers of :mod:`hyperviz_core.metrics`: the visual occupation cost C, label
ownership (ambiguous labels) and label texts that read alike (duplicate labels), all
computed from the export (no renderer imports).

Example:
    >>> import numpy as np
    >>> nodes = NodeArrays(ids=["E1", "E2"], x=np.array([50.0, 130.0]),
    ...                    y=np.array([50.0, 50.0]), r=np.array([10.0, 10.0]),
    ...                    disk=np.array([True, True]))
    >>> ambiguous_labels([("E1", (95, 45, 115, 55)), ("E2", (143, 45, 170, 55))], nodes)
    1
    >>> round(drawn_cost([10.0], [], [], [((0, 0), (3, 4))], (1.0, 2.0)), 3)
    324.159
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from shapely.geometry.base import BaseGeometry

from .unitext import search_fold

__all__ = ["NodeArrays", "ambiguous_labels", "box_shape_distance", "cost_weights",
           "drawn_cost", "duplicate_labels"]

_EPS = 1e-9
Pt = tuple[float, float]
Box = tuple[float, float, float, float]


@dataclass
class NodeArrays:
    """Nodes of one panel: entity disks (``disk``) or hyperedge squares of half-side r/√2."""

    ids: list[str]
    x: np.ndarray
    y: np.ndarray
    r: np.ndarray
    disk: np.ndarray


def box_shape_distance(boxes: np.ndarray, nodes: NodeArrays) -> np.ndarray:
    """Distances (boxes × nodes) from axis-aligned boxes to node shapes (0 when touching)."""
    x, y, r, disk = nodes.x[None, :], nodes.y[None, :], nodes.r[None, :], nodes.disk[None, :]
    half = np.where(disk, 0.0, r / math.sqrt(2.0))
    x0, y0, x1, y1 = (boxes[:, i:i + 1] for i in range(4))
    dx = np.maximum(np.maximum(x0 - (x + half), (x - half) - x1), 0.0)
    dy = np.maximum(np.maximum(y0 - (y + half), (y - half) - y1), 0.0)
    d = np.hypot(dx, dy)
    return np.asarray(np.where(disk, np.maximum(d - r, 0.0), d))


def ambiguous_labels(labels: Sequence[tuple[str, Box]], nodes: NodeArrays) -> int:
    """Labels of a node (same id, r > 0) that sit nearer another node than their own: the
    box's nearest point *or* its centre (where the text is read; for a long name the far end
    may lie beside another node) is strictly closer to another node's shape than to their
    own node's.

    >>> nodes = NodeArrays(ids=["E1", "E2"], x=np.array([50.0, 110.0]),
    ...                    y=np.array([50.0, 28.0]), r=np.array([10.0, 10.0]),
    ...                    disk=np.array([True, True]))
    >>> ambiguous_labels([("E1", (62, 45, 162, 55))], nodes)  # its middle is under E2
    1
    >>> ambiguous_labels([("E1", (62, 45, 102, 55))], nodes)  # a shorter one is E1's
    0
    """
    index = {i: k for k, i in enumerate(nodes.ids) if nodes.r[k] > 0}
    mine = [(k, b) for lid, b in labels if (k := index.get(lid)) is not None]
    if not mine or len(nodes.ids) < 2:
        return 0
    boxes = np.array([b for _, b in mine], dtype=float)
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2.0, (boxes[:, 1] + boxes[:, 3]) / 2.0
    rows = np.arange(len(mine))
    own = np.array([k for k, _ in mine])
    bad = np.zeros(len(mine), dtype=bool)
    for probe in (boxes, np.column_stack([cx, cy, cx, cy])):  # the box, then its centre
        dist = box_shape_distance(probe, nodes)
        mine_d = dist[rows, own].copy()
        dist[rows, own] = np.inf
        bad |= dist.min(axis=1) < mine_d - _EPS
    return int(np.count_nonzero(bad))


def duplicate_labels(labels: Sequence[tuple[str, str]]) -> int:
    """Labels (``(id, text)``) whose text reads like the text of a label of another node
    (equal after the viewer's search folding, :func:`~hyperviz_core.unitext.search_fold`:
    case, accents, full-width letters): two entities both named "Jiménez Municip…" count 2,
    and so do "Müller Institut…" and "Muller Institut…" (an image reader cannot tell them
    apart). Empty texts do not count.

    >>> duplicate_labels([("E1", "Jiménez Municip…"), ("E2", "Jiménez Municip…"),
    ...                   ("E3", "Paris"), ("E3", "Paris")])
    2
    >>> duplicate_labels([("E1", "Müller Institut…"), ("E2", "Muller Institut…"),
    ...                   ("E3", "Ｔｏｋｙｏ"), ("E4", "Tokyo")])
    4
    """
    owners: dict[str, set[str]] = {}
    for lid, text in labels:
        if text:
            owners.setdefault(search_fold(text), set()).add(lid)
    return sum(1 for _, text in labels if text and len(owners[search_fold(text)]) > 1)


def cost_weights(export: Mapping[str, Any]) -> tuple[float, float]:
    """(w_v, w_e) from ``export["pruned"]`` (default 1, 1)."""
    pruned = export.get("pruned")
    if not isinstance(pruned, Mapping):
        return 1.0, 1.0
    return float(pruned.get("w_v", 1.0) or 1.0), float(pruned.get("w_e", 1.0) or 1.0)


def drawn_cost(
    entity_r: Sequence[float], hnode_r: Sequence[float],
    regions: Sequence[tuple[BaseGeometry, Sequence[tuple[Pt, Pt]]]],
    segments: Sequence[tuple[Pt, Pt]], weights: tuple[float, float],
) -> float:
    """C of one panel: Σ π·r²·w_v over entity disks + w_e·(region boundary lengths +
    connectors + incidence segments + hyperedge-square perimeters 4√2·r)."""
    area = sum(math.pi * r * r for r in entity_r)
    length = sum(float(g.length) + sum(math.dist(a, b) for a, b in conns)
                 for g, conns in regions)
    length += sum(math.dist(a, b) for a, b in segments)
    length += sum(4.0 * math.sqrt(2.0) * r for r in hnode_r)
    return area * weights[0] + length * weights[1]
