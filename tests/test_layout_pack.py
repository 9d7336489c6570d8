"""Disconnected hypergraphs in ``cli-exp`` and ``ra-cen``: each component is laid out on its
own and packed beside the others (:mod:`hyperviz_core.layouts.pack`).

A reviewer found that ``cli-exp``'s one spring layout of the whole graph put an isolated
entity on another component's edge (it read as a member), and that ``ra-cen`` put every
other component on its outer ring, their incidence lines crossing the hub's component.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.layouts import get_layout
from hyperviz_core.layouts.base import LayoutOrder, LayoutResult

Box = tuple[float, float, float, float]


def split_graph() -> Hypergraph:
    hg = Hypergraph()
    for c in range(4):
        names = [f"c{c}n{i}" for i in range(3)]
        for name in names:
            hg.add_entity(Entity(name=name))
        hg.add_hyperedge(Hyperedge(id=f"h{c}", members=names))
    for i in range(3):
        hg.add_entity(Entity(name=f"isolated{i}"))
    return hg


def _order(hg: Hypergraph) -> LayoutOrder:
    return LayoutOrder(entities=sorted(hg.entities), hyperedges=sorted(hg.hyperedges))


def _boxes(res: LayoutResult, hg: Hypergraph) -> list[Box]:
    """The bounding box of each component (a hyperedge and its members; an isolated
    entity)."""
    parts = [[res.hyperedges[h], *(res.entities[m] for m in hg.members(h))]
             for h in sorted(hg.hyperedges)]
    parts += [[res.entities[k]] for k in sorted(hg.entities) if not hg.degree(k)]
    return [(min(p[0] for p in part), min(p[1] for p in part),
             max(p[0] for p in part), max(p[1] for p in part)) for part in parts]


def _apart(a: Box, b: Box, gap: float) -> bool:
    return a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1]


def test_cli_exp_packs_the_components_apart() -> None:
    hg = split_graph()
    res = get_layout("cli-exp")(hg, _order(hg))
    boxes = _boxes(res, hg)
    side = max(max(b[2] - b[0], b[3] - b[1]) for b in boxes)
    assert all(_apart(a, b, side / 4) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.mark.parametrize("name", ["set-force", "set-radial"])
def test_graphviz_set_layouts_pack_the_components_apart(name: str) -> None:
    """A review: ``fdp`` and ``twopi`` drew isolated entities inside another component's
    loop (read as its members); Graphviz ``pack`` with ``packmode=graph`` boxes them."""
    hg = split_graph()
    res = get_layout(name)(hg, _order(hg))
    boxes = _boxes(res, hg)
    assert all(_apart(a, b, 0.0) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_ra_cen_puts_other_components_outside_its_shells() -> None:
    hg = split_graph()
    res = get_layout("ra-cen")(hg, _order(hg))
    hub = next(h for h in hg.hyperedges if res.hyperedges[h] == min(
        res.hyperedges.values(), key=lambda p: abs(p[0]) + abs(p[1])))
    outer = res.rings[-1]
    ring_box = (-outer, -outer, outer, outer)
    shell_nodes = {*hg.members(hub)}
    others = [res.entities[k] for k in hg.entities if k not in shell_nodes]
    others += [res.hyperedges[h] for h in hg.hyperedges if h != hub]
    assert all(_apart(ring_box, (x, y, x, y), 1.0) for x, y in others)
    assert res.ring_names == [f"d={i}" for i in range(1, len(res.rings) + 1)]


def test_a_connected_graph_is_laid_out_as_before() -> None:
    """A guard: one component keeps the one spring layout of the whole graph."""
    import networkx as nx

    hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
                    hyperedges=[Hyperedge(id="x", members=["a", "b", "c"]),
                                Hyperedge(id="y", members=["c", "d"])])
    res = get_layout("cli-exp")(hg, _order(hg))
    g = nx.Graph()
    g.add_nodes_from(("E", k) for k in "abcd")
    g.add_nodes_from([("H", "x"), ("H", "y")])
    g.add_edges_from([(("E", m), ("H", h)) for h, ms in (("x", "abc"), ("y", "cd")) for m in ms])
    g.add_edges_from([(("E", "a"), ("E", "b")), (("E", "a"), ("E", "c")),
                      (("E", "b"), ("E", "c")), (("E", "c"), ("E", "d"))])
    want = nx.spring_layout(g, seed=42, k=0.95)
    assert res.entities["a"] == pytest.approx(tuple(want[("E", "a")]))


_POSITIONS = """
import json, sys
sys.path.insert(0, "tests")
from test_layout_pack import _order, split_graph
from hyperviz_core.layouts import get_layout
hg = split_graph()
print(json.dumps({lay: sorted(get_layout(lay)(hg, _order(hg)).entities.items())
                  for lay in ("cli-exp", "ra-cen")}))
"""


def test_packed_layouts_do_not_depend_on_the_hash_seed() -> None:
    """A guard: components are laid out in node order, never a set's."""
    runs = [subprocess.run([sys.executable, "-c", _POSITIONS], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": seed, "PATH": ""},
                           cwd=Path(__file__).resolve().parents[1]).stdout
            for seed in ("1", "2", "3")]
    assert runs[0] == runs[1] == runs[2] and json.loads(runs[0])["cli-exp"]
