"""The export dict of a rendering (schema in ``docs/contracts.md``) and its text caption.

Coordinates are PNG pixels, origin top-left. The caption lists every drawn entity and
hyperedge by visual ID (for text-only models and framework nodes) and names what congestion
control omitted: the entities, the hyperedges not drawn (by description) and, on each drawn
hyperedge that lost members, ``(+N omitted: names)``. An entity name that reads like a
visual ID (``E2``) is quoted (“E2”).
"""

from __future__ import annotations

import math
import platform
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

from .draw.legend import CanvasPlan
from .draw.scene import PanelScene, looks_like_id
from .idmap import IdMap
from .layouts import LayoutOrder
from .model import Hypergraph
from .prune import PruneReport
from .style import Style
from .unitext import truncate
from .wording import counted

__all__ = ["build_caption", "build_export", "edge_text", "omitted_members", "pruned_export",
           "versions"]

_VERSIONS: dict[str, str] = {}


def versions() -> dict[str, str]:
    """Versions of the libraries that shape the image (recorded in every export)."""
    if not _VERSIONS:
        for name in ("vizrag", "matplotlib", "networkx", "shapely", "graphviz", "numpy"):
            try:
                _VERSIONS[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                _VERSIONS[name] = "unknown"
        _VERSIONS["graphviz_binaries"] = _dot_version()
        _VERSIONS["python"] = platform.python_version()
    return dict(_VERSIONS)


def _dot_version() -> str:
    dot = shutil.which("dot")
    if dot is None:
        return "missing"
    proc = subprocess.run([dot, "-V"], capture_output=True, text=True, check=False, timeout=10)
    text = (proc.stderr or proc.stdout).strip()
    parts = text.split("version")
    return parts[1].split()[0] if len(parts) > 1 else text


def _r(v: float) -> float:
    return round(float(v), 2)


#: control and bidirectional-override characters: never part of a caption (a model or a
#: terminal reads it; the drawing drops them too)
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _short(text: str, n: int) -> str:
    return truncate(_CONTROLS.sub("", " ".join(str(text).split())), n)


#: omitted members named on a shrunk hyperedge's line, and hyperedges not drawn named by
#: description, before "and N more"
OMITTED_NAMED = 5
DROPPED_NAMED = 10


def _name(text: str, n: int) -> str:
    """An entity name for the caption: one line, cut to ``n``, quoted (“E2”) when it reads
    like a visual ID."""
    short = _short(text, n)
    return f"“{short}”" if looks_like_id(short) else short


def _some(items: list[str], cap: int, sep: str = ", ") -> str:
    return sep.join(items[:cap]) + (f" and {len(items) - cap} more" if len(items) > cap else "")


def _entity_name(hg: Hypergraph, key: str, n: int = 40) -> str:
    return _name(hg.entities[key].name, n) if key in hg.entities else _short(key, n)


def omitted_members(original: Hypergraph, hg: Hypergraph, hid: str) -> list[str]:
    """Keys of the members hyperedge ``hid`` of ``hg`` lost against ``original``, in the
    original member order."""
    before = original.hyperedges.get(hid)
    if before is None or original is hg:
        return []
    kept = set(hg.hyperedges[hid].members)
    return [m for m in before.members if m not in kept]


def edge_text(hg: Hypergraph, hid: str, n: int) -> str:
    """What names hyperedge ``hid`` in text: its description, else its keywords, else its
    key and its members' names in braces (``id 1.2.10 {JV, MA}``, as the legend names an
    undescribed one: two of one member set stay apart)."""
    edge = hg.hyperedges[hid]
    text = edge.description.strip() or ", ".join(edge.keywords)
    if text.strip():
        return _short(text, n)
    return (f"id {_short(hid, n)} {{"
            + ", ".join(_entity_name(hg, m) for m in edge.members) + "}")


def _hyperedge_lines(hg: Hypergraph, ids: IdMap, order: LayoutOrder, original: Hypergraph,
                     max_desc: int) -> list[str]:
    lines = ["Hyperedges:"] if order.hyperedges else []
    for h in order.hyperedges:
        edge = hg.hyperedges[h]
        members = ", ".join(ids.entities[m] for m in edge.members)
        gone = [_entity_name(original, m) for m in omitted_members(original, hg, h)]
        lost = f" (+{len(gone)} omitted: {_some(gone, OMITTED_NAMED)})" if gone else ""
        if edge.description.strip():
            desc = f": {_short(edge.description, max_desc)}"
        else:  # undescribed: keywords, else the key (the HIF edge id) keeps lines apart
            desc = f": {_short(', '.join(edge.keywords), max_desc)}" if edge.keywords \
                else f": id {_short(h, max_desc)}"
        lines.append(f"{ids.hyperedges[h]} {{{members}}}{lost}{desc}")
    return lines


def _omitted_lines(report: PruneReport, original: Hypergraph) -> list[str]:
    names = [_name(original.entities[k].name, 40) for k in report.entities
             if k in original.entities]
    shown = ", ".join(names[:20]) + (f", … (+{len(names) - 20})" if len(names) > 20 else "")
    why = {"budget": "congestion control", "cap": "the entity/hyperedge caps"}
    by = " and ".join(why[r] for r in sorted(set(report.reasons.values())) if r in why)
    lines = [
        f"Omitted by {by or 'congestion control'} (not drawn): "
        + counted(len(report.entities), "entity") + (f" ({shown})" if names else "")
        + f", {counted(len(report.hyperedges), 'hyperedge')}."
    ]
    dropped = [f"“{edge_text(original, h, 80)}”" for h in report.hyperedges
               if h in original.hyperedges]
    if dropped:
        lines.append(f"Hyperedges not drawn: {_some(dropped, DROPPED_NAMED, '; ')}.")
    return lines


def _unnamed_lines(
    hg: Hypergraph, ids: IdMap, layouts: list[str], unnamed: list[str] | None,
    unnamed_panels: Sequence[Sequence[str]] | None,
) -> list[str]:
    """The caption's "Shown by ID only" lines: one for ``unnamed``, or, given
    ``unnamed_panels``, one per panel that shows any entity by ID only, naming the panel."""
    def listing(keys: Sequence[str]) -> str:
        return ", ".join(f"{ids.entities[k]} {_name(hg.entities[k].name, 40)}"
                         for k in keys) + "."

    if unnamed_panels is None:
        return (["Shown by ID only (no unambiguous room for the name): " + listing(unnamed)]
                if unnamed else [])
    return [f"Shown by ID only in {_short(layout, 40)} (no unambiguous room for the name): "
            + listing(keys)
            for layout, keys in zip(layouts, unnamed_panels, strict=False) if keys]


def build_caption(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, layouts: list[str], report: PruneReport,
    original: Hypergraph, query: str | None = None, max_desc: int = 160,
    unnamed: list[str] | None = None, looks: int = 0,
    unnamed_panels: Sequence[Sequence[str]] | None = None,
) -> str:
    """Plain-text listing of the rendering by visual ID.

    ``unnamed``: entity keys drawn by ID only (no unambiguous spot for the name label).
    ``unnamed_panels``: the same per panel, one list per layout of ``layouts`` (an entity
    named in one panel may be shown by ID only in the other): when given, one line per
    panel that has any names the panel (``Shown by ID only in bi-inc (…): E4 Prague``)
    and ``unnamed`` is not used.
    ``looks``: how many hyperedges get a distinct colour and outline
    (:func:`~.draw.legend.distinct_looks`); more than that adds a note.
    """
    lines = [
        f"HyperViz rendering ({' | '.join(layouts)}): "
        f"{counted(len(order.entities), 'entity')} (E#), "
        f"{counted(len(order.hyperedges), 'hyperedge')} (H#)."
    ]
    if query:
        lines.append(f"Query: {_short(query, 200)}")
    if order.entities:
        lines.append("Entities:")
    for k in order.entities:
        ent = hg.entities[k]
        desc = f": {_short(ent.description, max_desc)}" if ent.description.strip() else ""
        # names and types flattened like descriptions: a name holding a newline must not
        # forge a line of the listing a model reads
        lines.append(f"{ids.entities[k]} {_name(ent.name, 120)} [{_short(ent.type, 40)}]{desc}")
    lines += _hyperedge_lines(hg, ids, order, original, max_desc)
    n_edges = len(order.hyperedges)
    if 0 < looks < n_edges:
        lines.append(f"Note: {n_edges} hyperedges but {looks} distinct colour and outline "
                     f"pairs: from H{looks + 1} on, colours and outlines repeat those from "
                     "H1 on (tell them apart by their H# labels).")
    lines += _unnamed_lines(hg, ids, layouts, unnamed, unnamed_panels)
    if report.pruned:
        lines += _omitted_lines(report, original)
    return "\n".join(lines)


def pruned_export(report: PruneReport, original: Hypergraph | None = None) -> dict[str, Any]:
    """The ``"pruned"`` part of the export: C after pruning (``cost``), ``c_max``, the
    weights, every removal with its reason (``"budget"``/``"cap"``) and the steps; given
    the ``original`` input, also ``descriptions`` (removed hyperedge id → its description,
    see :func:`edge_text`) when hyperedges were removed, and ``names`` (removed entity key →
    its name) when entities were."""
    out: dict[str, Any] = {
        "entities": list(report.entities), "hyperedges": list(report.hyperedges),
        "reasons": dict(report.reasons), "cost": report.cost, "c_max": report.c_max,
        "cost_before": report.cost_before, "cost_before_bound": report.cost_before_bound,
        "w_v": report.w_v, "w_e": report.w_e,
        "layouts_run": report.layouts_run, "removals": report.removals(),
        "steps": [st.model_dump() for st in report.steps],
    }
    if original is not None and report.hyperedges:
        out["descriptions"] = {h: edge_text(original, h, 200) for h in report.hyperedges
                               if h in original.hyperedges}
    if original is not None and report.entities:  # key → the name as drawn elsewhere
        out["names"] = {k: original.entities[k].name for k in report.entities
                        if k in original.entities}
    return out


def _hyperedges_export(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, scenes: list[PanelScene],
    colors: Mapping[str, str], dashes: Mapping[str, str] | None, original: Hypergraph | None,
) -> list[dict[str, Any]]:
    hyperedges = []
    for h in order.hyperedges:
        edge = hg.hyperedges[h]
        regions = [{"panel": s.index, "polygons": s.regions[h].rings(),
                    "connectors": [[[_r(a[0]), _r(a[1])], [_r(b[0]), _r(b[1])]]
                                   for a, b in s.regions[h].connectors]}
                   for s in scenes if h in s.regions]
        nodes = [{"panel": s.index, "x": _r(s.hnodes[h][0]), "y": _r(s.hnodes[h][1]),
                  "r": _r(s.hnode_half * math.sqrt(2.0))}
                 for s in scenes if h in s.hnodes]
        gone = omitted_members(original, hg, h) if original is not None else []
        hyperedges.append({
            "id": ids.hyperedges[h], "key": h,
            "members": [ids.entities[m] for m in edge.members],
            "description": edge.description, "keywords": list(edge.keywords),
            "kind": edge.kind, "weight": edge.weight, "source_ids": list(edge.source_ids),
            "color": colors[h], "regions": regions, "node": nodes,
            **({"dash": dashes[h]} if dashes is not None and h in dashes else {}),
            **({"omitted_members": gone} if gone else {}),
        })
    return hyperedges


def build_export(
    *, hg: Hypergraph, ids: IdMap, order: LayoutOrder, scenes: list[PanelScene],
    plan: CanvasPlan, colors: Mapping[str, str], report: PruneReport, caption: str,
    title: str, chunk_texts: Mapping[str, str] | None = None, query: str | None = None,
    dashes: Mapping[str, str] | None = None, style: Style | None = None,
    original: Hypergraph | None = None,
) -> dict[str, Any]:
    """The JSON-serialisable export (without metrics; the caller adds them). ``dashes``
    (hyperedge → outline dash) and ``style`` add what the HTML viewer needs to draw the
    same look as the PNG: each hyperedge's ``dash`` and the ``style`` colours and widths.
    ``original`` (the input before pruning) adds, on a hyperedge that lost members,
    ``omitted_members`` (their keys) and ``pruned.descriptions``."""
    entities = []
    for k in order.entities:
        ent = hg.entities[k]
        positions = [
            {"panel": s.index, "x": _r(s.nodes[k][0]), "y": _r(s.nodes[k][1]), "r": _r(s.radius)}
            for s in scenes if k in s.nodes
        ]
        entities.append({
            "id": ids.entities[k], "key": k, "name": ent.name, "type": ent.type,
            "description": ent.description, "source_ids": list(ent.source_ids),
            "degree": hg.degree(k), "panel_positions": positions,
        })
    hyperedges = _hyperedges_export(hg, ids, order, scenes, colors, dashes, original)
    labels = [
        {"id": lab.id, "panel": s.index, "kind": lab.kind, "text": lab.text,
         "bbox": [_r(v) for v in lab.bbox], "boxed": lab.boxed,
         **({"leader": [[_r(a), _r(b)] for a, b in lab.leader]} if lab.leader else {})}
        for s in scenes for lab in s.labels
    ]
    panels = [
        {"layout": s.layout, "kind": s.kind, "engine": s.engine,
         "bbox": [_r(v) for v in s.bbox], "message": s.message,
         "scale": [round(s.scale[0], 6), round(s.scale[1], 6)],
         "unnamed": [ids.entities[k] for k in s.unnamed],
         **({"center": [_r(s.center[0]), _r(s.center[1])], "rings": [_r(x) for x in s.rings],
             "ring_stretch": [round(s.ring_stretch[0], 6), round(s.ring_stretch[1], 6)]}
            if s.center is not None else {})}
        for s in scenes
    ]
    out: dict[str, Any] = {
        "width": plan.width, "height": plan.height, "title": title,
        "layouts": [s.layout for s in scenes], "panels": panels,
        "entities": entities, "hyperedges": hyperedges, "labels": labels,
        "legend": plan.items(),
        "pruned": pruned_export(report, original),
        "caption": caption,
        "query": query,
        "versions": versions(),
    }
    if style is not None:
        out["style"] = {
            "background": style.background_hex, "node_fill": style.hex("node_fill"),
            "entity_color": style.hex("entity_color"), "node_outline": style.outline_hex,
            "hyperedge_node_color": style.hex("hyperedge_node_color"),
            "region_alpha": style.region_alpha, "edge_width": style.edge_width,
            "incidence_style": style.incidence_style, "node_shape": style.node_shape}
    if chunk_texts is not None:
        out["chunks"] = {str(c): str(chunk_texts[c]) for c in sorted(chunk_texts)}
    return out
