"""The renderer's speed-ups (issue 14) change no drawing: each fast path gives exactly what
the straightforward code it replaced gives (kept here as references)."""

from __future__ import annotations

import io
import json
import math
import pathlib

import graphviz
import numpy as np
import pytest
import shapely
from matplotlib.path import Path
from PIL import Image
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry

from hyperviz_core import IdMap
from hyperviz_core.draw import labels as labels_mod
from hyperviz_core.draw import scene as scene_mod
from hyperviz_core.draw.labels import Occupancy, box_disk_distance, make_box
from hyperviz_core.draw.raster import _poly_path, encode_png
from hyperviz_core.draw.regions import _disks, _Grid
from hyperviz_core.draw.scene import OWN_MARGIN, visual_order
from hyperviz_core.draw.spots import box_owned_mask
from hyperviz_core.layouts import gv, gvrun
from hyperviz_core.render import HyperViz
from hyperviz_core.testing import random_hypergraph


# ------------------------------------------------------------------ Graphviz
def _reference_source(directed: bool, depth: bool, seed: int) -> tuple[str, str]:
    """(our DOT source, the one ``g.node``/``g.edge`` write) for one random hypergraph."""
    hg = random_hypergraph(18, 9, seed=seed)
    order = visual_order(hg, IdMap.build(hg))
    en, hn = gv._names(order)
    dep = gv._bfs_depth(hg, order, order.entities[0]) if depth else None
    ours = graphviz.Digraph() if directed else graphviz.Graph()
    gv._add_incidence(ours, hg, order, en, hn, dep)
    ref = graphviz.Digraph() if directed else graphviz.Graph()
    for k in order.entities:
        ref.node(en[k], **gv._NODE)
    for h in order.hyperedges:
        ref.node(hn[h], **gv._ANCHOR)
    for h in order.hyperedges:
        for m in hg.members(h):
            if dep is None or dep.get(f"e:{m}", 0) <= dep.get(f"h:{h}", 0):
                ref.edge(en[m], hn[h])
            else:
                ref.edge(hn[h], en[m])
    return ours.source, ref.source


@pytest.mark.parametrize(("directed", "depth"), [(False, False), (True, True)])
def test_dot_source_is_what_the_graphviz_api_writes(directed: bool, depth: bool) -> None:
    for seed in (1, 2, 3):
        ours, ref = _reference_source(directed, depth, seed)
        assert ours == ref
        assert ("->" in ours) == directed


@pytest.mark.parametrize("engine", ["fdp", "dot", "twopi", "sfdp"])
def test_lean_plugin_set_gives_the_same_positions(engine: str) -> None:
    if gvrun.lean_env() is None:
        pytest.skip("no lean Graphviz plugin directory on this installation")
    source, _ = _reference_source(engine == "dot", engine == "dot", seed=5)
    data = source.encode()
    lean = gvrun._pipe(data, engine, gvrun.lean_env())
    full = gvrun._pipe(data, engine, None)
    assert lean.returncode == full.returncode == 0
    assert json.loads(lean.stdout)["objects"] == json.loads(full.stdout)["objects"]
    assert not lean.stderr
    pos = {o["name"]: tuple(float(v) for v in o["pos"].split(",")[:2])
           for o in json.loads(full.stdout)["objects"] if "pos" in o}
    assert gvrun.run_layout(source, engine) == pos


def test_a_failing_lean_run_falls_back_to_the_full_configuration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gvrun.lean_env()  # made (or not) before the test swaps it for a broken one
    monkeypatch.setitem(gvrun._STATE, "dir", pathlib.Path("/nonexistent/hyperviz-gv"))
    pos = gvrun.run_layout("graph { a -- b; b -- c }", "fdp")
    assert sorted(pos) == ["a", "b", "c"]
    assert gvrun._STATE["dir"] is None and gvrun.lean_env() is None  # Graphviz's own set now


def test_engine_errors_are_graphvizs_own() -> None:
    lean = gvrun.lean_env()
    with pytest.raises(graphviz.CalledProcessError):
        gvrun.run_layout("graph { a -- }", "fdp")
    assert (gvrun.lean_env() is None) == (lean is None)  # bad input does not turn it off


# ------------------------------------------------------------------ PNG
def test_png_pixels_are_the_palette_of_the_rgb_image() -> None:
    rng = np.random.default_rng(0)
    rgba = rng.integers(0, 256, size=(40, 60, 4), dtype=np.uint8)
    rgba[:20, :, :3] = (250, 250, 250)  # flat areas, as in a drawing
    rgba[..., 3] = rng.integers(0, 256, size=(40, 60), dtype=np.uint8)  # alpha is ignored
    png = encode_png(memoryview(np.ascontiguousarray(rgba)), 60, 40)
    got = Image.open(io.BytesIO(png))
    assert got.mode == "P" and got.size == (60, 40)
    assert not got.info.get("Software") and "timestamp" not in got.info
    ref = Image.frombuffer("RGBA", (60, 40), rgba.tobytes(), "raw", "RGBA", 0, 1).convert("RGB")
    ref_pal = ref.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    assert got.convert("RGB").tobytes() == ref_pal.convert("RGB").tobytes()
    assert encode_png(memoryview(np.ascontiguousarray(rgba)), 60, 40) == png


def test_polygon_path_matches_the_vertex_list_construction() -> None:
    poly = Point(50, 50).buffer(30).difference(Point(55, 50).buffer(8))
    ring = shapely.geometry.polygon.orient(poly, sign=1.0)
    verts: list[tuple[float, float]] = []
    codes: list[int] = []
    for r in [ring.exterior, *ring.interiors]:
        cs = list(r.coords)
        verts += cs
        codes += [Path.MOVETO] + [Path.LINETO] * (len(cs) - 2) + [Path.CLOSEPOLY]
    got = _poly_path(poly)
    assert np.array_equal(got.vertices, np.asarray(verts))
    assert got.codes is not None and got.codes.tolist() == codes


# ------------------------------------------------------------------ geometry helpers
def test_vectorised_disks_equal_point_buffers() -> None:
    rng = np.random.default_rng(1)
    pts = [(float(x), float(y)) for x, y in rng.random((25, 2)) * 500]
    radii = [float(r) for r in rng.random(25) * 9 + 8]
    got = _disks(pts, radii)
    assert all(g.equals_exact(Point(p).buffer(r, quad_segs=8), 0)
               for g, p, r in zip(got, pts, radii, strict=True))
    occ = Occupancy((0, 0, 500, 500), [(x, y, r) for (x, y), r in zip(pts, radii, strict=True)])
    near = occ.nodes_near((100, 100, 300, 300))
    ref = [Point(x, y).buffer(r + 1.0, quad_segs=6) for (x, y), r in zip(pts, radii, strict=True)
           if x + r + 1 >= 100 and x - r - 1 <= 300 and y + r + 1 >= 100 and y - r - 1 <= 300]
    assert len(near) == len(ref) > 0
    assert all(a.equals_exact(b, 0) for a, b in zip(near, ref, strict=True))


def _reference_owned_spot(spots: list[tuple[float, float]], i: int, w: float, h: float,
                          all_xy: np.ndarray, all_r: np.ndarray) -> tuple[float, float] | None:
    others = np.ones(len(all_r), dtype=bool)
    others[i] = False
    x, y, r = all_xy[i, 0], all_xy[i, 1], all_r[i]
    for cand in spots:
        b = make_box(cand[0], cand[1], w, h)
        own = float(box_disk_distance(b, np.array([x]), np.array([y]), np.array([r]))[0])
        d = box_disk_distance(b, all_xy[others, 0], all_xy[others, 1], all_r[others])
        if not len(d) or own + OWN_MARGIN <= float(d.min()):
            return cand
    return None


def _owned_spot(spots: list[tuple[float, float]], i: int, w: float, h: float,
                all_xy: np.ndarray, all_r: np.ndarray) -> tuple[float, float] | None:
    """The first of ``spots`` :func:`box_owned_mask` keeps (what the name search takes)."""
    if not spots:
        return None
    ok = np.flatnonzero(box_owned_mask(np.asarray(spots, dtype=float), i, w, h, all_xy,
                                       all_r, OWN_MARGIN))
    return spots[int(ok[0])] if len(ok) else None


def test_owned_spot_is_the_first_unambiguous_candidate() -> None:
    rng = np.random.default_rng(2)
    found = 0
    for trial in range(200):
        n = int(rng.integers(1, 12))
        all_xy = rng.random((n, 2)) * 120
        all_r = rng.random(n) * 6 + 8
        i = int(rng.integers(0, n))
        w, h = float(rng.random() * 60 + 10), float(rng.random() * 8 + 10)
        spots = [(float(all_xy[i, 0] + dx), float(all_xy[i, 1] + dy))
                 for dx, dy in (rng.random((int(rng.integers(0, 20)), 2)) - 0.5) * 120]
        want = _reference_owned_spot(spots, i, w, h, all_xy, all_r)
        assert _owned_spot(spots, i, w, h, all_xy, all_r) == want, trial
        found += want is not None
    assert 20 < found < 190  # both outcomes exercised


def _reference_place_in_region(
    occ: Occupancy, region: BaseGeometry, others: list[BaseGeometry], w: float, h: float
) -> tuple[float, float] | None:
    """``place_in_region`` as it was: the other regions united whole, not clipped."""
    nodes = [g for g in occ.nodes_near(region.bounds) if g.intersects(region)]
    area = region.difference(shapely.union_all(nodes)) if nodes else region
    rx0, ry0, rx1, ry1 = region.bounds
    near = [box(*b) for b in occ.boxes
            if b[2] >= rx0 and b[0] <= rx1 and b[3] >= ry0 and b[1] <= ry1]
    if near:
        area = area.difference(shapely.union_all(near).buffer(1.0))
    candidates = []
    touching = [o for o in others if o.intersects(area)]
    if touching:
        candidates.append(area.difference(shapely.union_all(touching)))
    candidates.append(area)
    for cand in candidates:
        core = cand.buffer(-min(w, h) / 2.0)
        if core.is_empty:
            continue
        for piece in sorted(getattr(core, "geoms", [core]), key=lambda g: -g.area)[:3]:
            p = piece.representative_point()  # as in place_in_region
            if occ.free(make_box(p.x, p.y, w, h)) and region.contains(Point(p.x, p.y)):
                return p.x, p.y
    return labels_mod._grid_search(occ, region, w, h)


@pytest.mark.parametrize(("n", "m", "seed", "layout"), [
    (30, 15, 7, "set-force"), (50, 25, 7, "set-radial"), (40, 20, 3, "set-hier")])
def test_clipped_region_labels_land_where_the_unclipped_ones_did(
    monkeypatch: pytest.MonkeyPatch, n: int, m: int, seed: int, layout: str
) -> None:
    hg = random_hypergraph(n, m, seed=seed)
    fast = HyperViz().render(hg, layouts=layout).export()
    monkeypatch.setattr(scene_mod, "place_in_region", _reference_place_in_region)
    ref = HyperViz().render(hg, layouts=layout).export()
    assert fast["labels"] == ref["labels"]
    assert fast["hyperedges"] == ref["hyperedges"]
    assert any(lab["id"].startswith("H") for lab in fast["labels"])
    assert math.isclose(fast["pruned"]["cost"], ref["pruned"]["cost"])



# ------------------------------------------------------------------ corridor grid
_MOVES = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))


def _reference_free(grid: _Grid, obstacles: list[tuple[tuple[float, float], float]]
                    ) -> np.ndarray:
    ok = np.ones(grid.cx.shape, dtype=bool)
    for (ox, oy), radius in obstacles:
        ok &= (grid.cx - ox) ** 2 + (grid.cy - oy) ** 2 > radius**2
    return ok


def _reference_path(grid: _Grid, free: np.ndarray, src: list[tuple[float, float]],
                    dst: list[tuple[float, float]]) -> list[tuple[float, float]] | None:
    """The wavefront search as it was: eight shifted copies of a padded frontier per step."""
    src_m = np.zeros(free.shape, dtype=bool)
    dst_m = np.zeros(free.shape, dtype=bool)
    for p in src:
        src_m[grid.cell(p)] = True
    for p in dst:
        dst_m[grid.cell(p)] = True
    passable = free | src_m | dst_m
    dist = np.full(free.shape, -1, dtype=np.int32)
    dist[src_m] = 0
    frontier, step = src_m, 0
    while not (frontier & dst_m).any():
        padded = np.pad(frontier, 1)
        grown = np.zeros_like(frontier)
        for di, dj in _MOVES:
            grown |= padded[1 + di:1 + di + grid.ny, 1 + dj:1 + dj + grid.nx]
        grown &= passable & (dist < 0)
        if not grown.any():
            return None
        step += 1
        dist[grown] = step
        frontier = grown
    hits = np.argwhere(frontier & dst_m)
    cur = (int(hits[0][0]), int(hits[0][1]))
    out = [grid.center(cur)]
    while dist[cur] > 0:
        for di, dj in _MOVES:
            nxt = (cur[0] + di, cur[1] + dj)
            if 0 <= nxt[0] < grid.ny and 0 <= nxt[1] < grid.nx and dist[nxt] == dist[cur] - 1:
                cur = nxt
                break
        out.append(grid.center(cur))
    return out[::-1]


def test_corridor_search_matches_the_plain_wavefront() -> None:
    rng = np.random.default_rng(3)
    outcomes = {"path": 0, "none": 0}
    for _ in range(60):
        frame = (float(rng.random() * 50), float(rng.random() * 50), 300.0, 260.0)
        grid = _Grid(frame, float(rng.random() * 4 + 3))
        obstacles = [((float(x), float(y)), float(r)) for x, y, r in zip(
            rng.random(40) * 320 - 10, rng.random(40) * 280 - 10, rng.random(40) * 40 + 4,
            strict=True)]
        free = grid.free(obstacles)
        assert np.array_equal(free, _reference_free(grid, obstacles))
        pts = [(float(x), float(y)) for x, y in rng.random((6, 2)) * 280]
        got = grid.path(free, pts[:3], pts[3:])
        assert got == _reference_path(grid, free, pts[:3], pts[3:])
        outcomes["path" if got else "none"] += 1
    assert outcomes["path"] > 5 and outcomes["none"] > 2  # both outcomes exercised


def test_occupancy_box_array_follows_the_box_list() -> None:
    rng = np.random.default_rng(4)
    occ = Occupancy((0.0, 0.0, 400.0, 300.0), [(50.0, 50.0, 10.0), (200.0, 120.0, 12.0)])
    xs, ys = rng.random(300) * 400, rng.random(300) * 300
    blocked = 0
    for step in range(80):
        b = make_box(float(rng.random() * 380 + 10), float(rng.random() * 280 + 10), 14.0, 8.0)
        if step == 40:
            occ.boxes = list(occ.boxes[:10])  # a replaced list is rebuilt, not extended
        if step % 3:
            occ.add(b)
        else:
            occ.boxes.append(b)  # a direct append is seen too
        assert np.array_equal(occ._box_array(), np.asarray(occ.boxes).reshape(-1, 4))
        got = occ.free_many(xs, ys, 10.0, 6.0)
        one = [occ.free(make_box(float(x), float(y), 10.0, 6.0)) for x, y in zip(xs, ys,
                                                                            strict=True)]
        assert got.tolist() == one
        blocked += len(one) - sum(one)
    assert blocked > 0
