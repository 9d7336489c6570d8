"""HyperViz rendering: dual view, geometry guarantees, determinism, exports, collage."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import struct
import subprocess
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image
from shapely.geometry import Point, Polygon

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.draw.fit import ensure_spacing, separate, stack_columns
from hyperviz_core.draw.regions import build_regions
from hyperviz_core.layouts import LayoutOrder, LayoutResult, register_layout
from hyperviz_core.prune import Budget
from hyperviz_core.render import HyperViz, Rendering, render_collage
from hyperviz_core.style import Style
from hyperviz_core.testing import random_hypergraph


def _png_chunks(png: bytes) -> list[bytes]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    out, i = [], 8
    while i < len(png):
        (length,) = struct.unpack(">I", png[i:i + 4])
        out.append(png[i + 4:i + 8])
        i += 12 + length
    return out


def _region(polys: list[list[list[float]]]) -> Any:
    geom = None
    for ring in polys:
        p = Polygon(ring).buffer(0)
        geom = p if geom is None else geom.symmetric_difference(p)
    return geom


def _check_geometry(exp: dict[str, Any], *, labels: bool) -> None:
    """Purity, coverage, node overlaps and label collisions, computed here from the export."""
    for p, panel in enumerate(exp["panels"]):
        nodes = {e["id"]: pp for e in exp["entities"] for pp in e["panel_positions"]
                 if pp["panel"] == p}
        disks = [(pp["x"], pp["y"], pp["r"]) for pp in nodes.values()]
        disks += [(n["x"], n["y"], n["r"]) for h in exp["hyperedges"] for n in h["node"]
                  if n["panel"] == p]
        for (x1, y1, r1), (x2, y2, r2) in combinations(disks, 2):
            assert (x1 - x2) ** 2 + (y1 - y2) ** 2 >= (r1 + r2) ** 2, (panel, x1, y1, x2, y2)
        x0, y0, x1, y1 = panel["bbox"]
        for x, y, r in disks:
            assert x0 <= x - r and x + r <= x1 and y0 <= y - r and y + r <= y1
        for h in exp["hyperedges"]:
            for reg in h["regions"]:
                if reg["panel"] != p:
                    continue
                geom = _region(reg["polygons"])
                for vid, pp in nodes.items():
                    disk = Point(pp["x"], pp["y"]).buffer(pp["r"] - 0.5)
                    if vid in h["members"]:
                        assert geom.contains(Point(pp["x"], pp["y"])), (h["id"], vid)
                    else:
                        assert not geom.intersects(disk), (panel["layout"], h["id"], vid)
        if labels:
            boxes = [lab["bbox"] for lab in exp["labels"] if lab["panel"] == p]
            for a, b in combinations(boxes, 2):
                w = min(a[2], b[2]) - max(a[0], b[0])
                hgt = min(a[3], b[3]) - max(a[1], b[1])
                assert not (w > 1 and hgt > 1 and w * hgt > 1), (a, b)
            for lab in exp["labels"]:
                if lab["panel"] != p:
                    continue
                bx = lab["bbox"]
                cx, cy = (bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2
                rect = Polygon([(bx[0], bx[1]), (bx[2], bx[1]), (bx[2], bx[3]), (bx[0], bx[3])])
                for vid, pp in nodes.items():
                    near = (cx - pp["x"]) ** 2 + (cy - pp["y"]) ** 2 <= pp["r"] ** 2
                    own = vid == lab["id"] and near
                    if not own:
                        assert rect.intersection(Point(pp["x"], pp["y"]).buffer(pp["r"])).area <= 1


@pytest.fixture(scope="module")
def dual30() -> Rendering:
    return HyperViz().render(random_hypergraph(30, 15, seed=7), query="harbor treaty")


def test_dual_view_basics(dual30: Rendering) -> None:
    r = dual30
    assert (r.width, r.height) == (1536, 768)
    assert Image.open(io.BytesIO(r.png)).size == (1536, 768)
    assert r.layouts == ["set-force", "bi-inc"]
    exp = r.export()
    json.dumps(exp)  # serialisable
    for key in ("width", "height", "layouts", "panels", "entities", "hyperedges", "labels",
                "pruned", "metrics", "versions", "caption", "title"):
        assert key in exp
    assert [p["layout"] for p in exp["panels"]] == ["set-force", "bi-inc"]
    left, right = exp["panels"][0]["bbox"], exp["panels"][1]["bbox"]
    assert left[2] <= right[0]  # side by side
    # the same IDs in both panels, one colour per hyperedge
    assert all(sorted(pp["panel"] for pp in e["panel_positions"]) == [0, 1]
               for e in exp["entities"])
    assert all(h["regions"][0]["panel"] == 0 and h["node"][0]["panel"] == 1
               for h in exp["hyperedges"])
    assert len({h["color"] for h in exp["hyperedges"]}) == min(len(exp["hyperedges"]), 12)
    assert sorted(e["id"] for e in exp["entities"]) == sorted(r.id_map.entities.values())
    for vid in [*r.id_map.entities.values(), *r.id_map.hyperedges.values()]:
        assert f"{vid} " in r.caption
    assert r.metrics == exp["metrics"] and r.metrics["purity"] == 1.0
    assert exp["query"] == "harbor treaty"


def test_png_has_no_timestamp_or_software(dual30: Rendering) -> None:
    chunks = _png_chunks(dual30.png)
    assert b"tIME" not in chunks
    assert b"Software" not in dual30.png and b"matplotlib" not in dual30.png.lower()


def test_geometry_of_dual_view(dual30: Rendering) -> None:
    _check_geometry(dual30.export(), labels=True)


@pytest.mark.parametrize(("n", "m"), [(20, 10), (50, 25), (100, 50)])
@pytest.mark.parametrize("pair", [("set-hier", "bi-inc"), ("set-radial", "ra-cen"),
                                  ("set-force", "cli-exp")])
def test_purity_and_no_overlaps(n: int, m: int, pair: tuple[str, str]) -> None:
    r = HyperViz().render(random_hypergraph(n, m, seed=n + m), layouts=pair)
    exp = r.export()
    assert exp["hyperedges"] and all(h["regions"] for h in exp["hyperedges"])
    _check_geometry(exp, labels=n <= 50)
    assert r.metrics["purity"] == 1.0 and r.metrics["node_overlaps"] == 0


def _gaps(xy: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Pairwise centre distance minus r_i + r_j (upper triangle)."""
    i, j = np.triu_indices(len(xy), k=1)
    return np.hypot(*(xy[i] - xy[j]).T) - radii[i] - radii[j]


def test_ensure_spacing_unjams_a_squeezed_row() -> None:
    # a dot rank wider than the panel, squeezed onto one line (set-hier, 50 entities):
    # every push of separate() is parallel to the line, so it stalls with overlaps
    xy = np.column_stack([np.linspace(0.0, 660.0, 26), np.full(26, 100.0)])
    radii = np.full(26, 13.3)
    frame = (0.0, 0.0, 660.0, 400.0)
    relaxed = separate(xy, radii, frame, 10.0)
    assert _gaps(relaxed, radii).min() < 0  # the relaxation alone leaves overlaps
    out = ensure_spacing(relaxed, radii, frame, 10.0)
    assert _gaps(out, radii).min() >= 2.0 - 1e-6
    assert (out[:, 0] >= 0).all() and (out[:, 0] <= 660).all()
    assert (out[:, 1] >= 0).all() and (out[:, 1] <= 400).all()
    assert np.array_equal(out, ensure_spacing(relaxed, radii, frame, 10.0))  # deterministic
    fine = np.array([[0.0, 0.0], [40.0, 0.0]])  # gaps >= min_sep: nothing moves
    assert np.array_equal(ensure_spacing(fine, np.full(2, 13.3), frame, 20.0), fine)


def test_stack_columns_capacity_rule() -> None:
    # bi-inc at 100 entities / 50 hyperedges in a 700x420 frame: sub-columns, no overlap
    radii = [[16.9] * 100, [20.4] * 50]
    frame = (0.0, 0.0, 700.0, 420.0)
    assert stack_columns(radii, frame, 10.0) is None  # too wide at the full gap
    cols = stack_columns(radii, frame, 6.0)
    assert cols is not None
    ents, edges = cols
    xy = np.vstack([ents, edges])
    r = np.array([*radii[0], *radii[1]])
    assert _gaps(xy, r).min() >= 6.0 - 1e-6
    assert (np.diff(ents[:, 1]) > 0).all() and (np.diff(edges[:, 1]) > 0).all()  # order kept
    assert ents[:, 0].max() < edges[:, 0].min()  # entities left, hyperedges right
    single = stack_columns([[11.0] * 10, [12.0] * 5], frame, 10.0)
    assert single is not None and len({float(x) for x in single[0][:, 0]}) == 1


def test_regions_keep_clear_of_other_hyperedges_rings() -> None:
    # H1's band passes E_b, a non-member whose outer ring (rank 1, for H4) used to reach
    # into the band: disjoint hyperedges then shared area (a false shared member)
    pos = {"a": (40.0, 100.0), "b": (140.0, 122.0), "c": (240.0, 100.0),
           "d": (120.0, 220.0), "e": (200.0, 230.0)}
    edges = [("H1", ["a", "c"]), ("H2", ["b", "d"]), ("H4", ["b", "d", "e"])]
    regs = build_regions(edges, pos, 11.0, (0.0, 0.0, 300.0, 300.0))
    assert len(regs["H1"].polygons()) == 1
    for hid in ("H2", "H4"):
        assert regs["H1"].geom.intersection(regs[hid].geom).area <= 1.0


def test_pruning_marks_omitted_items() -> None:
    hg = random_hypergraph(120, 60, seed=3)
    r = HyperViz().render(hg)
    assert r.pruning.pruned
    assert len(r.id_map.entities) < 120 and len(r.id_map.hyperedges) < 60
    assert r.pruning.cost <= r.pruning.c_max  # the budget decides (no default caps)
    assert "Omitted by congestion control" in r.caption
    exp = r.export()
    assert set(exp["pruned"]["entities"]) == set(r.pruning.entities)
    assert not set(exp["pruned"]["entities"]) & {e["key"] for e in exp["entities"]}


def test_query_changes_what_survives() -> None:
    hg = random_hypergraph(60, 30, seed=9)
    target = sorted(hg.entities, key=lambda k: (hg.degree(k), k))[0]  # least central
    viz = HyperViz(budget=Budget(max_entities=20, max_hyperedges=100, gamma=1.0))
    assert target not in viz.render(hg, layouts="set-force").id_map.entities
    query = hg.entities[target].description
    assert target in viz.render(hg, layouts="set-force", query=query).id_map.entities


def test_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    code = (
        "import hashlib, sys\n"
        "from hyperviz_core.render import HyperViz\n"
        "from hyperviz_core.testing import random_hypergraph\n"
        "r = HyperViz().render(random_hypergraph(24, 12, seed=5), query='river')\n"
        "print(hashlib.sha256(r.png).hexdigest())\n"
    )
    digests = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, timeout=120)
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 64
    here = HyperViz().render(random_hypergraph(24, 12, seed=5), query="river")
    assert hashlib.sha256(here.png).hexdigest() == digests[0]


def test_empty_and_tiny_graphs_render() -> None:
    r = HyperViz().render(Hypergraph())
    assert r.png[:4] == b"\x89PNG" and r.export()["entities"] == []
    assert r.export()["panels"][0]["message"]
    solo = HyperViz().render(Hypergraph(entities=[Entity(name="solo")]))
    assert solo.id_map.entities == {"solo": "E1"}
    pair = Hypergraph(entities=[Entity(name="a"), Entity(name="b")],
                      hyperedges=[Hyperedge(id="h", members=["a", "b"])])
    for lay in ("set-hier", "set-radial", "set-force", "bi-inc", "ra-cen", "cli-exp"):
        _check_geometry(HyperViz().render(pair, layouts=lay).export(), labels=True)


def test_style_reaches_the_pixels() -> None:
    hg = random_hypergraph(8, 4, seed=1)
    r = HyperViz(style=Style(background=(0, 0, 0), show_title=False)).render(hg, "bi-inc")
    img = Image.open(io.BytesIO(r.png)).convert("RGB")
    assert img.getpixel((1, 1)) == (0, 0, 0)
    assert (r.width, r.height) == (768, 768)
    nolegend = HyperViz(style=Style(show_legend=False)).render(hg)
    assert nolegend.export()["legend"] == []


@pytest.mark.parametrize(("background", "light_text"), [("white", False), ("#1e1e1e", True),
                                                       ("navy", True), ("#f5f0e1", False)])
def test_title_legend_and_footer_stay_legible_on_the_background(background: str,
                                                                light_text: bool) -> None:
    r = HyperViz(style=Style(background=background)).render(random_hypergraph(10, 5, seed=1))
    img = Image.open(io.BytesIO(r.png)).convert("L")
    bg = img.getpixel((1, 1))
    plan_h = r.height
    for top, bottom in ((0, 24), (plan_h - 20, plan_h)):  # the title band, the footer line
        band = img.crop((0, top, r.width, bottom))
        lo, hi = band.getextrema()
        ink = hi if light_text else lo  # the text's extreme, away from the background
        assert abs(ink - bg) >= 120, (background, top, lo, hi, bg)


def test_untrusted_names_are_harmless() -> None:
    evil = ['a" -> b [label="x"]; //', "$\\frac{1}{0}$", "<script>alert(1)</script>", "é 東京"]
    hg = Hypergraph(entities=[Entity(name=n, description=n) for n in evil])
    keys = sorted(hg.entities)
    hg.add_hyperedge(Hyperedge(id='h"1', members=keys[:3], description="}; digraph {"))
    hg.add_hyperedge(Hyperedge(id="h2", members=keys[2:]))
    for lay in ("set-hier", "set-radial", "set-force"):
        r = HyperViz().render(hg, layouts=lay)
        assert {e["name"] for e in r.export()["entities"]} == set(evil)


def test_chunk_texts_save_and_html(tmp_path: Path) -> None:
    hg = Hypergraph(entities=[Entity(name="a", source_ids=["c1"]), Entity(name="b")],
                    hyperedges=[Hyperedge(id="h", members=["a", "b"], source_ids=["c2"])])
    r = HyperViz().render(hg, chunk_texts={"c1": "first chunk", "c2": "second"})
    assert r.export()["chunks"] == {"c1": "first chunk", "c2": "second"}
    path = r.save(tmp_path / "out" / "view.png")
    assert path.read_bytes() == r.png
    assert json.loads((tmp_path / "out" / "view.json").read_text())["width"] == 1536
    html = r.to_html()
    assert "<html" in html.lower() and "E1" in html
    r.save_html(tmp_path / "v.html")
    assert (tmp_path / "v.html").read_text(encoding="utf-8") == html


def test_collage_and_custom_layout() -> None:
    def diagonal(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
        return LayoutResult(kind="set", entities={k: (float(i), float(i % 3))
                                                  for i, k in enumerate(order.entities)})

    register_layout("test-diagonal", diagonal, replace=True)
    hg = random_hypergraph(12, 6, seed=2)
    r = render_collage(hg, ["set-hier", "ra-cen", "test-diagonal", "cli-exp"], cols=2)
    exp = r.export()
    assert r.layouts == ["set-hier", "ra-cen", "test-diagonal", "cli-exp"]
    assert r.width == 2 * 768 and len(exp["panels"]) == 4
    rows = sorted({p["bbox"][1] for p in exp["panels"]})
    assert len(rows) == 2
    _check_geometry(exp, labels=True)
    with pytest.raises(ValueError):
        render_collage(hg, ["set-hier"], cols=9)
    with pytest.raises(ValueError, match="unknown layout"):
        HyperViz().render(hg, layouts=("set-force", "nope"))

    def broken(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
        return LayoutResult(kind="set", entities={})

    register_layout("test-broken", broken, replace=True)
    with pytest.raises(ValueError, match="no position"):
        HyperViz().render(hg, layouts="test-broken")


async def test_arender_matches_render_even_concurrently() -> None:
    viz = HyperViz()
    graphs = [random_hypergraph(10, 5, seed=s) for s in (3, 4, 5)]
    together = await asyncio.gather(*(viz.arender(g, ("set-radial", "ra-cen"))
                                      for g in graphs))
    for g, a in zip(graphs, together, strict=True):
        assert a.png == viz.render(g, layouts=("set-radial", "ra-cen")).png
    assert "PNG bytes" in repr(together[0])
