"""A name with no owned spot at its full cut is tried cut shorter (stop 46 follow-up).

A name label is placed only where its box and its centre are nearer its own node than any
other; a long name beside a close neighbour finds no such spot. Before it is shown by ID
only, it is tried at shorter cuts (``cut_lengths``: 12, 10, 8, 7 characters for the default
16), each told apart from the other names as ``display_names`` does; the longest cut with an
owned spot is drawn, and the export carries the text drawn.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from test_label_owner46 import _centre_distances, _star

from hyperviz_core import Entity, Hypergraph, HyperViz
from hyperviz_core.draw import raster
from hyperviz_core.draw.scene import PanelScene, display_names, place_labels
from hyperviz_core.idmap import IdMap
from hyperviz_core.layouts import LayoutOrder
from hyperviz_core.style import Style
from hyperviz_core.unitext import search_fold

LONG = "Bahnhof Zürich Stadelhofen"
SHORTER = (12, 10, 8, 7)


def _row(names: list[str], xs: list[float]) -> tuple[PanelScene, list[str]]:
    """A 40 px high panel with one node per name on a row (no room above or below)."""
    hg = Hypergraph()
    for n in names:
        hg.add_entity(Entity(name=n))
    keys = list(hg.entities)
    scene = PanelScene(index=0, layout="row", bbox=(0.0, 0.0, 400.0, 40.0),
                       nodes={k: (x, 20.0) for k, x in zip(keys, xs, strict=True)})
    place_labels(scene, hg, IdMap.build(hg), LayoutOrder(entities=keys, hyperedges=[]),
                 Style())
    return scene, keys


def _owned(scene: PanelScene, key: str, box: tuple[float, float, float, float]) -> bool:
    """Whether ``box``'s nearest point and centre are 2 px nearer ``key``'s disk than any
    other node's."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2

    def near(x: float, y: float) -> float:
        dx = max(x0 - x, x - x1, 0.0)
        dy = max(y0 - y, y - y1, 0.0)
        return max(math.hypot(dx, dy) - scene.radius, 0.0)

    def centre(x: float, y: float) -> float:
        return max(math.hypot(cx - x, cy - y) - scene.radius, 0.0)

    own, others = scene.nodes[key], [p for k, p in scene.nodes.items() if k != key]
    return all(f(*own) + 2.0 <= min(f(*p) for p in others) for f in (near, centre))


def test_a_long_name_without_an_owned_spot_gets_a_shorter_owned_cut() -> None:
    # the long name fits only right of its node, where its 16-character cut reaches past
    # the middle towards the neighbour 100 px away: a shorter cut is its own
    scene, keys = _row([LONG, "Bern"], [30.0, 130.0])
    names = {lab.id: lab for lab in scene.labels if lab.kind == "name"}
    assert scene.unnamed == []
    label = names["E1"]
    full = display_names([LONG, "Bern"], 16)[0]
    assert label.text != full and len(label.text) < len(full)
    assert label.text in [display_names([LONG, "Bern"], m)[0] for m in SHORTER]
    assert label.text == display_names([LONG, "Bern"], 10)[0]  # the longest that is owned
    assert _owned(scene, keys[0], label.bbox)
    assert names["E2"].text == "Bern"


def test_a_shorter_cut_never_reads_like_a_name_shown() -> None:
    # B's 16-character cut reads "bahnhof zur…" once its combining marks are folded away,
    # as the 12-character cut of A does (B's own 12-character cut does not, so cutting
    # both at 12 does not tell them apart): A takes its next cut, "Bahnhof Z…"
    other = "Ba\u0333hn\u0333hof\u0333 Zu\u0333r Bern Wankdorf"
    scene, _ = _row([LONG, other], [30.0, 140.0])
    texts = {lab.id: lab.text for lab in scene.labels if lab.kind == "name"}
    assert search_fold(display_names([LONG, other], 12)[0]) == search_fold(texts["E2"])
    assert texts["E1"] == display_names([LONG, other], 10)[0] == "Bahnhof Z…"
    assert search_fold(texts["E1"]) != search_fold(texts["E2"])


def test_a_name_nothing_makes_owned_is_still_shown_by_id_only() -> None:
    # 60 px apart: not even 6 characters and the ellipsis fit between the two nodes
    scene, keys = _row([LONG, "Bern"], [30.0, 90.0])
    assert scene.unnamed == [keys[0]]
    assert [lab.id for lab in scene.labels if lab.kind == "name"] == ["E2"]


def test_names_that_fit_keep_their_full_cuts() -> None:
    scene, _ = _row([LONG, "Bern"], [30.0, 250.0])
    texts = [lab.text for lab in scene.labels if lab.kind == "name"]
    assert texts == display_names([LONG, "Bern"], 16) and scene.unnamed == []


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, float, float]]:
    """Every text the rasteriser draws, with its anchor."""
    seen: list[tuple[str, float, float]] = []
    add_text = raster._Layer.add_text

    def spy(self: Any, s: str, x: float, y: float, *args: Any, **kw: Any) -> None:
        seen.append((s, x, y))
        add_text(self, s, x, y, *args, **kw)

    monkeypatch.setattr(raster._Layer, "add_text", spy)
    return seen


def test_star_shows_shorter_cuts_that_are_owned_and_exported_as_drawn(
    drawn: list[tuple[str, float, float]],
) -> None:
    r = HyperViz().render(_star(40), layouts=("ra-cen",))
    ex = r.export()
    assert r.metrics["ambiguous_labels"] == 0 and r.metrics["duplicate_labels"] == 0
    assert r.metrics["label_label_collisions"] == 0
    names = {e["id"]: e["name"] for e in ex["entities"]}
    labels = [lab for lab in ex["labels"] if lab["kind"] == "name"]
    order = sorted(names, key=lambda v: int(v[1:]))
    full = dict(zip(order, display_names([names[v] for v in order], 16), strict=True))
    shorter = [lab for lab in labels if lab["text"] != full[lab["id"]]]
    assert shorter  # some names are shown cut shorter rather than by ID only
    for lab in shorter:
        assert len(lab["text"]) < len(full[lab["id"]]) and "…" in lab["text"]
        assert f"{lab['id']} {names[lab['id']]}" in r.caption  # the full name stays there
    assert all(own + 1.9 <= other for _, own, other in _centre_distances(ex, 0))
    folded = [search_fold(lab["text"]) for lab in labels]
    assert len(set(folded)) == len(folded)  # no two names read alike
    unnamed = set(ex["panels"][0]["unnamed"])
    assert len(labels) + len(unnamed) == len(names) and not unnamed & {
        lab["id"] for lab in labels}
    # the export's name texts are the ones drawn, where they are drawn (box centres)
    for lab in labels:
        x0, y0, x1, y1 = lab["bbox"]
        assert any(s == lab["text"] and abs(x - (x0 + x1) / 2) < 0.02
                   and abs(y - (y0 + y1) / 2) < 0.02 for s, x, y in drawn), lab
