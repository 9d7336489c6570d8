"""``ra-cen``'s shells take the shape of their panel (stop 61).

Its shells were circles, fitted with one uniform scale into panels about 1.6 times as wide
as high: the names of nodes side by side at the top and bottom of a shell had no room and
were shown by ID only while the panel's sides stayed empty. The layout is now told its
panel's aspect (``LayoutOrder.aspect``) and widens (or, in a tall panel, heightens) its
shells into ellipses until the drawing is shaped like the panel; the rings are drawn as
those ellipses in the PNG and the viewer, and exported with their ``ring_stretch``.
"""

from __future__ import annotations

import math
import re

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz, IdMap
from hyperviz_core.draw import visual_order
from hyperviz_core.layouts import LayoutOrder, LayoutResult, get_layout, register_layout
from hyperviz_core.layouts.induced import MAX_STRETCH, shell_stretch
from hyperviz_core.testing import random_hypergraph


def _star(leaves: int) -> Hypergraph:
    """A hub in three facts of ``leaves // 3`` other members each: one wide outer shell."""
    hg = Hypergraph()
    hg.add_entity(Entity(name="Boston"))
    names = [f"{town} Township" for town in (
        "Quincy", "Milton", "Dedham", "Newton", "Revere", "Everett", "Chelsea", "Malden",
        "Medford", "Somerville", "Cambridge", "Watertown", "Brookline", "Needham", "Waltham",
        "Winthrop", "Lynn", "Saugus")[:leaves]]
    for name in names:
        hg.add_entity(Entity(name=name))
    step = len(names) // 3
    for i in range(3):
        members = ["boston", *(n.lower() for n in names[i * step:(i + 1) * step])]
        hg.add_hyperedge(Hyperedge(members=members, description=f"borders, part {i + 1}"))
    return hg


def _bbox_aspect(points: list[tuple[float, float]]) -> float:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (max(xs) - min(xs)) / (max(ys) - min(ys))


def _circles(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
    """``ra-cen`` as it was: told a square panel, it keeps its shells circular."""
    return get_layout("ra-cen")(hg, LayoutOrder(order.entities, order.hyperedges, 1.0))


@pytest.mark.parametrize("seed", [1, 3])
def test_a_wide_panel_names_every_node_of_its_shells(seed: int) -> None:
    register_layout("test-circles", _circles, replace=True)
    hg = random_hypergraph(20, 8, seed=seed)
    old = HyperViz().render(hg, layouts=("test-circles",)).export()
    r = HyperViz().render(hg, layouts=("ra-cen",))
    panel = r.export()["panels"][0]
    kx, ky = panel["ring_stretch"]
    assert ky == 1.0 and 1.0 < kx <= MAX_STRETCH
    assert len(old["panels"][0]["unnamed"]) == 2 and panel["unnamed"] == []
    assert r.metrics["ambiguous_labels"] == 0 and r.metrics["node_overlaps"] == 0

    def spread(export: dict) -> float:  # the drawing across the wide panel
        return _bbox_aspect([(p["x"], p["y"]) for e in export["entities"]
                             for p in e["panel_positions"]])

    assert spread(r.export()) > 1.15 * spread(old)


def test_crowded_shells_show_fewer_names_by_id_only() -> None:
    register_layout("test-circles", _circles, replace=True)
    unnamed = {"test-circles": 0, "ra-cen": 0}
    for seed in range(4):
        hg = random_hypergraph(25, 10, seed=seed)
        for layout in unnamed:
            unnamed[layout] += len(HyperViz().render(hg, layouts=(layout,)).export()[
                "panels"][0]["unnamed"])
    assert unnamed["ra-cen"] * 2 < unnamed["test-circles"]  # 11 against 34 when written


@pytest.mark.parametrize(("aspect", "wide"), [(1.6, True), (0.6, False), (1.0, None)])
def test_the_layout_takes_the_shape_it_is_told(aspect: float, wide: bool | None) -> None:
    hg = _star(12)
    order = visual_order(hg, IdMap.build(hg))
    circle = get_layout("ra-cen")(hg, LayoutOrder(order.entities, order.hyperedges, 1.0))
    res = get_layout("ra-cen")(hg, LayoutOrder(order.entities, order.hyperedges, aspect))
    kx, ky = res.ring_stretch
    before = _bbox_aspect([*circle.entities.values(), *circle.hyperedges.values()])
    after = _bbox_aspect([*res.entities.values(), *res.hyperedges.values()])
    if wide is None:  # a square panel: the circles are kept
        assert (kx, ky) == circle.ring_stretch == (1.0, 1.0)
    elif wide:
        assert ky == 1.0 and kx > 1.0 and after > before
    else:
        assert kx == 1.0 and ky > 1.0 and after < before
    assert res.rings == circle.rings  # the same shells, only stretched
    for key, (x, y) in circle.entities.items():
        assert res.entities[key] == pytest.approx((x * kx, y * ky))


def test_shell_stretch_matches_the_panel_within_its_limit() -> None:
    square = [(-1.0, -1.0), (1.0, 1.0)]
    assert shell_stretch(square, 1.3) == (1.3, 1.0)
    assert shell_stretch(square, 1 / 1.3) == (1.0, 1.3)
    assert shell_stretch(square, 10.0) == (MAX_STRETCH, 1.0)
    assert shell_stretch([(-2.0, -1.0), (2.0, 1.0)], 1.5) == (1.0, 1.333333)  # too wide
    assert shell_stretch([(-3.0, -1.0), (3.0, 1.0)], 1.5) == (1.0, MAX_STRETCH)
    for bad in ([(0.0, 0.0)], [(0.0, 0.0), (0.0, 5.0)]):  # one point, no width
        assert shell_stretch(bad, 1.5) == (1.0, 1.0)
    assert shell_stretch(square, math.nan) == shell_stretch(square, 0.0) == (1.0, 1.0)


def test_rings_are_drawn_and_exported_as_ellipses() -> None:
    r = HyperViz().render(random_hypergraph(20, 8, seed=2), layouts=("ra-cen",))
    panel = r.export()["panels"][0]
    kx, ky = panel["ring_stretch"]
    html = r.to_html()
    rings = re.findall(r'<ellipse class="hv-ring" cx="[^"]*" cy="[^"]*" rx="([^"]*)" '
                       r'ry="([^"]*)"', html)
    assert len(rings) == len(panel["rings"])
    for (rx, ry), rad in zip(rings, panel["rings"], strict=True):
        assert float(rx) == pytest.approx(rad * kx, abs=0.01)
        assert float(ry) == pytest.approx(rad * ky, abs=0.01)
    assert kx != ky  # ellipses, not circles


def test_an_export_without_a_stretch_draws_circles() -> None:
    """Exports written before rings could be ellipses have no ``ring_stretch``."""
    from hyperviz_core.viewer.svg import _Panel

    meta = {"layout": "ra-cen", "kind": "induced", "center": [100, 100], "rings": [40, 80]}
    for stretch in (None, "wide", [0, 2], [1.5, -1]):
        panel = _Panel({**meta, **({} if stretch is None else {"ring_stretch": stretch})},
                       400, 300)
        svg = "".join(panel.head(0, {}))
        assert 'rx="40" ry="40"' in svg and 'rx="80" ry="80"' in svg


@pytest.mark.parametrize("stretch", [(0.0, 1.0), (1.0, math.inf), (1.0,), "wide"])
def test_a_custom_layout_with_an_unusable_ring_stretch_is_named(stretch: object) -> None:
    def bad(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
        pos = {k: (float(i), float(i % 3)) for i, k in enumerate(order.entities)}
        return LayoutResult(kind="induced", entities=pos, rings=[1.0], center=(0.0, 0.0),
                            ring_stretch=stretch)  # type: ignore[arg-type]

    register_layout("test-bad-rings", bad, replace=True)
    with pytest.raises(ValueError, match=r"test-bad-rings.*ring stretch"):
        HyperViz().render(random_hypergraph(8, 4, seed=1), layouts="test-bad-rings")


def test_a_custom_layout_is_told_its_panels_aspect() -> None:
    seen: list[float] = []

    def spy(hg: Hypergraph, order: LayoutOrder) -> LayoutResult:
        seen.append(order.aspect)
        return get_layout("cli-exp")(hg, order)

    register_layout("test-aspect-spy", spy, replace=True)
    hg = random_hypergraph(8, 4, seed=1)
    HyperViz().render(hg, layouts="test-aspect-spy")
    HyperViz().render_collage(hg, ["test-aspect-spy", "cli-exp", "bi-inc"], cols=1)
    one, cell = seen
    assert one > 1.1  # one layout: a dual-view panel, wider than high
    assert 0.9 < cell < one  # a collage cell: 0.85 times as high as wide, less the header
