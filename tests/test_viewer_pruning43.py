"""The viewer's pruning report ends with the scalar fields, not a raw JSON dump of the
names, removals and steps it already lists (Les Misérables: a 12,130-pixel table, one cell
of 21,561 characters); omitted hyperedges without a description are named by their id too,
so two of one member set stay apart (Les Misérables listed `{JV}` 22 times)."""

from __future__ import annotations

from hyperviz_core import Budget, Entity, Hyperedge, Hypergraph, HyperViz
from hyperviz_core.viewer.html import _pruning_html


def test_the_report_table_holds_scalars_only() -> None:
    pruned = {"entities": ["x"], "hyperedges": [], "reasons": {"x": "budget"},
              "names": {"x": "Xavier"}, "removals": [{"key": "x", "kind": "entity",
                                                      "reason": "budget"}] * 50,
              "steps": [{"step": 1, "drawn": 3}], "cost": 12.5, "c_max": 10.0,
              "layouts_run": 2, "cost_before_bound": False}
    page = _pruning_html(pruned)
    assert "Xavier" in page and "layouts_run" in page and "12.5" in page
    assert "removals" not in page and "steps" not in page and '"kind"' not in page


def test_omitted_undescribed_hyperedges_are_named_by_id() -> None:
    hg = Hypergraph(entities=[Entity(name=n) for n in ("Valjean", "Javert", "Cosette")],
                    hyperedges=[Hyperedge(id="s1", members=["valjean", "javert"]),
                                Hyperedge(id="s2", members=["valjean", "javert"]),
                                Hyperedge(id="s3", members=["valjean", "cosette"])])
    r = HyperViz(budget=Budget(enabled=False, max_hyperedges=1)).render(hg)
    gone = r.export()["pruned"]["descriptions"]
    assert len(gone) == 2 and len(set(gone.values())) == 2
    assert all(text.startswith(f"id {hid} {{") for hid, text in gone.items())
    assert f"“{gone[sorted(gone)[0]]}”" in r.caption
