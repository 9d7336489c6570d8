"""The six built-in layouts and the registry."""

from __future__ import annotations

import math
from typing import Any

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, IdMap
from hyperviz_core.draw import visual_order
from hyperviz_core.layouts import (
    LayoutOrder,
    LayoutResult,
    available_layouts,
    get_layout,
    layout_kind,
    register_layout,
)
from hyperviz_core.layouts.induced import bi_inc, count_crossings
from hyperviz_core.testing import random_hypergraph

BUILTIN = ["set-hier", "set-radial", "set-force", "bi-inc", "ra-cen", "cli-exp"]


def _order(hg: Hypergraph) -> LayoutOrder:
    return visual_order(hg, IdMap.build(hg))


def test_builtins_registered_in_order() -> None:
    assert available_layouts()[:6] == BUILTIN
    assert [layout_kind(n) for n in BUILTIN] == ["set"] * 3 + ["induced"] * 3


@pytest.mark.parametrize("name", BUILTIN)
def test_every_layout_positions_everything_deterministically(name: str) -> None:
    hg = random_hypergraph(25, 12, seed=4)
    order = _order(hg)
    res = get_layout(name)(hg, order)
    assert isinstance(res, LayoutResult)
    assert res.kind == layout_kind(name)
    assert set(res.entities) == set(hg.entities)
    if res.kind == "induced":
        assert set(res.hyperedges) == set(hg.hyperedges)
    pts = list(res.entities.values())
    assert len(set(pts)) == len(pts)  # no two entities on the same spot
    again = get_layout(name)(hg, order)
    assert again.entities == res.entities and again.hyperedges == res.hyperedges


def test_set_hier_is_a_real_hierarchy() -> None:
    hg = random_hypergraph(30, 15, seed=7)
    res = get_layout("set-hier")(hg, _order(hg))
    ranks = {round(y, 1) for _, y in res.entities.values()}
    assert len(ranks) >= 3  # not collapsed into two ranks


def test_bi_inc_reduces_crossings() -> None:
    hg = random_hypergraph(30, 15, seed=7)
    order = _order(hg)
    res = bi_inc(hg, order)

    def crossings(epos: dict[str, float], hpos: dict[str, float]) -> int:
        pairs = [(m, h) for h in order.hyperedges for m in hg.members(h)]
        rank_e = {k: i for i, k in enumerate(sorted(epos, key=lambda k: -epos[k]))}
        rank_h = {h: i for i, h in enumerate(sorted(hpos, key=lambda h: -hpos[h]))}
        return count_crossings([(rank_e[m], rank_h[h]) for m, h in pairs])

    ours = crossings({k: y for k, (_, y) in res.entities.items()},
                     {h: y for h, (_, y) in res.hyperedges.items()})
    naive = crossings({k: -i for i, k in enumerate(order.entities)},
                      {h: -i for i, h in enumerate(order.hyperedges)})
    assert ours < naive


def test_count_crossings() -> None:
    assert count_crossings([(0, 1), (1, 0)]) == 1
    assert count_crossings([(0, 0), (1, 1), (2, 2)]) == 0
    assert count_crossings([]) == 0


def test_ra_cen_shells_and_fallback() -> None:
    hg = random_hypergraph(20, 10, seed=2)
    res = get_layout("ra-cen")(hg, _order(hg))
    assert res.rings == sorted(res.rings) and res.center == (0.0, 0.0)
    assert res.ring_names[0] == "d=1" and len(res.ring_names) == len(res.rings)
    split = Hypergraph(entities=[Entity(name=n) for n in "abcde"],
                       hyperedges=[Hyperedge(id="x", members=["a", "b", "c"]),
                                   Hyperedge(id="y", members=["d", "e"])])
    two = get_layout("ra-cen")(split, _order(split))
    assert two.ring_names == ["d=1", "d=2"]  # the other component is packed beside
    assert set(two.entities) == set("abcde")
    lonely = Hypergraph(entities=[Entity(name=n) for n in "abc"])
    fb = get_layout("ra-cen")(lonely, _order(lonely))
    assert fb.engine.startswith("spring") and len(fb.entities) == 3


def _facing(res: LayoutResult, hg: Hypergraph) -> float:
    """Largest angle between an outer entity (shell 2) and its hyperedge (shell 1)."""
    worst = 0.0
    for h in hg.hyperedges:
        hx, hy = res.hyperedges[h]
        for m in hg.members(h):
            ex, ey = res.entities[m]
            if math.hypot(ex, ey) > math.hypot(hx, hy) > 0:
                diff = abs(math.atan2(ey, ex) - math.atan2(hy, hx)) % (2 * math.pi)
                worst = max(worst, min(diff, 2 * math.pi - diff))
    return worst


def test_ra_cen_outer_shells_face_their_parents() -> None:
    """Shell 2 is rotated towards the hyperedges it hangs from (it used to start at angle 0
    whatever their angles, so an incidence line could cross the hub): here three children of
    three of the hub's four hyperedges each sit within 45° of their parent."""
    hg = Hypergraph(entities=[Entity(name=n) for n in "ABCD"],
                    hyperedges=[Hyperedge(id="h1", members=["A", "B"]),
                                Hyperedge(id="h2", members=["A", "C"]),
                                Hyperedge(id="h3", members=["A", "D"]),
                                Hyperedge(id="h4", members=["A"])])
    res = get_layout("ra-cen")(hg, _order(hg))
    assert res.entities["a"] == (0.0, 0.0)  # the hub
    assert _facing(res, hg) <= math.radians(45)  # at 0° offset: 60° (d at 240°, h3 at 180°)


def test_cli_exp_has_clique_edges() -> None:
    hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
                    hyperedges=[Hyperedge(id="h", members=["a", "b", "c"])])
    res = get_layout("cli-exp")(hg, _order(hg))
    assert sorted(tuple(sorted(e)) for e in res.clique_edges) == [("a", "b"), ("a", "c"),
                                                                  ("b", "c")]


def test_custom_layout_registration() -> None:
    def line(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
        return LayoutResult(kind="set", entities={k: (float(i), 0.0)
                                                  for i, k in enumerate(order.entities)})

    register_layout("test-line", line, replace=True)
    assert "test-line" in available_layouts()
    assert get_layout("test-line") is line
    with pytest.raises(ValueError, match="already registered"):
        register_layout("test-line", line)
    with pytest.raises(ValueError, match="unknown layout"):
        get_layout("no-such-layout")
    with pytest.raises(TypeError):
        register_layout("test-bad", "not callable")  # type: ignore[arg-type]


@pytest.mark.parametrize(("result", "error"), [
    (lambda keys: LayoutResult(kind="set", entities={k: (math.nan, 0.0) for k in keys}),
     r"gave entity .* the position \(nan, 0.0\), not two finite numbers"),
    (lambda keys: LayoutResult(kind="set", entities={k: (math.inf, 1.0) for k in keys}),
     r"position \(inf, 1.0\)"),
    (lambda keys: LayoutResult(kind="set", entities={k: (0.0, 0.0) for k in keys},
                               hyperedges={"h": ("a", 1)}), r"gave hyperedge 'h' the position"),
    (lambda keys: LayoutResult(kind="set", entities={k: ("1", "2") for k in keys}),  # type: ignore[misc]
     r"position \('1', '2'\), not two finite numbers"),  # text, though float() reads it
    (lambda keys: LayoutResult(kind="weird", entities={k: (0.0, 0.0) for k in keys}),  # type: ignore[arg-type]
     r"gave kind 'weird'"),
    (lambda keys: None, r"returned NoneType, not a LayoutResult"),
])
def test_a_custom_layout_s_bad_result_is_named(result: Any, error: str) -> None:
    """Non-finite points crashed shapely (a segmentation fault) instead of an error."""
    from hyperviz_core import HyperViz

    register_layout("test-broken", lambda hg, order: result(order.entities), replace=True)
    with pytest.raises((ValueError, TypeError), match=error):
        HyperViz().render(random_hypergraph(8, 4, seed=1), layouts="test-broken")


def test_ra_cen_rings_stay_inside_their_panel() -> None:
    """A shell ring wider than its panel is clipped to it, in the PNG and in the viewer."""
    import io
    import re

    import numpy as np
    from PIL import Image

    from hyperviz_core import HyperViz

    hg = Hypergraph()
    for name in ("Marie Curie", "Nobel Prize", "Pierre Curie", "Radium"):
        hg.add_entity(Entity(name=name))
    hg.add_hyperedge(Hyperedge(members=["marie curie", "radium"], description="discovered"))
    hg.add_hyperedge(Hyperedge(members=["marie curie", "pierre curie", "nobel prize"],
                               description="shared the 1903 Nobel Prize in Physics"))
    r = HyperViz().render(hg, layouts=("set-force", "ra-cen"))
    panel = r.export()["panels"][1]
    x0, y0, x1, y1 = panel["bbox"]
    assert max(panel["rings"]) > (y1 - y0) / 2  # the widest ring is taller than the panel
    px = np.asarray(Image.open(io.BytesIO(r.png)).convert("L"))
    band = px[int(y0) - 5:int(y0) - 1, int(x0) + 10:int(x1) - 10]  # between title and panel
    assert band.min() == band.max()  # plain background: no ring dash outside the panel
    rings = re.findall(r'<ellipse class="hv-ring"[^>]*>', r.to_html())
    assert rings and all('clip-path="url(#hv-clip-1)"' in c for c in rings)
