"""The HTML viewer without a browser: structure, escaping, CSP, determinism, geometry."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from viewer_fixtures import (
    XSS_PAYLOADS,
    full_depth,
    hop_diameter,
    hostile_hypergraph,
    make_export,
    sample_hypergraph,
)

from hyperviz_core import IdMap
from hyperviz_core.viewer import hop_depth, json_for_script, render_html
from hyperviz_core.viewer.svg import fmt

PNG_1PX = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)
ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "div",
    "input", "ul", "li", "label", "button", "span", "aside", "section", "noscript", "p",
    "details", "summary", "pre", "table", "tr", "td", "svg", "g", "rect", "text", "path",
    "line", "circle", "image", "script", "select", "option", "bdi",
}  # fmt: skip


class _Collector(HTMLParser):
    """Every start tag with its attributes, and the text outside <script>/<style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.raw:
            self._in = tag
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.raw[self._in][-1] += data
        else:
            self.text.append(data)


def parse(page: str) -> _Collector:
    c = _Collector()
    c.feed(page)
    c.close()
    return c


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def embedded_json(page: str) -> Any:
    m = re.search(r'<script type="application/json" id="hv-data">(.*?)</script>', page, re.S)
    assert m, "no JSON data block"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def hostile_page() -> str:
    hg, chunks = hostile_hypergraph()
    export = make_export(hg, ("set-force", "bi-inc", "cli-exp"), chunk_texts=chunks)
    export["title"] = XSS_PAYLOADS[3]
    export["caption"] = XSS_PAYLOADS[0]
    export["pruned"] = {"entities": [XSS_PAYLOADS[1]], "hyperedges": [],
                        "reasons": {XSS_PAYLOADS[1]: XSS_PAYLOADS[2]}}  # fmt: skip
    export["metrics"] = {XSS_PAYLOADS[2]: XSS_PAYLOADS[4]}
    export["hyperedges"][0]["color"] = '#fff" onload="window.__pwned=9'
    export["panels"][0]["layout"] = XSS_PAYLOADS[1]
    return render_html(export)


def test_single_offline_file() -> None:
    page = render_html(make_export())
    assert page.startswith("<!DOCTYPE html>")
    doc = parse(page)
    # nothing is fetched: no src/href other than the inline data: PNG, no <link>, no URLs
    for tag, attrs in doc.tags:
        assert tag != "link"
        assert "src" not in attrs, tag
        assert "href" not in attrs or (attrs["href"] or "").startswith("data:image/png")
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    scripts = [attrs for tag, attrs in doc.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "hv-data"}, {}]


def test_assets_are_inlined_verbatim() -> None:
    page = render_html(make_export())
    doc = parse(page)
    assets = resources.files("hyperviz_core.viewer").joinpath("assets")
    assert doc.raw["script"][1] == assets.joinpath("viewer.js").read_text("utf-8")
    assert doc.raw["style"] == [assets.joinpath("viewer.css").read_text("utf-8")]


def test_csp_allows_exactly_the_inline_code() -> None:
    page = render_html(make_export())
    doc = parse(page)
    metas = [
        a for t, a in doc.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    assert len(metas) == 1
    csp = metas[0]["content"] or ""
    directives = {d.split()[0]: d.split()[1:] for d in csp.split(";") if d.strip()}
    assert directives["default-src"] == ["'none'"]
    assert directives["img-src"] == ["data:"]
    assert directives["script-src"] == [f"'{_hash(doc.raw['script'][1])}'"]
    assert directives["style-src"] == [f"'{_hash(doc.raw['style'][0])}'"]
    assert "unsafe" not in csp
    # the CSP meta comes before any script or style
    names = [t for t, _ in doc.tags]
    assert names.index("meta") < names.index("style") < names.index("script")
    # no inline style attributes or event handlers (CSP would block them anyway)
    for tag, attrs in doc.tags:
        assert "style" not in attrs, tag
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)


def test_deterministic_and_key_order_independent() -> None:
    export = make_export()
    a = render_html(export)
    assert render_html(copy.deepcopy(export)) == a
    reordered = json.loads(json.dumps(export))
    reordered = {k: reordered[k] for k in reversed(list(reordered))}
    reordered["entities"] = [{k: e[k] for k in reversed(list(e))} for e in reordered["entities"]]
    assert render_html(reordered) == a


def test_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    code = (
        "import sys, hashlib; sys.path.insert(0, 'tests');"
        "from viewer_fixtures import make_export;"
        "from hyperviz_core.viewer import render_html;"
        "print(hashlib.sha256(render_html(make_export()).encode()).hexdigest())"
    )
    root = Path(__file__).resolve().parents[1]
    digests = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True,
                             capture_output=True, text=True)  # fmt: skip
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_json_block_round_trips_and_cannot_break_out(hostile_page: str) -> None:
    m = re.search(
        r'<script type="application/json" id="hv-data">(.*?)</script>', hostile_page, re.S
    )
    assert m
    body = m.group(1)
    for ch in ("<", ">", "&", "\u2028", "\u2029"):
        assert ch not in body
    data = json.loads(body)
    assert data["title"] == XSS_PAYLOADS[3]
    names = {e["name"] for e in data["entities"]}
    assert {f"{p} #{i}" for i, p in enumerate(XSS_PAYLOADS)} == names
    assert any("\u2028" in t for t in data["chunks"].values())


def test_json_for_script_escapes() -> None:
    text = json_for_script({"a": "</script><!-- & \u2028\u2029 >", "b": float("nan")})
    assert text == (
        '{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028\\u2029 \\u003e","b":null}'
    )
    assert json.loads(text) == {"a": "</script><!-- & \u2028\u2029 >", "b": None}


def test_hostile_text_is_inert_and_literal(hostile_page: str) -> None:
    doc = parse(hostile_page)
    tags = [t for t, _ in doc.tags]
    assert set(tags) <= ALLOWED_TAGS, set(tags) - ALLOWED_TAGS
    assert tags.count("script") == 2
    assert "img" not in tags
    for tag, attrs in doc.tags:
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
        if tag != "image":
            assert "href" not in attrs
    text = "".join(doc.text)
    assert XSS_PAYLOADS[3] in text  # title, shown literally
    assert f"rel {XSS_PAYLOADS[0]}" in text  # legend
    assert XSS_PAYLOADS[0] in text  # caption
    assert f"{XSS_PAYLOADS[1]} \u2014 {XSS_PAYLOADS[2]}" in text  # pruning report with reason
    assert XSS_PAYLOADS[4] in text  # metrics table
    # attribute values decode back to the payload, never to extra attributes
    labels = [a["aria-label"] for t, a in doc.tags if a.get("class") == "hv-ent"]
    assert f"E1: {XSS_PAYLOADS[1]} #1" in labels
    layouts = [a["data-layout"] for t, a in doc.tags if t == "g" and "data-layout" in a]
    assert layouts[0] == XSS_PAYLOADS[1]
    # a colour that is not #rgb/#rrggbb is replaced, not escaped into the attribute
    assert "onload" not in "".join(a.get("fill") or "" for _, a in doc.tags)


def test_svg_geometry_matches_export() -> None:
    export = make_export(layouts=("set-force", "bi-inc", "cli-exp"))
    doc = parse(render_html(export))
    circles = {
        (a["data-id"], a["cx"], a["cy"], a["r"])
        for t, a in doc.tags
        if t == "circle" and "data-id" in a
    }
    expected = {
        (e["id"], fmt(p["x"]), fmt(p["y"]), fmt(p["r"]))
        for e in export["entities"]
        for p in e["panel_positions"]
    }
    assert circles == expected
    paths = [a for t, a in doc.tags if t == "path"]
    assert len(paths) == sum(len(h["regions"]) for h in export["hyperedges"])
    first = export["hyperedges"][0]
    path = next(a for a in paths if a["data-id"] == first["id"])
    pts = first["regions"][0]["polygons"][0]
    assert (path["d"] or "").startswith(f"M{fmt(pts[0][0])} {fmt(pts[0][1])}L")
    assert path["fill"] == first["color"] and path["stroke"] == first["color"]
    hnodes = [a for t, a in doc.tags if t == "rect" and a.get("class") == "hv-hnode"]
    assert len(hnodes) == sum(len(h["node"]) for h in export["hyperedges"])
    inc = [a for t, a in doc.tags if t == "line" and a.get("class") == "hv-inc"]
    assert len(inc) == sum(len(h["node"]) * len(h["members"]) for h in export["hyperedges"])
    pos = {(e["id"], p["panel"]): p for e in export["entities"] for p in e["panel_positions"]}
    for line in inc:
        h = next(h for h in export["hyperedges"] if h["id"] == line["data-hid"])
        assert line["data-eid"] in h["members"]
        assert any(
            (line["x1"], line["y1"]) == (fmt(pos[line["data-eid"], n["panel"]]["x"]),
                                         fmt(pos[line["data-eid"], n["panel"]]["y"]))
            and (line["x2"], line["y2"]) == (fmt(n["x"]), fmt(n["y"]))
            for n in h["node"]
        )  # fmt: skip
    panels = [a for t, a in doc.tags if t == "g" and a.get("class") == "hv-panel"]
    assert [p["data-layout"] for p in panels] == ["set-force", "bi-inc", "cli-exp"]
    svg = next(a for t, a in doc.tags if t == "svg" and a.get("id") == "hv-svg")
    assert svg["viewbox"] == f"0 0 {export['width']} {export['height']}"
    # every label the renderer placed is drawn centred in its box
    texts = [a for t, a in doc.tags if t == "text" and "hv-label" in (a.get("class") or "").split()]
    # (the fixture gives hyperedge nodes no label: the viewer puts their ID on the node)
    assert len(texts) == len(export["labels"]) + sum(len(h["node"]) for h in export["hyperedges"])
    lab = export["labels"][0]
    x0, y0, x1, y1 = lab["bbox"]
    assert any(
        a["data-id"] == lab["id"] and a["x"] == fmt((x0 + x1) / 2) and a["y"] == fmt((y0 + y1) / 2)
        for a in texts
    )


def test_collage_any_number_of_panels() -> None:
    layouts = ("set-force", "set-hier", "set-radial", "bi-inc", "ra-cen", "cli-exp", "set-force")
    export = make_export(layouts=layouts)
    doc = parse(render_html(export))
    panels = [a for t, a in doc.tags if t == "g" and a.get("class") == "hv-panel"]
    assert len(panels) == len(layouts)
    circles = [a for t, a in doc.tags if t == "circle" and a.get("class") == "hv-ent"]
    assert len(circles) == len(layouts) * len(export["entities"])


def test_unlabelled_nodes_get_their_id_and_bad_geometry_is_skipped() -> None:
    export = make_export()
    export["labels"] = []
    export["entities"][0]["panel_positions"].append({"panel": 0, "x": float("nan"), "y": 1, "r": 3})
    export["entities"][1]["panel_positions"].append({"panel": 7, "x": 1, "y": 1, "r": 3})
    export["hyperedges"][0]["regions"].append({"panel": 0, "polygons": [[[0, 0], [1, "x"]]]})
    page = render_html(export)
    doc = parse(page)
    label_ids = sorted(a["data-id"] or "" for t, a in doc.tags if t == "text" and "data-id" in a)
    n_ent = len(export["entities"]) * 2
    n_nodes = sum(len(h["node"]) for h in export["hyperedges"])
    assert len(label_ids) == n_ent + n_nodes
    assert "NaN" not in page.split('id="hv-data"')[0]
    assert embedded_json(page)["entities"][0]["panel_positions"][-1]["x"] is None


def test_png_and_title_and_validation() -> None:
    export = make_export()
    page = render_html(export, png=PNG_1PX, title="Custom <title>")
    doc = parse(page)
    image = next(a for t, a in doc.tags if t == "image")
    assert image["href"] == "data:image/png;base64," + base64.b64encode(PNG_1PX).decode()
    assert any(t == "input" and a.get("id") == "hv-show-png" for t, a in doc.tags)
    assert "<title>Custom &lt;title&gt;</title>" in page
    assert "<title>Sample view</title>" in render_html(export)
    assert 'id="hv-show-png"' not in render_html(export)
    with pytest.raises(ValueError, match="PNG"):
        render_html(export, png=b"GIF89a not a png")
    with pytest.raises(TypeError):
        render_html(export, png="iVBOR")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        render_html([export])  # type: ignore[arg-type]


def test_empty_and_minimal_exports_render() -> None:
    page = render_html({})
    assert "<title>HyperViz view</title>" in page and "No hyperedges." in page
    export = make_export()
    export["pruned"] = {"entities": [], "hyperedges": [], "reasons": {}}
    assert "Nothing was omitted." in render_html(export)
    export["pruned"] = None
    assert "No pruning report." in render_html(export)


def test_pruning_report_lists_items_and_reasons() -> None:
    export = make_export()
    export["pruned"] = {
        "entities": ["Dropped Entity", {"key": "other", "name": "Other Thing"}],
        "hyperedges": ["h9"],
        "reasons": {"Dropped Entity": "low importance", "budget": "C > C_max"},
        "cost_before": 1.5,
    }
    doc = parse(render_html(export))
    text = "".join(doc.text)
    assert "Omitted entities (2)" in text and "Omitted hyperedges (1)" in text
    assert "Dropped Entity \u2014 low importance" in text
    assert "Other Thing" in text and "h9" in text
    assert "C > C_max" in text and "cost_before" in text


def test_hop_control_offers_one_to_the_deepest_neighbourhood_and_all() -> None:
    hg = sample_hypergraph()
    export = make_export(hg)
    doc = parse(render_html(export))
    select = next(a for t, a in doc.tags if t == "select")
    assert select["id"] == "hv-hops"
    options = [a for t, a in doc.tags if t == "option"]
    top = hop_diameter(hg)
    assert top >= 3
    assert [o["value"] for o in options] == [str(n) for n in range(1, top + 1)] + ["all"]
    assert [o["value"] for o in options if "selected" in o] == ["all"]  # default: N(v, G)
    expand = next(a for t, a in doc.tags if a.get("id") == "hv-expand")
    assert "disabled" in expand  # nothing selected yet
    status = next(a for t, a in doc.tags if a.get("id") == "hv-hop-status")
    assert status["aria-live"] == "polite"
    legend = [a["data-goto"] for t, a in doc.tags if t == "button" and "data-goto" in a]
    assert legend == [h["id"] for h in export["hyperedges"]]


def test_hop_depth_matches_the_model() -> None:
    hg = sample_hypergraph()
    export = make_export(hg)
    assert hop_depth(export["entities"], export["hyperedges"]) == hop_diameter(hg)
    ids = IdMap.build(hg)
    for key in hg.entities:  # one entity at a time: its own N(v, G) depth
        eid = ids.entities[key]
        mine = [e for e in export["entities"] if e["id"] == eid]
        assert hop_depth(mine, export["hyperedges"]) == full_depth(hg, key), key
    # a hyperedge whose members are all at the farthest distance needs one more hop
    tri = [{"id": "H1", "members": ["E1", "E2"]}, {"id": "H2", "members": ["E1", "E3"]},
           {"id": "H3", "members": ["E2", "E3"]}]  # fmt: skip
    assert hop_depth([{"id": "E1"}], tri) == 2
    assert hop_depth([{"id": "E1"}], []) == 1  # isolated: one click, then reset
    assert hop_depth([], []) == 1
    chain = [{"id": f"H{i}", "members": [f"E{i}", f"E{i + 1}"]} for i in range(60)]
    assert hop_depth([{"id": "E0"}], chain) == 20  # capped; the control also offers "all"


# ---------------------------------------------------------------- real renderings


@pytest.fixture(scope="module")
def real() -> Any:
    from viewer_fixtures import SAMPLE_CHUNKS, sample_hypergraph

    from hyperviz_core.render import HyperViz

    return HyperViz().render(sample_hypergraph(), chunk_texts=SAMPLE_CHUNKS)


def test_real_rendering_html_matches_its_export(real: Any) -> None:
    export = real.export()
    page = real.to_html()
    assert page == render_html(export, png=real.png)
    data = embedded_json(page)
    assert data["entities"] == json.loads(json.dumps(export["entities"]))
    assert data["chunks"] == export["chunks"]
    doc = parse(page)
    circles = {
        (a["data-id"], a["cx"], a["cy"], a["r"])
        for t, a in doc.tags
        if t == "circle" and a.get("class") == "hv-ent"
    }
    assert circles == {
        (e["id"], fmt(p["x"]), fmt(p["y"]), fmt(p["r"]))
        for e in export["entities"]
        for p in e["panel_positions"]
    }
    texts = {
        (a["data-id"], a["x"], a["y"])
        for t, a in doc.tags
        if t == "text" and "hv-label" in (a.get("class") or "")
    }
    for lab in export["labels"]:
        x0, y0, x1, y1 = lab["bbox"]
        assert (lab["id"], fmt((x0 + x1) / 2), fmt((y0 + y1) / 2)) in texts
    shown = "".join(doc.text)
    assert all(lab["text"] in shown for lab in export["labels"])
    regions = [a for t, a in doc.tags if t == "path" and a.get("class") == "hv-region"]
    assert len(regions) == sum(len(h["regions"]) for h in export["hyperedges"])
    colors = {h["id"]: h["color"] for h in export["hyperedges"]}
    assert all(a["fill"] == colors[a["data-id"]] for a in regions)
    assert real.to_html() == page  # deterministic


def test_notebook_viewer_of_a_rendering_and_a_retrieval_view(real: Any) -> None:
    """``viewer()`` (a rendering, or a retrieval's ``RenderedView``) is the page, escaped
    whole, inside one sandboxed iframe; the view's page equals the rendering's."""
    import html as htmllib

    from hyperviz_core.rag.result import RenderedView
    from hyperviz_core.viewer import InlineViewer

    frame = real.viewer(height=500)
    assert isinstance(frame, InlineViewer)
    markup = frame._repr_html_()
    assert markup.startswith('<iframe srcdoc="') and markup.endswith("></iframe>")
    assert markup.count("<") == 2  # the page's own markup is all escaped
    srcdoc = re.search(r'srcdoc="([^"]*)"', markup)
    assert srcdoc and htmllib.unescape(srcdoc.group(1)) == real.to_html()
    assert 'sandbox="allow-scripts"' in markup and "height:500px" in markup
    view = RenderedView.from_rendering(real)
    assert view.to_html() == real.to_html()
    assert str(view.viewer()) == str(real.viewer())
    with pytest.raises(ValueError, match="height"):
        real.viewer(height=0)


def test_real_collage_pruned_and_empty() -> None:
    from hyperviz_core.prune import Budget
    from hyperviz_core.render import HyperViz
    from hyperviz_core.testing import random_hypergraph

    hg = random_hypergraph(40, 20, seed=3)
    layouts = ["set-hier", "set-radial", "set-force", "bi-inc", "ra-cen", "cli-exp"]
    r = HyperViz(budget=Budget(max_entities=20)).render_collage(hg, layouts, cols=3)
    export = r.export()
    doc = parse(r.to_html())
    panels = [a["data-layout"] for t, a in doc.tags if t == "g" and a.get("class") == "hv-panel"]
    assert panels == layouts
    pruned = export["pruned"]["entities"]
    assert pruned
    text = "".join(doc.text)
    assert f"Omitted entities ({len(pruned)})" in text
    name = export["pruned"]["names"][pruned[0]]  # the name, not the lower-cased key
    assert name != pruned[0]
    assert f"{name} \u2014 {export['pruned']['reasons'][pruned[0]]}" in text
    rings = [a for t, a in doc.tags if a.get("class") == "hv-ring"]
    assert len(rings) == len(export["panels"][4].get("rings", []))
    empty = HyperViz().render(random_hypergraph(0, 0, seed=1))
    assert "empty hypergraph" in "".join(parse(empty.to_html()).text)


def test_bidi_controls_never_reach_the_viewer() -> None:
    """The PNG draws bidi overrides as nothing; the viewer drops them too, so a name cannot
    reverse its own label (or the text after it) in the browser."""
    from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz

    hg = Hypergraph()
    for name in ("\u202eRLO override", "Plain \u2066isolate\u2069", "Bob"):
        hg.add_entity(Entity(name=name, description="says \u202ehello"))
    keys = sorted(hg.entities)
    hg.add_hyperedge(Hyperedge(id="h1", members=keys, description="\u202dmet"))
    page = HyperViz().render(hg).to_html()
    assert not any(c in page for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "RLO override" in page and "Plain isolate" in page


def test_the_viewer_draws_the_renderings_style_and_dashes() -> None:
    from hyperviz_core import HyperViz, Style
    from hyperviz_core.testing import random_hypergraph

    hg = random_hypergraph(24, 14, seed=2)  # more hyperedges than palette colours
    dark = HyperViz(style=Style(background="#1e1e1e", node_shape="box")).render(hg)
    export = dark.export()
    assert export["style"]["background"] == "#1e1e1e"
    dashed = [h["id"] for h in export["hyperedges"] if h["dash"] != "solid"]
    assert dashed  # the PNG's second colour cycle is outlined dashed ...
    page = dark.to_html()
    assert '<svg id="hv-svg" class="hv-dark"' in page and 'fill="#1e1e1e"' in page
    for hid in dashed:  # ... and so is the viewer's
        region = re.search(rf'<path class="hv-region"[^>]*data-id="{hid}"[^>]*>', page)
        assert region and "stroke-dasharray" in region.group(0)
    light = HyperViz().render(hg).to_html()
    assert '<svg id="hv-svg" xmlns' in light  # no dark class on the default white
