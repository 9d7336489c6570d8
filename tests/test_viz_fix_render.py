"""Visualisation review fixes: readable ID text (dark node fill, palette colours), singular
counts, the viewer's leader lines and label boxes, the viewer's title, and legend entries of
undescribed hyperedges."""

from __future__ import annotations

import io
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hyperviz_core import Budget, Entity, Hyperedge, Hypergraph, HyperViz, Style
from hyperviz_core.contrast import contrast, readable, region_label_color
from hyperviz_core.draw import raster
from hyperviz_core.render import footer_text
from hyperviz_core.viewer import render_html, write_views

DATA = Path(__file__).parent / "data"


def _triangle(n_edges: int = 1) -> Hypergraph:
    hg = Hypergraph()
    for name in ("Alpha", "Beta", "Gamma"):
        hg.add_entity(Entity(name=name))
    for i in range(n_edges):
        hg.add_hyperedge(Hyperedge(members=["Alpha", "Beta", "Gamma"][: 3 - i % 2],
                                   description=f"fact {i}"))
    return hg


def _ring(n: int) -> Hypergraph:
    """``n`` entities and ``n`` hyperedges, each joining two neighbours."""
    hg = Hypergraph()
    names = [f"N{i}" for i in range(n)]
    for name in names:
        hg.add_entity(Entity(name=name))
    for i in range(n):
        hg.add_hyperedge(Hyperedge(members=[names[i], names[(i + 1) % n]],
                                   description=f"fact {i}"))
    return hg


def _text_colours(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(text, colour) of every text the rasteriser draws from now on."""
    seen: list[tuple[str, str]] = []
    original = raster._Layer.add_text

    def spy(self: Any, s: str, x: float, y: float, size: float, color: str = "#000000",
            bold: bool = False, ha: str = "center") -> None:
        seen.append((s, color))
        original(self, s, x, y, size, color, bold, ha)

    monkeypatch.setattr(raster._Layer, "add_text", spy)
    return seen


# --- A: entity IDs on a dark node fill -------------------------------------------------

def test_entity_ids_are_light_on_a_dark_node_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _text_colours(monkeypatch)
    style = Style(node_fill="#000000", background="#000000", palette="pastel")
    r = HyperViz(style=style).render(_triangle(), layouts=("set-radial",))
    assert {c for t, c in seen if re.fullmatch(r"E\d", t)} == {"#ffffff"}
    # and in the pixels: light ID strokes inside the black disk of E1
    pos = r.export()["entities"][0]["panel_positions"][0]
    img = np.asarray(Image.open(io.BytesIO(r.png)).convert("L"), dtype=int)
    k = pos["r"] * 0.6
    inner = img[int(pos["y"] - k):int(pos["y"] + k), int(pos["x"] - k):int(pos["x"] + k)]
    assert inner.max() > 200
    page = r.to_html()
    fills = re.findall(r'<text class="hv-label hv-label-entity"[^>]*fill="([^"]+)"', page)
    assert fills and set(fills) == {"#ffffff"}


def test_entity_ids_stay_black_on_the_default_white_fill(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _text_colours(monkeypatch)
    HyperViz().render(_triangle(), layouts=("set-radial",))
    assert {c for t, c in seen if re.fullmatch(r"E\d", t)} == {"#000000"}


# --- D: H# label and legend text reach 4.5:1 ----------------------------------------------

@pytest.mark.parametrize(("palette", "background"), [
    ("vivid", "white"), ("pastel", "white"), ("vivid", "#1e1e1e"), ("pastel", "#1e1e1e")])
def test_hyperedge_id_and_legend_text_reach_wcag_aa(
        monkeypatch: pytest.MonkeyPatch, palette: str, background: str) -> None:
    seen = _text_colours(monkeypatch)
    style = Style(palette=palette, background=background)
    r = HyperViz(style=style).render(_ring(12), layouts=("set-force",))
    ex = r.export()
    bg = style.background_hex
    colors = {h["id"]: h["color"] for h in ex["hyperedges"]}
    legend = [(t[:-1], c) for t, c in seen if re.fullmatch(r"H\d+:", t)]
    assert [hid for hid, _ in legend] == [e["id"] for e in ex["legend"]] and len(legend) >= 8
    for hid, c in legend:
        assert contrast(c, bg) >= 4.5, (hid, c)
    box = region_label_color  # the label sits on a white 85 % box over the canvas
    labels = [(t, c) for t, c in seen if re.fullmatch(r"H\d+", t)]
    assert labels
    for hid, c in labels:
        assert c == box(colors[hid], bg, style.region_alpha)
        assert contrast(c, "#ffffff") >= 4.5 or bg != "#ffffff"
    # the outline and swatch keep the palette colour
    assert [h["color"] for h in ex["hyperedges"]] == style.colors()[:len(ex["hyperedges"])]
    page = r.to_html()
    for hid, c in labels:
        assert re.search(rf'data-id="{hid}"[^>]*fill="{c}"', page), hid


def test_readable_keeps_the_hue() -> None:
    import colorsys

    for c in ("#e69f00", "#ffd966", "#56b4e9"):
        out = readable(c, "#ffffff")
        h0 = colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0]
        h1 = colorsys.rgb_to_hls(*(int(out[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0]
        assert contrast(out, "#ffffff") >= 4.5 and abs(h0 - h1) < 0.02
    assert contrast(readable("#4d4d4d", "#1e1e1e"), "#1e1e1e") >= 4.5


# --- B: singular counts -------------------------------------------------------------------

def test_counts_are_singular_for_one() -> None:
    hg = Hypergraph()
    hg.add_entity(Entity(name="Solo"))
    r = HyperViz().render(hg, layouts=("set-force",))
    assert r.title.endswith("· 1 entity, 0 hyperedges")
    assert r.caption.splitlines()[0].endswith(": 1 entity (E#), 0 hyperedges (H#).")
    r3 = HyperViz().render(_triangle(), layouts=("set-force",))
    assert r3.title.endswith("· 3 entities, 1 hyperedge")
    assert "3 entities (E#), 1 hyperedge (H#)." in r3.caption
    page = r3.to_html()
    assert "\u00b7 3 members" in page
    hg2 = Hypergraph()
    for n in ("A", "B"):
        hg2.add_entity(Entity(name=n))
    hg2.add_hyperedge(Hyperedge(members=["A"], description="alone"))
    assert "\u00b7 1 member<" in HyperViz().render(hg2, layouts=("set-force",)).to_html()
    assert footer_text(1, 1, False).endswith("omitted 1 entity and 1 hyperedge (see caption)")
    assert "omitted 2 entities and 0 hyperedges" in footer_text(2, 0, False)


# --- C: leader lines and label boxes in the export and the viewer -----------------------

@pytest.fixture(scope="module")
def crowded() -> Any:
    """Two characters inside 40 scenes, drawn whole: their labels do not fit inside (what
    congestion control drew of Les Misérables until it dropped repeated hyperedges)."""
    hg = Hypergraph(entities=[Entity(name="Valjean"), Entity(name="Javert")],
                    hyperedges=[Hyperedge(id=f"s{i}", members=["Valjean", "Javert"])
                                for i in range(40)])
    return HyperViz(budget=Budget(enabled=False)).render(hg)


def test_export_and_viewer_carry_leaders_and_boxes(crowded: Any) -> None:
    ex = crowded.export()
    leaders = [lab for lab in ex["labels"] if "leader" in lab]
    boxed = [lab for lab in ex["labels"] if lab["boxed"]]
    assert leaders and crowded.metrics["edge_labels_outside"] > 0
    assert all(lab["kind"] == "hyperedge" and lab["boxed"] for lab in leaders)
    assert {lab["kind"] for lab in boxed} >= {"hyperedge"}
    page = crowded.to_html()
    assert page.count('class="hv-leader"') == len(leaders)
    assert page.count('class="hv-label-box"') == len(boxed)
    first = leaders[0]
    (x0, y0), (x1, y1) = first["leader"]
    assert f'x1="{x0:g}" y1="{y0:g}" x2="{x1:g}" y2="{y1:g}"'.replace(".0\"", "\"") in page


def test_older_exports_without_boxed_box_only_names() -> None:
    ex = HyperViz().render(_ring(4), layouts=("set-force",)).export()
    for lab in ex["labels"]:
        lab.pop("boxed")
    names = sum(lab["kind"] == "name" for lab in ex["labels"])
    assert render_html(ex).count('class="hv-label-box"') == names


# --- G: the retrieval view's page title says what the PNG says -----------------------------

def test_view_page_shows_the_png_title(tmp_path: Path) -> None:
    r = HyperViz().render(_triangle(), query="who is Alpha?")
    view = SimpleNamespace(export=r.export(), png=r.png)
    write_views(SimpleNamespace(query="who is Alpha?", top_view=None, bottom_view=view),
                tmp_path)
    page = (tmp_path / "bottom.html").read_text(encoding="utf-8")
    title = re.search(r"<title>(.*?)</title>", page)
    assert title and "VizRAG I_bot" in title.group(1)
    assert r.title.replace("<", "&lt;") in title.group(1)
    other = render_html(r.export(), title="My page")
    assert 'id="hv-png-title"' in other and r.title in other
    assert 'id="hv-png-title"' not in r.to_html()


# --- H: undescribed hyperedges stay apart in the legend and caption -------------------------

def test_undescribed_hyperedges_are_named_by_key() -> None:
    r = HyperViz().render(Hypergraph.from_hif(str(DATA / "lesmis.hif.json")))
    ex = r.export()
    texts = [e["text"] for e in ex["legend"]]
    assert len(set(texts)) == len(texts)
    key = {h["id"]: h["key"] for h in ex["hyperedges"]}
    assert all(key[e["id"]] in e["text"] for e in ex["legend"] if not e["text"].startswith("+"))
    lines = [ln for ln in r.caption.splitlines() if re.match(r"H\d+ \{", ln)]
    assert lines and len(set(lines)) == len(lines)
    assert re.search(rf"^H1 \{{E\d+(, E\d+)+\}}: id {re.escape(key['H1'])}$", r.caption,
                     re.MULTILINE), r.caption
    page = r.to_html()
    assert f'<span class="hv-ldesc"><bdi>id {key["H1"]}</bdi>' in page
