"""Readability metrics computed from a rendering's export geometry alone.

:func:`compute_metrics` reads the export dict of a rendering (schema in ``docs/contracts.md``;
pixel coordinates, origin top-left) and never imports the renderer, so any drawing —
ours, HyperNetX's, XGI's — can be measured the same way once it is written in that schema.
Only these keys are read: ``width``, ``height``, ``panels[i].bbox``,
``entities[].id/panel_positions[{panel, x, y, r}]``,
``hyperedges[].id/members/regions[{panel, polygons}]/node[{panel, x, y, r?}]`` and
``labels[{id, panel, bbox, text?}]``. A panel is the index into ``panels``.

Geometry conventions
    * A **node** is an entity disk (centre ``x, y``, radius ``r``) or a hyperedge node of an
      induced panel: an axis-aligned square inscribed in the circle of radius ``r``
      (half-side r/√2; a point when the export gives no ``r``).
    * A **region** is the even-odd fill of a hyperedge's ``polygons`` (each a ring of
      points) in one panel: disjoint rings are separate pieces and a ring inside another is
      a hole — so export a polygon with holes as its exterior followed by its interiors.
    * A **label** is its axis-aligned ``bbox``. A label *belongs to* the node with the same
      ``id`` in the same panel.

Metrics (totals; per panel ``i`` the same names prefixed ``panel{i}.``)
    ``nodes`` (entity disks drawn), ``node_overlaps`` (entity disk pairs with centre distance
    < r1 + r2 − 0.05 px, as exports round to 0.01 px; plus pairs involving a hyperedge
    square whose shapes share area),
    ``min_node_distance`` (smallest centre distance over all nodes, px), ``min_node_gap``
    (smallest distance − r1 − r2 between entity disks), ``max_node_diameter`` (entities);
    ``labels``, ``label_label_collisions`` (pairs of boxes sharing > 1 px²),
    ``label_node_collisions`` ((label, node) pairs sharing > 1 px²; a label's **own** node
    does not count when the label's box centre lies inside that node's shape — the ID is
    written on its node; a label beside its node that covers part of it does count),
    ``labels_clipped`` (boxes not wholly inside the canvas, 0.5 px tolerance),
    ``labels_outside_panel`` (boxes not wholly inside their panel's ``bbox``, same tolerance);
    ``regions`` ((hyperedge, panel) pairs with a non-empty region), ``pure_regions``,
    ``purity`` (centre variant: share of regions containing no non-member node centre),
    ``purity_disk`` (share touching no non-member disk, 0.5 px tolerance for polygonised
    circles), ``intruder_pairs`` ((region, non-member) pairs, centre inside),
    ``disk_intruder_pairs``, ``uncovered_members`` ((region, member) pairs whose member
    centre lies outside the region), ``disjoint_pairs`` (pairs of hyperedges with regions in
    one panel and no shared member), ``spurious_overlaps`` (those of them whose regions
    share > 1 px², suggesting a false shared member), ``split_regions`` (regions whose
    members lie in more than one connected piece), ``fragmentation`` (Σ pieces − 1),
    ``unbridged_splits`` (split regions whose pieces stay apart even when the region's
    ``connectors`` — segments ``[[x, y], [x, y]]`` drawn between pieces — join the pieces
    their ends touch, 2 px tolerance), ``edge_labels_outside`` (hyperedge labels whose box
    centre is not inside their own region in that panel);
    ``incidence_edges`` and ``incidence_crossings`` (proper crossings of the straight
    segments member entity → hyperedge node, in panels where hyperedges have a ``node``;
    segments sharing an endpoint never cross);
    ``ambiguous_labels`` (labels of a node — an entity ID or name, a hyperedge node's ID —
    whose box, or whose box centre, is strictly closer to another node's shape than to its
    own node's: a long name whose middle lies by another node counts);
    ``duplicate_labels`` (labels whose ``text`` reads like the text of a label of another
    node in the same panel, equal after the viewer's search folding of case, accents and
    full-width letters: two names cut to the same "Jiménez Municip…" count 2, and so do
    "Müller Institut…" and "Muller Institut…");
    ``unnamed_entities`` (entities a panel shows by ID only, from ``panels[i].unnamed``);
    ``cost`` (the visual occupation cost C = Σ_v π·r_v²·w_v + Σ_e L_e·w_e of
    :func:`visual_cost`, weights from ``pruned.w_v``/``pruned.w_e``, default 1);
    ``canvas_utilisation`` (bounding box of the drawn elements ÷ panel area; the total is
    Σ used area ÷ Σ panel area, or ÷ canvas area without panels).

Undefined values: ``purity``/``purity_disk`` are 1.0 without regions; distances are -1.0
with fewer than two nodes. Every value is an ``int`` or a finite ``float``.

Example:
    >>> export = {
    ...     "width": 200, "height": 100,
    ...     "panels": [{"layout": "set-force", "bbox": [0, 0, 200, 100]}],
    ...     "entities": [
    ...         {"id": "E1", "panel_positions": [{"panel": 0, "x": 40, "y": 50, "r": 10}]},
    ...         {"id": "E2", "panel_positions": [{"panel": 0, "x": 100, "y": 50, "r": 10}]},
    ...         {"id": "E3", "panel_positions": [{"panel": 0, "x": 160, "y": 50, "r": 10}]}],
    ...     "hyperedges": [{"id": "H1", "members": ["E1", "E3"], "regions": [
    ...         {"panel": 0, "polygons": [[[20, 30], [180, 30], [180, 70], [20, 70]]]}]}],
    ...     "labels": [{"id": "E1", "panel": 0, "bbox": [34, 45, 46, 55]}],
    ... }
    >>> m = compute_metrics(export)
    >>> m["purity"], m["intruder_pairs"], m["label_node_collisions"], m["node_overlaps"]
    (0.0, 1, 0, 0)
    >>> m["panel0.min_node_distance"]
    60.0
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from .metrics_cost import ambiguous_labels, cost_weights, drawn_cost, duplicate_labels
from .metrics_panel import (
    _EPS,  # noqa: F401 (re-exported)
    AREA_TOL,
    BRIDGE_TOL,
    CLIP_TOL,
    ROUND_TOL,
    TOUCH_TOL,
    PanelMetrics,
    Pt,
    _arrays,
    _bbox,
    _bridged_groups,  # noqa: F401 (re-exported: every old name still imports from here)
    _crossings,
    _label_metrics,
    _Node,
    _node_metrics,
    _panel_of,
    _Reg,
    _region,
    _region_metrics,
    _shapes,
    _utilisation,
)

__all__ = [
    "AREA_TOL",
    "BRIDGE_TOL",
    "CLIP_TOL",
    "ROUND_TOL",
    "TOUCH_TOL",
    "PanelMetrics",
    "ReadabilityMetrics",
    "compute_metrics",
    "readability_metrics",
    "visual_cost",
]


_SUMMED = (
    "nodes", "node_overlaps", "labels", "label_label_collisions", "label_node_collisions",
    "labels_clipped", "labels_outside_panel", "regions", "pure_regions", "pure_regions_disk",
    "intruder_pairs", "disk_intruder_pairs", "uncovered_members", "disjoint_pairs",
    "spurious_overlaps", "split_regions", "fragmentation", "unbridged_splits",
    "edge_labels_outside", "incidence_edges", "incidence_crossings", "ambiguous_labels",
    "duplicate_labels", "unnamed_entities", "cost", "used_area", "panel_area",
)
_PER_PANEL_HIDDEN = ("panel", "used_area", "panel_area", "pure_regions_disk")


class ReadabilityMetrics(PanelMetrics):
    """Totals over all panels plus the per-panel breakdown."""

    panels: list[PanelMetrics] = Field(default_factory=list)

    def to_flat(self) -> dict[str, float | int]:
        """Plain JSON-serialisable dict: totals, then ``panel{i}.<name>`` per panel."""
        out: dict[str, float | int] = {}
        for name, value in self.model_dump(exclude={"panels", "panel"}).items():
            out[name] = _num(value)
        for pm in self.panels:
            if pm.panel is None:
                continue
            for name, value in pm.model_dump(exclude=set(_PER_PANEL_HIDDEN)).items():
                out[f"panel{pm.panel}.{name}"] = _num(value)
        return out


def _num(value: Any) -> float | int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    f = float(value)
    return round(f, 6) if math.isfinite(f) else -1.0


_Box = tuple[float, float, float, float]


def _labels(
    export: Mapping[str, Any], width: float, height: float,
) -> tuple[dict[int | None, list[tuple[str, _Box]]], dict[int | None, list[tuple[str, str]]],
           dict[int | None, int]]:
    """The export's labels by panel: ``(id, bbox)``, ``(id, text)`` and how many are not
    wholly inside the canvas (``CLIP_TOL``)."""
    labels: dict[int | None, list[tuple[str, _Box]]] = defaultdict(list)
    texts: dict[int | None, list[tuple[str, str]]] = defaultdict(list)
    clipped: dict[int | None, int] = defaultdict(int)
    for lab in export.get("labels") or []:
        b = _bbox(lab.get("bbox"))
        if b is None:
            continue
        p = _panel_of(lab.get("panel"))
        labels[p].append((str(lab.get("id", "")), b))
        texts[p].append((str(lab.get("id", "")), str(lab.get("text") or "")))
        if (b[0] < -CLIP_TOL or b[1] < -CLIP_TOL
                or b[2] > width + CLIP_TOL or b[3] > height + CLIP_TOL):
            clipped[p] += 1
    return labels, texts, clipped


# ------------------------------------------------------------------ entry points
def readability_metrics(export: Mapping[str, Any]) -> ReadabilityMetrics:
    """Compute :class:`ReadabilityMetrics` (totals + per panel) from an export dict."""
    width = float(export.get("width") or 0)
    height = float(export.get("height") or 0)
    canvas = (0.0, 0.0, width, height)
    weights = cost_weights(export)
    panels_raw = list(export.get("panels") or [])
    frames: dict[int, tuple[float, float, float, float]] = {}
    for i, panel in enumerate(export.get("panels") or []):
        frames[i] = _bbox((panel or {}).get("bbox")) or canvas
    ents: dict[int | None, list[_Node]] = defaultdict(list)
    pos: dict[tuple[int | None, str], tuple[float, float]] = {}
    for ent in export.get("entities") or []:
        for pp in ent.get("panel_positions") or []:
            p = _panel_of(pp.get("panel"))
            node = _Node(str(ent["id"]), "E", float(pp["x"]), float(pp["y"]), float(pp.get("r", 0)))
            ents[p].append(node)
            pos[(p, node.id)] = (node.x, node.y)
    hnodes: dict[int | None, list[_Node]] = defaultdict(list)
    regions: dict[int | None, list[_Reg]] = defaultdict(list)
    segments: dict[int | None, list[tuple[Pt, Pt]]]
    segments = defaultdict(list)
    for edge in export.get("hyperedges") or []:
        hid, members = str(edge["id"]), frozenset(str(m) for m in edge.get("members") or [])
        for reg in edge.get("regions") or []:
            geom = _region(reg.get("polygons") or [])
            if geom is not None:
                conns = [((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
                         for a, b in reg.get("connectors") or []]
                regions[_panel_of(reg.get("panel"))].append((hid, members, geom, conns))
        for hn in edge.get("node") or []:
            p = _panel_of(hn.get("panel"))
            node = _Node(hid, "H", float(hn["x"]), float(hn["y"]), float(hn.get("r", 0) or 0))
            hnodes[p].append(node)
            for m in sorted(members):
                if (p, m) in pos:
                    segments[p].append((pos[(p, m)], (node.x, node.y)))
    labels, texts, clipped = _labels(export, width, height)
    keys = sorted({*frames, *(k for k in (*ents, *hnodes, *regions, *labels) if k is not None)})
    panels: list[PanelMetrics] = []
    all_bounds: list[tuple[float, float, float, float]] = []
    for p in keys:
        pm = PanelMetrics(panel=p)
        nodes = ents.get(p, []) + hnodes.get(p, [])
        shapes = _shapes(nodes)
        _node_metrics(pm, nodes, shapes)
        _label_metrics(pm, labels.get(p, []), nodes, shapes)
        pm.labels_clipped = clipped.get(p, 0)
        pm.ambiguous_labels = ambiguous_labels(labels.get(p, []), _arrays(nodes))
        pm.duplicate_labels = duplicate_labels(texts.get(p, []))
        if p in frames:
            fx0, fy0, fx1, fy1 = frames[p]
            pm.labels_outside_panel = sum(
                1 for _, (x0, y0, x1, y1) in labels.get(p, [])
                if x0 < fx0 - CLIP_TOL or y0 < fy0 - CLIP_TOL
                or x1 > fx1 + CLIP_TOL or y1 > fy1 + CLIP_TOL)
        _region_metrics(pm, regions.get(p, []), ents.get(p, []), labels.get(p, []))
        pm.incidence_edges = len(segments.get(p, []))
        pm.incidence_crossings = _crossings(segments.get(p, []))
        bounds: list[tuple[float, float, float, float]]
        bounds = [(n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r) for n in nodes]
        bounds += [tuple(g.bounds) for _, _, g, _ in regions.get(p, [])]
        bounds += [b for _, b in labels.get(p, [])]
        _utilisation(pm, bounds, frames.get(p, canvas))
        pm.cost = drawn_cost(
            [n.r for n in ents.get(p, [])], [n.r for n in hnodes.get(p, [])],
            [(g, conns) for _, _, g, conns in regions.get(p, [])], segments.get(p, []),
            weights)
        if p is not None and p < len(panels_raw):
            pm.unnamed_entities = len((panels_raw[p] or {}).get("unnamed") or [])
        all_bounds += bounds
        panels.append(pm)
    # items with no panel index (e.g. legend labels) count in the totals only
    loose = PanelMetrics(panel=None)
    _label_metrics(loose, labels.get(None, []), [], _shapes([]))
    loose.labels_clipped = clipped.get(None, 0)
    loose.duplicate_labels = duplicate_labels(texts.get(None, []))
    total = ReadabilityMetrics(panels=panels)
    for name in _SUMMED:
        setattr(total, name, sum(getattr(pm, name) for pm in [*panels, loose]))
    dists = [pm.min_node_distance for pm in panels if pm.min_node_distance >= 0]
    gaps = [pm.min_node_gap for pm in panels if pm.min_node_distance >= 0]
    total.min_node_distance = min(dists, default=-1.0)
    total.min_node_gap = min(gaps, default=-1.0)
    total.max_node_diameter = max((pm.max_node_diameter for pm in panels), default=0.0)
    if total.regions:
        total.purity = total.pure_regions / total.regions
        total.purity_disk = total.pure_regions_disk / total.regions
    if frames:
        total.canvas_utilisation = total.used_area / total.panel_area if total.panel_area else 0.0
    else:
        _utilisation(total, all_bounds, canvas)
    return total


def visual_cost(export: Mapping[str, Any]) -> float:
    """The visual occupation cost C of an export (px²), summed over its panels.

    ``C = Σ_v π·r_v²·w_v + Σ_e L_e·w_e``: entity disks; for each hyperedge the boundary
    length of its region(s) plus connectors, or its incidence segments plus its square's
    perimeter. Weights from ``export["pruned"]`` (``w_v``, ``w_e``; default 1).

    >>> visual_cost({"entities": [{"id": "E1", "panel_positions": [
    ...     {"panel": 0, "x": 5, "y": 5, "r": 1}]}], "pruned": {"w_v": 2.0}})
    6.283185
    """
    return float(readability_metrics(export).to_flat()["cost"])


def compute_metrics(export: Mapping[str, Any]) -> dict[str, float | int]:
    """Readability metrics of an export dict as a flat, JSON-serialisable dict.

    Totals use the plain names of the module docstring; per-panel values are
    ``"panel{i}.<name>"``. See :func:`readability_metrics` for the structured form.
    """
    return readability_metrics(export).to_flat()
