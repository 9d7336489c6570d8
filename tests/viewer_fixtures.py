"""Helpers for the viewer tests: hand-built exports that follow docs/contracts.md.

:func:`make_export` lays a :class:`Hypergraph` out in simple geometric panels (circle for the
set-based and clique layouts, two columns for ``bi-inc``) and returns a dict in the renderer's
export schema, so the viewer can be developed and tested without the renderer.
:func:`expected_neighbourhood` computes the multi-hop neighbourhood from the *model*
(``Hypergraph.neighbors`` / ``members``) and :func:`full_depth` the number of clicks after which
it stops growing (N(v, G)), so that browser tests compare against them.
"""

from __future__ import annotations

import math
from typing import Any

from hyperviz_core import Entity, Hyperedge, Hypergraph, IdMap

PALETTE = ("#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")

XSS_PAYLOADS = (
    "<script>window.__pwned = 1; alert(1)</script>",
    '"><img src=x onerror="window.__pwned = 2; alert(2)">',
    "'><svg onload=window.__pwned=3>",
    "</script><script>window.__pwned = 4; alert(4)</script>",
    'digraph {a -> b [label="x\\"]; }} & <!-- ]]> \u2028 \u2029 {dot} <tspan>',
)


def sample_hypergraph() -> Hypergraph:
    """Nine entities in a chain of hyperedges, so 1-, 2- and 3-hop sets all differ."""
    names = [
        ("Marie Curie", "person", "Physicist and chemist; pioneer of radioactivity."),
        ("Pierre Curie", "person", "Physicist, co-discoverer of polonium and radium."),
        ("Nobel Prize", "award", "Prize awarded since 1901."),
        ("Polonium", "element", "Element 84, named after Poland."),
        ("Radium", "element", "Element 88."),
        ("Sorbonne", "organization", "University in Paris."),
        ("Paris", "place", "Capital of France."),
        ("Warsaw", "place", "Capital of Poland, Marie's birthplace."),
        ("Henri Becquerel", "person", "Discovered radioactivity in 1896."),
    ]
    hg = Hypergraph()
    for name, typ, desc in names:
        hg.add_entity(Entity(name=name, type=typ, description=desc, source_ids=["c1"]))
    edges = [
        (
            "r1",
            ["marie curie", "pierre curie", "nobel prize"],
            "shared the 1903 Nobel Prize",
            ["c1", "c2"],
        ),
        (
            "r2",
            ["marie curie", "pierre curie", "polonium", "radium"],
            "discovered elements",
            ["c2"],
        ),
        ("r3", ["marie curie", "sorbonne"], "taught at the Sorbonne", ["c3"]),
        ("r4", ["sorbonne", "paris"], "located in Paris", ["c3", "c-missing"]),
        ("r5", ["nobel prize", "henri becquerel"], "Becquerel shared the 1903 prize", ["c1"]),
        ("r6", ["warsaw", "paris"], "cities in Marie's life", []),
    ]
    for hid, members, desc, src in edges:
        hg.add_hyperedge(Hyperedge(id=hid, members=members, description=desc, source_ids=src))
    return hg


SAMPLE_CHUNKS = {
    "c1": "Marie Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Becquerel.",
    "c2": "Together they discovered polonium and radium in 1898.",
    "c3": "She became the first woman professor at the Sorbonne in Paris.",
}


def hostile_hypergraph() -> tuple[Hypergraph, dict[str, str]]:
    """Entities, hyperedges and chunk texts whose text is an injection payload."""
    hg = Hypergraph()
    keys = []
    for i, payload in enumerate(XSS_PAYLOADS):
        ent = hg.add_entity(
            Entity(
                name=f"{payload} #{i}",
                type=f"type {payload}",
                description=f"desc {payload}",
                source_ids=[f"chunk{i}"],
            )
        )
        keys.append(ent.key)
    for i, payload in enumerate(XSS_PAYLOADS):
        hg.add_hyperedge(
            Hyperedge(
                id=f"x{i}",
                members=[keys[i], keys[(i + 1) % len(keys)]],
                description=f"rel {payload}",
                source_ids=[f"chunk{i}", f"id {payload}"],
            )
        )
    chunks = {f"chunk{i}": f"evidence {p}" for i, p in enumerate(XSS_PAYLOADS)}
    chunks[f"id {XSS_PAYLOADS[0]}"] = "chunk with a hostile id"
    return hg, chunks


def _panel_boxes(n: int, width: float, height: float) -> tuple[list[list[float]], int]:
    cols = min(max(1, n), 3)
    rows = max(1, math.ceil(n / cols))
    pw, ph = width / cols, height / rows
    boxes = []
    for i in range(n):
        r, c = divmod(i, cols)
        boxes.append([c * pw, r * ph, (c + 1) * pw, (r + 1) * ph])
    return boxes, cols


def _hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def make_export(
    hg: Hypergraph | None = None,
    layouts: tuple[str, ...] = ("set-force", "bi-inc"),
    chunk_texts: dict[str, str] | None = None,
    width: int = 1536,
    height: int = 768,
    title: str = "Sample view",
) -> dict[str, Any]:
    """An export dict (contracts.md schema) for ``hg`` drawn in ``layouts`` panels."""
    chunks = SAMPLE_CHUNKS if chunk_texts is None and hg is None else chunk_texts
    hg = sample_hypergraph() if hg is None else hg
    ids = IdMap.build(hg)
    ekeys = sorted(hg.entities, key=lambda k: int(ids.entities[k][1:]))
    hkeys = sorted(hg.hyperedges, key=lambda h: int(ids.hyperedges[h][1:]))
    boxes, _ = _panel_boxes(len(layouts), width, height)
    r = 11.0
    ents: dict[str, dict[str, Any]] = {}
    for k in ekeys:
        e = hg.entities[k]
        ents[k] = {
            "id": ids.entities[k],
            "key": k,
            "name": e.name,
            "type": e.type,
            "description": e.description,
            "source_ids": list(e.source_ids),
            "degree": hg.degree(k),
            "panel_positions": [],
        }
    edges: dict[str, dict[str, Any]] = {}
    for i, h in enumerate(hkeys):
        he = hg.hyperedges[h]
        edges[h] = {
            "id": ids.hyperedges[h],
            "key": h,
            "members": sorted((ids.entities[m] for m in he.members), key=lambda s: int(s[1:])),
            "description": he.description,
            "kind": he.kind,
            "source_ids": list(he.source_ids),
            "color": PALETTE[i % len(PALETTE)],
            "regions": [],
            "node": [],
        }
    labels: list[dict[str, Any]] = []
    for p, (layout, box) in enumerate(zip(layouts, boxes, strict=True)):
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + 8
        pos: dict[str, tuple[float, float]] = {}
        if layout == "bi-inc":
            n, m = len(ekeys), len(hkeys)
            for j, k in enumerate(ekeys):
                pos[k] = (x0 + (x1 - x0) * 0.3, y0 + 30 + (y1 - y0 - 60) * (j + 0.5) / max(n, 1))
            for j, h in enumerate(hkeys):
                hy = y0 + 30 + (y1 - y0 - 60) * (j + 0.5) / max(m, 1)
                edges[h]["node"].append(
                    {"panel": p, "x": round(x0 + (x1 - x0) * 0.7, 2), "y": round(hy, 2)}
                )
        else:
            rad = min(x1 - x0, y1 - y0) * 0.36
            for j, k in enumerate(ekeys):
                a = 2 * math.pi * j / max(len(ekeys), 1) - math.pi / 2
                pos[k] = (cx + rad * math.cos(a), cy + rad * math.sin(a))
        for k, (x, y) in pos.items():
            ents[k]["panel_positions"].append(
                {"panel": p, "x": round(x, 2), "y": round(y, 2), "r": r}
            )
            labels.append(
                {
                    "id": ents[k]["id"],
                    "panel": p,
                    "bbox": [
                        round(x + r + 2, 2),
                        round(y - 8, 2),
                        round(x + r + 26, 2),
                        round(y + 8, 2),
                    ],
                }
            )
        if layout == "cli-exp":
            for h in hkeys:
                mem = [pos[m] for m in hg.hyperedges[h].members]
                edges[h]["node"].append(
                    {
                        "panel": p,
                        "x": round(sum(x for x, _ in mem) / len(mem), 2),
                        "y": round(sum(y for _, y in mem) / len(mem), 2),
                    }
                )
        elif layout.startswith("set"):
            for depth, h in enumerate(hkeys):
                pad = r + 6 + 3 * (depth % 4)
                ring = [
                    (x + pad * math.cos(t * math.pi / 8), y + pad * math.sin(t * math.pi / 8))
                    for m in hg.hyperedges[h].members
                    for x, y in [pos[m]]
                    for t in range(16)
                ]
                hull = [[round(x, 2), round(y, 2)] for x, y in _hull(ring)]
                edges[h]["regions"].append({"panel": p, "polygons": [hull]})
                mx = sum(pt[0] for pt in hull) / len(hull)
                my = sum(pt[1] for pt in hull) / len(hull)
                labels.append(
                    {
                        "id": edges[h]["id"],
                        "panel": p,
                        "bbox": [
                            round(mx - 10, 2),
                            round(my - 8, 2),
                            round(mx + 10, 2),
                            round(my + 8, 2),
                        ],
                    }
                )
    export: dict[str, Any] = {
        "width": width,
        "height": height,
        "layouts": list(layouts),
        "panels": [{"layout": lay, "bbox": box} for lay, box in zip(layouts, boxes, strict=True)],
        "entities": list(ents.values()),
        "hyperedges": list(edges.values()),
        "labels": labels,
        "pruned": {
            "entities": ["Dropped Entity"],
            "hyperedges": [],
            "reasons": {"dropped entity": "lowest importance under the budget"},
        },
        "metrics": {"purity": 1.0, "node_overlaps": 0},
        "versions": {"vizrag": "test"},
        "caption": "\n".join(f"{e['id']}: {e['name']}" for e in ents.values()),
        "title": title,
    }
    if chunks is not None:
        export["chunks"] = dict(chunks)
    return export


def expected_neighbourhood(hg: Hypergraph, key: str, hops: int) -> tuple[set[str], set[str]]:
    """(entity keys within ``hops``, hyperedge ids traversed) — from the model itself."""
    dist = {key: 0}
    edges: set[str] = set()
    frontier = [key]
    for d in range(hops):
        nxt = []
        for v in frontier:
            for hid in hg.neighbors(v):
                edges.add(hid)
                for m in hg.members(hid):
                    if m not in dist:
                        dist[m] = d + 1
                        nxt.append(m)
        frontier = nxt
    return set(dist), edges


def expected_ids(
    hg: Hypergraph, key: str, hops: int, ids: IdMap | None = None
) -> tuple[set[str], set[str]]:
    """:func:`expected_neighbourhood` mapped to visual IDs (E#, H#) of ``ids``."""
    ids = IdMap.build(hg) if ids is None else ids
    ents, edges = expected_neighbourhood(hg, key, hops)
    return {ids.entities[k] for k in ents}, {ids.hyperedges[h] for h in edges}


def full_depth(hg: Hypergraph, key: str) -> int:
    """Hops after which the neighbourhood of ``key`` stops growing (at least 1), from the model.

    This is the most clicks an entity expands by when the hop control says "all".
    """
    hops = 1
    while expected_neighbourhood(hg, key, hops) != expected_neighbourhood(hg, key, hops + 1):
        hops += 1
    return hops


def hop_diameter(hg: Hypergraph) -> int:
    """The largest :func:`full_depth` over all entities: the hop control's top number."""
    return max((full_depth(hg, k) for k in hg.entities), default=1)
