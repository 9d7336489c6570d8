"""Rendering audit fixes: shrunk and dropped hyperedges named, footer and title fitted to the
canvas, caps without congestion control, legend cut by measured width, distinct colour+dash
pairs, ellipse nodes and node outlines in the viewer, names that read like visual IDs."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from hyperviz_core import Budget, Entity, Hyperedge, Hypergraph, HyperViz, Style
from hyperviz_core.cli import main
from hyperviz_core.draw.legend import (
    LEGEND_GAP,
    CanvasPlan,
    distinct_looks,
    edge_colors,
    edge_dash,
    fit_title,
    fit_width,
    footer_lines,
    legend_text_x,
    plan_canvas,
    wrap_width,
)
from hyperviz_core.draw.scene import display_name, looks_like_id, visual_order
from hyperviz_core.draw.text import measure
from hyperviz_core.idmap import IdMap
from hyperviz_core.prune import prune
from hyperviz_core.render import footer_text
from hyperviz_core.testing import random_hypergraph
from hyperviz_core.viewer import render_html
from hyperviz_core.viewer.svg import build_svg


def _founders() -> Hypergraph:
    hg = Hypergraph()
    for n in ["Alice", "Bob", "Carol", "Acme", "Paris"]:
        hg.add_entity(Entity(name=n))
    hg.add_hyperedge(Hyperedge(id="r-ddfe02b44704", members=["alice", "bob", "carol", "acme"],
                               description="Alice, Bob and Carol founded Acme"))
    hg.add_hyperedge(Hyperedge(id="r-0a1b2c3d4e5f", members=["carol", "paris"],
                               description="Carol lives in Paris"))
    hg.add_hyperedge(Hyperedge(id="r-99aa88bb77cc", members=["alice", "bob"],
                               description="Alice married Bob"))
    return hg


# ---------------------------------------------------------------- 1: shrunk / dropped edges
def test_shrunk_hyperedges_are_marked_and_dropped_ones_named() -> None:
    r = HyperViz(budget=Budget(max_entities=3)).render(_founders())
    lines = r.caption.splitlines()
    assert "H1 {E1, E2, E3} (+1 omitted: Acme): Alice, Bob and Carol founded Acme" in lines
    assert "H2 {E1, E2}: Alice married Bob" in lines  # whole: no marker
    assert "Hyperedges not drawn: “Carol lives in Paris”." in lines
    exp = r.export()
    assert [e["text"] for e in exp["legend"]] == [
        "Alice, Bob and Carol founded Acme (+1 omitted)", "Alice married Bob"]
    h1, h2 = exp["hyperedges"]
    assert h1["omitted_members"] == ["acme"] and "omitted_members" not in h2
    assert exp["pruned"]["descriptions"] == {"r-0a1b2c3d4e5f": "Carol lives in Paris"}
    page = r.to_html()
    report = re.search(r'<ul class="hv-pruned-hyperedges">(.*?)</ul>', page)
    assert report is not None
    assert ('<li title="r-0a1b2c3d4e5f"><bdi>Carol lives in Paris</bdi> \u2014 cap</li>'
            in report.group(1))
    assert "3 members (+1 omitted)" in page  # the viewer legend


def test_omitted_lists_are_capped() -> None:
    xs = [f"x{i}" for i in range(7)]
    hg = Hypergraph(entities=[Entity(name="a", description="alpha"),
                              Entity(name="b", description="alpha"),
                              *(Entity(name=x) for x in xs)])
    hg.add_hyperedge(Hyperedge(id="big", members=["a", "b", *xs], description="everyone"))
    hg.add_hyperedge(Hyperedge(id="ab", members=["a", "b"], description="a and b"))
    for i in range(12):  # twelve hyperedges that the cap on entities drops whole
        hg.add_hyperedge(Hyperedge(id=f"d{i:02d}", members=[xs[i % 7], xs[(i + 1) % 7]],
                                   description=f"pair {i:02d}"))
    r = HyperViz(budget=Budget(max_entities=2)).render(hg, layouts="set-force", query="alpha")
    assert sorted(r.id_map.entities) == ["a", "b"]
    line = next(x for x in r.caption.splitlines() if "everyone" in x)
    assert line.endswith("(+7 omitted: x0, x1, x2, x3, x4 and 2 more): everyone"), line
    dropped = next(x for x in r.caption.splitlines() if x.startswith("Hyperedges not drawn"))
    assert dropped.count("“") == 10 and dropped.endswith("” and 2 more."), dropped


def test_caption_and_png_do_not_depend_on_the_hash_seed() -> None:
    code = (
        "import hashlib\n"
        "from hyperviz_core import HyperViz\n"
        "from hyperviz_core.testing import random_hypergraph\n"
        "r = HyperViz().render(random_hypergraph(40, 20, seed=3), layouts='set-force',"
        " query='river')\n"
        "print(hashlib.sha256(r.png + r.caption.encode()).hexdigest())\n"
    )
    digests = set()
    for seed in ("1", "777"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, timeout=300)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


# ---------------------------------------------------------------- 2: footer and title
def test_single_panel_footer_wraps_inside_the_canvas() -> None:
    st = Style()
    r = HyperViz().render(random_hypergraph(50, 25, seed=1), layouts="set-force")
    assert r.pruning.pruned and (r.width, r.height) == (768, 768)  # the canvas keeps its size
    unnamed = any(p["unnamed"] for p in r.export()["panels"])
    text = footer_text(len(r.pruning.entities), len(r.pruning.hyperedges), unnamed)
    lines = footer_lines(text, r.width, st)
    assert len(lines) == 2
    assert " ".join(lines).split() == text.split()  # nothing lost
    assert all(measure(x, st.font_size, False, st.dpi)[0] <= r.width - 2 * st.margin
               for x in lines)
    img = Image.open(io.BytesIO(r.png)).convert("L")
    right = img.crop((r.width - 8, r.height - 40, r.width, r.height))  # margin stays blank
    assert min(right.tobytes()) > 200
    bottom = img.crop((0, r.height - 16, r.width, r.height - 2))  # the second line has ink
    assert min(bottom.tobytes()) < 160


def test_dual_view_footer_is_unchanged_and_one_line() -> None:
    st = Style()
    text = footer_text(123, 456, True)
    assert footer_lines(text, 1536, st) == [text]


def test_footer_lines_cut_only_past_the_lines_held() -> None:
    st = Style()
    text = footer_text(0, 0, True)
    assert len(footer_lines(text, 768, st)) == 2
    cut = footer_lines(text, 768, st, max_lines=1)
    assert len(cut) == 1 and cut[0].endswith("…")
    assert measure(cut[0], st.font_size, False, st.dpi)[0] <= 768 - 2 * st.margin


def test_long_title_is_fitted_to_the_width() -> None:
    st = Style()
    r = HyperViz().render(random_hypergraph(8, 4, seed=1), layouts="bi-inc", title="W" * 150)
    text, size = fit_title(r.title, r.width, st)
    assert size == st.font_size and text.endswith("…")
    assert measure(text, size, True, st.dpi)[0] <= r.width - 2 * st.margin
    band = Image.open(io.BytesIO(r.png)).convert("L").crop((0, 0, 8, 24))
    assert min(band.tobytes()) > 200  # no ink in the left margin of the title strip
    short, sized = fit_title("HyperViz: bi-inc · 8 entities", 768, st)
    assert (short, sized) == ("HyperViz: bi-inc · 8 entities", st.label_font_size + 2)
    mid = "M" * 60  # too wide at 10 pt, fits smaller
    text, size = fit_title(mid, 768, st)
    assert text == mid and st.font_size <= size < st.label_font_size + 2
    assert measure(text, size, True, st.dpi)[0] <= 768 - 2 * st.margin


def test_wrap_and_fit_width() -> None:
    assert wrap_width("a · b", 1000.0, 8.0) == ["a · b"]
    long_word = "x" * 80
    lines = wrap_width(f"short {long_word} end", 100.0, 8.0)
    assert "".join(lines).replace(" ", "") == f"short{long_word}end"
    assert all(measure(x, 8.0)[0] <= 100.0 for x in lines)
    assert fit_width("fits", 100.0, 8.0) == "fits"
    cut = fit_width("東京都は日本の首都であり政治経済文化の中心地", 60.0, 8.0)
    assert cut.endswith("…") and measure(cut, 8.0)[0] <= 60.0
    assert fit_width("anything", 1.0, 8.0) == ""


# ---------------------------------------------------------------- 3: caps without the budget
def test_caps_apply_with_congestion_control_off() -> None:
    hg = random_hypergraph(20, 10, seed=1)
    r = HyperViz(budget=Budget(enabled=False, max_entities=5)).render(hg)
    assert len(r.id_map.entities) == 5
    assert set(r.pruning.reasons.values()) == {"cap"}
    assert "Omitted by the entity/hyperedge caps (not drawn)" in r.caption
    r = HyperViz(budget=Budget(enabled=False, max_hyperedges=2)).render(hg)
    assert len(r.id_map.hyperedges) == 2
    r = HyperViz(budget=Budget(enabled=False)).render(hg)
    assert len(r.id_map.entities) == 20 and not r.pruning.pruned
    small, report = prune(hg, Budget(enabled=False, max_entities=4))
    assert len(small.entities) == 4 and report.steps[-1].reason == "cap"
    assert len(hg.entities) == 20  # the input is not modified


def test_cli_no_prune_with_caps(tmp_path: Path) -> None:
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps(random_hypergraph(200, 40, seed=2).to_hif()))
    out = tmp_path / "v.png"
    # above the --no-prune limit, but the cap bounds what is drawn: no --force needed
    assert main(["render", str(hif), "--no-prune", "--max-entities", "5", "--layout",
                 "set-force", "--out", str(out)]) == 0
    exp = json.loads(out.with_suffix(".json").read_text())
    assert len(exp["entities"]) == 5
    assert {r["reason"] for r in exp["pruned"]["removals"]} == {"cap"}
    assert exp["pruned"]["cost_before_bound"] is True  # the whole input was never drawn
    assert main(["render", str(hif), "--no-prune", "--out", str(out)]) == 2


def test_cli_no_prune_refusal_names_the_caps_that_would_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """80 entities in 402 facts: refused for the facts, but the advice was --max-entities,
    which did not help."""
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps(random_hypergraph(80, 402, seed=2).to_hif()))
    out = tmp_path / "v.png"
    assert main(["render", str(hif), "--no-prune", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "at most 150 entities and 300 hyperedges" in err
    assert "cap with --max-hyperedges 300," in err and "--max-entities" not in err


# ---------------------------------------------------------------- 4: legend by measured width
def _plan(hg: Hypergraph, style: Style, width: int = 1536) -> CanvasPlan:
    ids = IdMap.build(hg)
    return plan_canvas(hg, ids, visual_order(hg, ids), style, 2, 2, width, 768)


def test_cjk_legend_entries_stay_in_their_column() -> None:
    desc = ("東京都は日本の首都であり、政治経済文化の中心地として世界的に重要な役割を果たしている"
            "大都市です。人口は約千四百万人")
    names = [f"都市{i}" for i in range(8)]
    hg = Hypergraph(entities=[Entity(name=n) for n in names])
    for i in range(8):
        hg.add_hyperedge(Hyperedge(id=f"h{i}", members=[names[i], names[(i + 1) % 8]],
                                   description=desc))
    st = Style()
    plan = _plan(hg, st)
    xs = sorted({e.x for e in plan.legend if e.vid})
    assert len(xs) == 3
    pitch = xs[1] - xs[0]
    for e in plan.legend:
        x0 = e.x if e.vid else e.x - legend_text_x(st)  # a second line starts under the text
        end = x0 + legend_text_x(st) + measure(e.text, st.label_font_size, False, st.dpi)[0]
        assert end <= x0 + pitch - LEGEND_GAP + 1e-6
    assert [bool(e.vid) for e in plan.legend] == [True, False] * 8  # two lines each
    firsts, seconds = plan.legend[::2], plan.legend[1::2]
    assert all(a.text + b.text == desc for a, b in zip(firsts, seconds, strict=True))  # whole


def test_latin_legend_entries_that_fit_are_unchanged() -> None:
    desc = "Marie Curie and Pierre Curie shared the 1903 Nobel Prize in Physics"  # > 60 chars
    hg = Hypergraph(entities=[Entity(name=n) for n in ("marie", "pierre")],
                    hyperedges=[Hyperedge(id="h", members=["marie", "pierre"], description=desc)])
    plan = _plan(hg, Style())
    assert [e.text for e in plan.legend] == [desc]  # one line of its column: whole


# ---------------------------------------------------------------- 5: colour + dash pairs
@pytest.mark.parametrize("outline", ["solid", "dashed", "dotted"])
def test_colour_and_dash_pairs_are_distinct(outline: str) -> None:
    st = Style(outline_style=outline)
    ids = IdMap.build(random_hypergraph(60, 60, seed=1))
    colors = edge_colors(ids, st)
    looks = distinct_looks(st)
    assert looks == 48
    by_vid = {v: (colors[h], edge_dash(v, st)) for h, v in ids.hyperedges.items()}
    first = [by_vid[f"H{i}"] for i in range(1, looks + 1)]
    assert len(set(first)) == looks
    assert edge_dash("H1", st) == outline


def test_default_dashes_are_as_before() -> None:
    st = Style()
    assert [edge_dash(f"H{1 + 12 * c}", st) for c in range(5)] == [
        "solid", "dashed", "dotted", "dashdot", "solid"]


def test_repeated_looks_are_noted_in_the_caption() -> None:
    st = Style(palette=["#ff0000", "#00ff00", "#ff0000"])  # a repeated colour counts once
    assert distinct_looks(st) == 8
    hg = random_hypergraph(12, 10, seed=2)
    r = HyperViz(style=st, budget=Budget(enabled=False)).render(hg, layouts="bi-inc")
    pairs = [(h["color"], h["dash"]) for h in r.export()["hyperedges"]]
    assert len(set(pairs[:8])) == 8
    assert "Note: 10 hyperedges but 8 distinct colour and outline pairs" in r.caption
    few = HyperViz().render(random_hypergraph(12, 6, seed=1))
    assert "distinct colour" not in few.caption


# ---------------------------------------------------------------- 6, 7: viewer shapes, outline
def test_viewer_draws_ellipses_like_the_png() -> None:
    r = HyperViz(style=Style(node_shape="ellipse")).render(random_hypergraph(12, 6, seed=1),
                                                            layouts="set-force")
    page = r.to_html()
    found = re.findall(r'<ellipse class="hv-ent"[^>]* rx="([\d.]+)" ry="([\d.]+)"', page)
    assert len(found) == 12 and "<circle class=\"hv-ent\"" not in page
    rx, ry = (float(v) for v in found[0])
    assert ry == pytest.approx(rx * 0.78, abs=0.01)


def test_node_outline_reaches_png_and_viewer() -> None:
    hg = random_hypergraph(12, 6, seed=1)
    plain = HyperViz().render(hg, layouts="set-force")
    assert Style().outline_hex == Style().hex("entity_color")
    same = HyperViz(style=Style(node_outline="#1f5fbf")).render(hg, layouts="set-force")
    assert same.png == plain.png  # unset = the entity colour, as before
    red = HyperViz(style=Style(node_outline="red")).render(hg, layouts="set-force")
    assert red.png != plain.png
    assert red.export()["style"]["node_outline"] == "#ff0000"
    assert 'class="hv-ent"' in red.to_html() and 'stroke="#ff0000"' in red.to_html()
    old = plain.export()
    del old["style"]["node_outline"]  # an export written before the key existed
    assert 'stroke="#1f5fbf" stroke-width="1.4"' in build_svg(old)
    with pytest.raises(ValueError):
        Style(node_outline="not a colour")


# ---------------------------------------------------------------- 8: names like visual IDs
def test_names_that_read_like_ids_are_quoted() -> None:
    names = ["E2", "h1", "Paris", "London", "E2 Street"]
    hg = Hypergraph(entities=[Entity(name=n) for n in names])
    keys = sorted(hg.entities)
    for i, k in enumerate(keys):
        hg.add_hyperedge(Hyperedge(id=f"x{i}", members=[k, keys[(i + 1) % len(keys)]]))
    r = HyperViz().render(hg, layouts="set-force")
    exp = r.export()
    labels = {lab["text"] for lab in exp["labels"] if lab["kind"] == "name"}
    assert {"“E2”", "“h1”"} <= labels and "E2" not in labels and "h1" not in labels
    assert {"Paris", "London", "E2 Street"} & labels  # other names as they are
    assert {e["name"] for e in exp["entities"]} == set(names)  # the data is unchanged
    ent_lines = [x for x in r.caption.splitlines() if re.match(r"E\d+ ", x)]
    assert any(" “E2” [" in x for x in ent_lines) and any(" “h1” [" in x for x in ent_lines)
    assert any(" E2 Street [" in x for x in ent_lines)
    assert any(" Paris [" in x for x in ent_lines)
    assert looks_like_id(" e12 ") and not looks_like_id("E") and not looks_like_id("HE1")
    assert display_name("H1", 16) == "“H1”" and display_name("Paris", 16) == "Paris"


# ---------------------------------------------------------------- 9: documented sizes
def test_documented_canvas_sizes() -> None:
    st = Style(width=1000, height=700)
    hg = random_hypergraph(6, 3, seed=1)
    assert (HyperViz(style=st).render(hg).width, HyperViz(style=st).render(hg).height) == (
        1000, 700)
    one = HyperViz(style=st).render(hg, layouts="set-force")
    assert (one.width, one.height) == (500, 700)
    assert "one layout" in (Style.__doc__ or "")


def test_html_report_without_descriptions_keeps_keys() -> None:
    export = {"pruned": {"entities": [], "hyperedges": ["h9"], "reasons": {"h9": "cap"}}}
    assert "<li><bdi>h9</bdi> \u2014 cap</li>" in render_html(export)
    digest = hashlib.sha256(render_html(export).encode()).hexdigest()
    assert digest == hashlib.sha256(render_html(export).encode()).hexdigest()
