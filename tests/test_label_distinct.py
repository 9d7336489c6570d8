"""Labels a reader can tell apart: entity names whose cuts would read the same are cut apart
(``display_names``), the ``duplicate_labels`` metric counts labels that still read alike,
long legend facts wrap over two lines before they are cut, and the caption says in which
panel an entity is shown by ID only."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz, Style
from hyperviz_core.draw.labels import NAME_SPREAD, distinct_names, middle_cut
from hyperviz_core.draw.legend import (
    LEGEND_GAP,
    CanvasPlan,
    LegendEntry,
    legend_text_x,
    plan_canvas,
)
from hyperviz_core.draw.scene import display_name, display_names, visual_order
from hyperviz_core.draw.text import measure
from hyperviz_core.export import build_caption
from hyperviz_core.idmap import IdMap
from hyperviz_core.metrics import compute_metrics
from hyperviz_core.testing import random_hypergraph

COAHUILA = "Jiménez Municipality, Coahuila"
CHIHUAHUA = "Jiménez Municipality, Chihuahua"
FACT = ("Jiménez Municipality is a municipality in the Mexican state of Coahuila, founded in "
        "1860; its seat is Santo Domingo")


def _jimenez() -> Hypergraph:
    hg = Hypergraph()
    for n in (COAHUILA, CHIHUAHUA, "Mexico", "Coahuila", "Chihuahua"):
        hg.add_entity(Entity(name=n))
    k = list(hg.entities)
    hg.add_hyperedge(Hyperedge(id="h1", members=[k[0], k[3]], description=FACT))
    hg.add_hyperedge(Hyperedge(id="h2", members=[k[1], k[4]],
                               description="Jiménez is in Chihuahua"))
    hg.add_hyperedge(Hyperedge(id="h3", members=[k[3], k[4], k[2]],
                               description="states of Mexico"))
    return hg


# ---------------------------------------------------------------- 1: distinct name labels
def test_two_names_cut_alike_are_drawn_apart() -> None:
    r = HyperViz().render(_jimenez())
    ex = r.export()
    names = [lab for lab in ex["labels"] if lab["kind"] == "name"]
    for panel in range(len(ex["panels"])):
        texts = [lab["text"] for lab in names if lab["panel"] == panel]
        assert len(texts) == 5 and len(set(texts)) == 5, texts  # all named, all different
        assert {"Jiménez…Coahuila", "Jiméne…Chihuahua"} <= set(texts)
    assert r.metrics["duplicate_labels"] == 0
    assert all(r.metrics[f"panel{p}.duplicate_labels"] == 0 for p in range(2))


def test_distinct_names_only_recuts_the_colliding_ones() -> None:
    names = [COAHUILA, CHIHUAHUA, "Paris", "A name longer than sixteen", COAHUILA]
    out = distinct_names(names, 16)
    assert out == ["Jiménez…Coahuila", "Jiméne…Chihuahua", "Paris", "A name longer t…",
                   "Jiménez…Coahuila"]  # the same name twice keeps the same text
    assert all(len(t) <= NAME_SPREAD * 16 for t in out)


def test_distinct_names_lengthens_when_the_ends_are_alike() -> None:
    a = "The Very Long Company Name Number 1 Incorporated Ltd"
    b = "The Very Long Company Name Number 2 Incorporated Ltd"
    out = distinct_names([a, b], 16)
    assert out[0] != out[1] and all(len(t) <= 32 for t in out)
    # nothing tells them apart within the bound: the first cuts are kept (and counted)
    same = distinct_names(["x" * 40 + "1" + "y" * 40, "x" * 40 + "2" + "y" * 40], 16)
    assert same == ["x" * 15 + "…"] * 2


def test_a_recut_never_takes_another_entitys_text() -> None:
    # the middle cut of the pair would read "Jiménez…Coahuila": a third entity has it
    out = distinct_names([COAHUILA, CHIHUAHUA, "Jiménez…Coahuila"], 16)
    assert len(set(out)) == 3


def test_display_names_quote_id_like_names_and_keep_short_ones() -> None:
    assert display_names(["E2", "Paris", "Jiménez"], 16) == ["“E2”", "Paris", "Jiménez"]
    assert middle_cut("Supercalifragilisticexpialidocious", 16) == "Super…alidocious"
    assert middle_cut("short", 16) == "short" and middle_cut("abcdefgh", 4) == "abc…"


def test_names_without_collisions_are_cut_as_before() -> None:
    names = ["Marie Curie", "Pierre Curie and the Sorbonne", "Université de Paris"]
    assert display_names(names, 16) == [display_name(n, 16) for n in names]
    assert display_names(names, 16)[1:] == ["Pierre Curie an…", "Université de P…"]


def test_duplicate_labels_metric_counts_alike_texts_of_different_nodes() -> None:
    def label(lid: str, text: str, x: float) -> dict[str, object]:
        return {"id": lid, "panel": 0, "kind": "name", "text": text,
                "bbox": [x, 10, x + 40, 20]}

    labels = [label("E1", "Jiménez Municip…", 0), label("E2", "Jiménez Municip…", 100),
              label("E3", "Paris", 200), label("E4", "", 300)]
    export = {"width": 400, "height": 100, "panels": [{"bbox": [0, 0, 400, 100]}],
              "labels": labels}
    m = compute_metrics(export)
    assert m["duplicate_labels"] == 2 and m["panel0.duplicate_labels"] == 2
    labels[1]["text"] = "Jiméne…Chihuahua"
    assert compute_metrics(export)["duplicate_labels"] == 0
    labels[1]["text"] = "Jiménez Municip…"
    del labels[0]["text"]  # a label without a text counts for none
    assert compute_metrics(export)["duplicate_labels"] == 0


def test_recut_names_and_wrapped_legend_do_not_depend_on_the_hash_seed() -> None:
    code = (
        "import hashlib, json, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_label_distinct import _jimenez\n"
        "from hyperviz_core import HyperViz\n"
        "r = HyperViz().render(_jimenez())\n"
        "print(hashlib.sha256(r.png + json.dumps(r.export()['labels']).encode()).hexdigest())\n"
    )
    digests = set()
    for seed in ("1", "777"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True, timeout=300,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        digests.add(out.stdout.strip())
    assert len(digests) == 1


# ---------------------------------------------------------------- 2: legend over two lines
def _plan(hg: Hypergraph, style: Style, height: int = 768) -> CanvasPlan:
    ids = IdMap.build(hg)
    return plan_canvas(hg, ids, visual_order(hg, ids), style, 2, 2, 1536, height)


def test_a_long_fact_wraps_over_two_lines_and_keeps_its_end() -> None:
    st = Style()
    plan = _plan(_jimenez(), st)
    first = next(e for e in plan.legend if e.vid and FACT.startswith(e.text))
    i = plan.legend.index(first)
    second = plan.legend[i + 1]
    assert second.vid == "" and second.continued and not first.continued
    assert second.x == first.x + legend_text_x(st)
    assert second.y == first.y + plan.line_height
    assert f"{first.text} {second.text}" == FACT  # whole, its end ("Santo Domingo") too
    text_w = 504.0 - legend_text_x(st) - LEGEND_GAP  # 3 columns of 1512 px
    assert all(measure(e.text, st.label_font_size, False, st.dpi)[0] <= text_w
               for e in (first, second))
    assert plan.legend_box is not None  # two lines high
    assert plan.legend_box[3] - plan.legend_box[1] == 2 * plan.line_height + 8.0


def test_legend_lines_stay_in_their_column_and_the_box() -> None:
    st = Style()
    hg = Hypergraph(entities=[Entity(name=f"n{i}") for i in range(9)])
    for i in range(8):
        desc = f"fact {i} " + "with many words in it " * (i % 4 + 1) + "and the answer at the end"
        hg.add_hyperedge(Hyperedge(id=f"h{i}", members=[f"n{i}", f"n{i + 1}"], description=desc))
    plan = _plan(hg, st)
    assert plan.legend_box is not None
    lx = sorted({e.x for e in plan.legend if e.vid})
    pitch = lx[1] - lx[0]
    for e in plan.legend:
        x0 = e.x if e.vid else e.x - legend_text_x(st)
        end = x0 + legend_text_x(st) + measure(e.text, st.label_font_size, False, st.dpi)[0]
        assert end <= x0 + pitch - LEGEND_GAP + 1e-6
        assert plan.legend_box[1] < e.y < plan.legend_box[3]
    spots = [(e.x, e.y) for e in plan.legend]
    assert len(set(spots)) == len(spots)  # no two lines drawn over each other
    assert sum(1 for e in plan.legend if e.vid) == 8
    assert sum(1 for e in plan.legend if not e.vid) >= 2  # the longer facts took two lines


def test_legend_that_overflows_ends_with_a_note() -> None:
    st = Style()
    hg = Hypergraph(entities=[Entity(name=f"n{i}") for i in range(41)])
    for i in range(40):
        hg.add_hyperedge(Hyperedge(id=f"h{i}", members=[f"n{i}", f"n{i + 1}"],
                                   description=f"fact {i} " + "long words here " * 8))
    plan = _plan(hg, st, height=400)
    shown = sum(1 for e in plan.legend if e.vid)
    assert plan.legend_more == 40 - shown > 0
    assert plan.legend[-1].text.startswith(f"+{plan.legend_more} more hyperedges")
    assert all(e.vid for e in plan.legend[:-1])  # one line each (cut), as before
    assert all(e.text.endswith("…") for e in plan.legend[:-1])


def test_wrapping_never_pushes_an_entry_out_of_the_legend() -> None:
    st = Style()
    hg = Hypergraph(entities=[Entity(name=f"n{i}") for i in range(17)])
    for i in range(16):
        hg.add_hyperedge(Hyperedge(id=f"h{i}", members=[f"n{i}", f"n{i + 1}"],
                                   description=f"fact {i} " + "long words here " * 8))
    plan = _plan(hg, st, height=500)  # 3 columns of 6 lines: 16 fit on one line each
    assert plan.legend_more == 0 and sum(1 for e in plan.legend if e.vid) == 16
    kinds = [bool(e.vid) for e in plan.legend]
    wrapped = [i for i, k in enumerate(kinds) if not k]
    assert wrapped and wrapped == [2 * j + 1 for j in range(len(wrapped))]  # the first ones
    assert plan.legend_box is not None
    assert all(plan.legend_box[1] < e.y < plan.legend_box[3] for e in plan.legend)
    assert plan.legend_box is not None
    assert all(plan.legend_box[1] < e.y < plan.legend_box[3] for e in plan.legend)


def test_a_fact_that_fits_one_line_is_whole_and_a_long_one_is_cut_on_the_second() -> None:
    desc = "Marie Curie and Pierre Curie shared the 1903 Nobel Prize in Physics"  # > 60 chars
    hg = Hypergraph(entities=[Entity(name=n) for n in ("marie", "pierre")],
                    hyperedges=[Hyperedge(id="h", members=["marie", "pierre"], description=desc)])
    plan = _plan(hg, Style())
    assert [e.text for e in plan.legend] == [desc]  # one line of its column: not cut at 60
    long = " ".join(f"word{i}" for i in range(60))  # 359 characters
    hg.hyperedges["h"].description = long
    lines = [e.text for e in _plan(hg, Style()).legend]
    assert len(lines) == 2 and lines[1].endswith("…")
    assert len(lines[0]) + len(lines[1]) <= 2 * Style().legend_max_chars + 1
    assert long.startswith(lines[0] + " " + lines[1][:-1])


def test_a_legend_with_room_for_one_line_cuts_entries_to_one() -> None:
    hg = Hypergraph(entities=[Entity(name=n) for n in ("a", "b")],
                    hyperedges=[Hyperedge(id="h", members=["a", "b"], description=FACT)])
    plan = _plan(hg, Style(), height=180)  # 30 % of 180 px: one legend line
    assert len(plan.legend) == 1 and plan.legend[0].text.endswith("…")


# ---------------------------------------------------------------- 3: "Shown by ID only"
def test_caption_names_the_panel_an_entity_is_shown_by_id_only_in() -> None:
    hg = random_hypergraph(30, 14, seed=2)
    r = HyperViz().render(hg, layouts=["set-radial", "ra-cen"])
    ex = r.export()
    assert not r.pruning.pruned
    named = [{lab["id"] for lab in ex["labels"] if lab["kind"] == "name" and lab["panel"] == p}
             for p in range(2)]
    by_id = {v: k for k, v in r.id_map.entities.items()}
    per_panel = [[by_id[v] for v in p["unnamed"]] for p in ex["panels"]]
    # the reported case: the union line lists entities the other panel names
    assert any(v in named[0] for v in ex["panels"][1]["unnamed"])
    assert not any(set(p["unnamed"]) & named[i] for i, p in enumerate(ex["panels"]))
    caption = build_caption(hg, r.id_map, visual_order(hg, r.id_map), r.layouts, r.pruning, hg,
                            unnamed=sorted({k for keys in per_panel for k in keys}),
                            unnamed_panels=per_panel)
    lines = [ln for ln in caption.splitlines() if ln.startswith("Shown by ID only")]
    assert len(lines) == sum(1 for keys in per_panel if keys)
    shown = [(layout, keys) for layout, keys in zip(r.layouts, per_panel, strict=True) if keys]
    for (layout, keys), line in zip(shown, lines, strict=True):
        assert line.startswith(f"Shown by ID only in {layout} (no unambiguous room")
        listed = re.findall(r"\b(E\d+) ", line.split("):", 1)[1])
        assert listed == [r.id_map.entities[k] for k in keys]
    old = build_caption(hg, r.id_map, visual_order(hg, r.id_map), r.layouts, r.pruning, hg,
                        unnamed=per_panel[1])
    assert "Shown by ID only (no unambiguous room for the name): " in old  # one list: as before


def test_the_rendered_caption_lists_each_panels_id_only_entities() -> None:
    hg = random_hypergraph(30, 14, seed=2)
    r = HyperViz().render(hg, layouts=["set-radial", "ra-cen"])
    ex = r.export()
    named = [{lab["id"] for lab in ex["labels"] if lab["kind"] == "name" and lab["panel"] == p}
             for p in range(2)]
    for i, panel in enumerate(ex["panels"]):
        line = next((ln for ln in r.caption.splitlines()
                     if ln.startswith(f"Shown by ID only in {r.layouts[i]} ")), None)
        assert (line is not None) == bool(panel["unnamed"])
        if line is not None:
            listed = re.findall(r"\b(E\d+) ", line.split("):", 1)[1])
            assert listed == panel["unnamed"] and not set(listed) & named[i]


def test_the_export_legend_holds_an_entrys_two_lines_joined() -> None:
    r = HyperViz().render(_jimenez(), layouts=["set-radial", "ra-cen"])
    plan = [e for e in r.export()["legend"] if FACT.startswith(e["text"][:20])]
    assert [e["text"] for e in plan] == [FACT]
    cjk = ("東京都は日本の首都であり、政治経済文化の中心地として"
           "世界的に重要な役割を果たしている大都市です。")
    wide = CanvasPlan(width=10, height=10, title_box=None, panels=[], legend_box=None,
                      footer_box=None, legend=[
                          LegendEntry("H1", "#000", "solid", cjk[:20]),
                          LegendEntry("", "#666666", "solid", cjk[20:], continued=True),
                          LegendEntry("", "#666666", "solid", "+3 more hyperedges")])
    assert wide.items() == [{"id": "H1", "text": cjk, "color": "#000"}]
