"""A rendering user's review: a huge integer HIF weight crashed ``vizrag render``; the CLI
did not say what congestion control omitted; every hyperedge square of the induced views had
the same orange frame; there was no vector export (``Rendering.save("x.svg")``,
``vizrag render --out x.svg``)."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz, Style
from hyperviz_core.cli import main
from hyperviz_core.hif import HIFError, read_hif
from hyperviz_core.render import Rendering
from hyperviz_core.testing import random_hypergraph

GOOD = {"network-type": "undirected", "nodes": [{"node": "A"}, {"node": "B"}],
        "edges": [{"edge": "e1"}],
        "incidences": [{"edge": "e1", "node": "A"}, {"edge": "e1", "node": "B"}]}
BIG = "1" + "0" * 400  # a 401-digit integer: valid JSON, no float holds it


def _with_weight(section: str, digits: str = BIG) -> str:
    """GOOD as JSON text with the first record of ``section`` weighted ``digits``."""
    doc = json.loads(json.dumps(GOOD))
    doc[section][0]["weight"] = 7.25  # a marker replaced by the raw digits
    return json.dumps(doc).replace("7.25", digits)


# ----------------------------------------------------------------- 1. huge integer weights
@pytest.mark.parametrize("section", ["edges", "nodes", "incidences"])
def test_a_huge_integer_weight_is_a_one_line_error_naming_the_field(
        section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "g.hif.json"
    src.write_text(_with_weight(section))
    out = tmp_path / "v.png"
    assert main(["render", str(src), "--out", str(out)]) == 2  # edges: OverflowError before
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("vizrag render: error: ")
    assert f"{section}/0/weight" in err and "401 digits" in err
    assert not out.exists()


def test_read_hif_refuses_a_weight_no_float_holds_and_keeps_one_that_fits() -> None:
    with pytest.raises(HIFError, match=r"HIF number at edges/0/weight is too large"):
        read_hif(_with_weight("edges"))
    doc = json.loads(json.dumps(GOOD))
    doc["edges"][0]["weight"] = 2**1024 - 2**970  # the smallest integer float() overflows on
    with pytest.raises(HIFError, match="edges/0/weight"):
        read_hif(doc)
    doc["edges"][0]["weight"] = 2**1024 - 2**970 - 1  # rounds down to the largest float
    _, edges, _ = read_hif(doc)
    assert edges["e1"].weight == sys.float_info.max
    # a large integer that fits is kept as it was (HIF -> model -> HIF)
    doc["edges"][0]["weight"] = 10**300
    assert Hypergraph.from_hif(doc).to_hif()["edges"][0]["weight"] == 10**300


# ---------------------------------------------------------- 2. what congestion control omitted
def _hif(tmp_path: Path, hg: Hypergraph) -> Path:
    path = tmp_path / "g.hif.json"
    path.write_text(json.dumps(hg.to_hif()))
    return path


def test_render_says_what_congestion_control_omitted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _hif(tmp_path, random_hypergraph(80, 50, seed=1))
    out = tmp_path / "v.png"
    assert main(["render", str(src), "--out", str(out), "--no-progress"]) == 0
    pruned = json.loads(out.with_suffix(".json").read_text())["pruned"]
    n_ents, n_edges = len(pruned["entities"]), len(pruned["hyperedges"])
    assert n_ents and n_edges
    lines = capsys.readouterr().err.strip().splitlines()
    warn = [line for line in lines if "warning" in line]
    assert warn == [
        f"vizrag render: warning: congestion control omitted {n_ents} of 80 entities and "
        f"{n_edges} of 50 hyperedges (not drawn; listed in the caption and in the JSON "
        "export's \"pruned\")"]
    assert lines[-1].startswith("wrote ")


def test_render_names_the_caps_when_only_they_cut(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _hif(tmp_path, random_hypergraph(14, 7, seed=3))
    out = tmp_path / "v.png"
    assert main(["render", str(src), "--no-prune", "--max-entities", "5", "--out",
                 str(out)]) == 0
    warn = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warn) == 1
    assert warn[0].startswith("vizrag render: warning: the --max-entities/--max-hyperedges "
                              "caps omitted 9 of 14 entities")


def test_render_says_nothing_more_when_nothing_was_omitted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _hif(tmp_path, random_hypergraph(6, 3, seed=2))
    out = tmp_path / "v.png"
    assert main(["render", str(src), "--out", str(out)]) == 0
    assert json.loads(out.with_suffix(".json").read_text())["pruned"]["entities"] == []
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("wrote ")


# ------------------------------------------------------------- 3. the hyperedge square frames
def _rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def _frames(rendering: Rendering) -> dict[str, tuple[int, int, int]]:
    """Each hyperedge's square frame colour in the PNG: the middle of its bottom edge."""
    img = Image.open(io.BytesIO(rendering.png)).convert("RGB")
    out = {}
    for h in rendering.export()["hyperedges"]:
        node = h["node"][0]
        q = node["r"] / math.sqrt(2.0)
        out[h["color"]] = img.getpixel((math.floor(node["x"]), math.floor(node["y"] + q)))
    return out


def _dist(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return math.dist(a, b)


def test_each_square_is_framed_in_its_hyperedges_colour() -> None:
    r = HyperViz().render(random_hypergraph(8, 4, seed=2), layouts="bi-inc")
    frames = _frames(r)
    assert len(frames) == 4
    for color, pixel in frames.items():
        assert _dist(pixel, _rgb(color)) < 30, (color, pixel)
    # H1 (blue) no longer reads as orange
    blue = frames["#0072b2"]
    assert _dist(blue, _rgb("#e07b00")) > 150


def test_an_explicit_frame_colour_still_frames_every_square() -> None:
    style = Style(hyperedge_node_color="#e07b00")
    r = HyperViz(style=style).render(random_hypergraph(8, 4, seed=2), layouts="bi-inc")
    assert all(_dist(p, _rgb("#e07b00")) < 30 for p in _frames(r).values())
    assert r.export()["style"]["hyperedge_node_color"] == "#e07b00"
    assert 'stroke="#e07b00" stroke-width="2"' in r.to_html()


def test_the_viewer_frames_the_squares_as_the_png() -> None:
    r = HyperViz().render(random_hypergraph(8, 4, seed=2), layouts="bi-inc")
    assert r.export()["style"]["hyperedge_node_color"] == "hyperedge"
    page = r.to_html()
    assert "#e07b00" not in page
    for h in r.export()["hyperedges"]:
        assert (f'<rect class="hv-hnode" data-id="{h["id"]}"') in page
        start = page.index(f'<rect class="hv-hnode" data-id="{h["id"]}"')
        assert f'stroke="{h["color"]}" stroke-width="2"' in page[start:page.index(">", start)]


def test_the_frame_keyword_is_only_for_the_frame() -> None:
    assert Style().hyperedge_node_color == "hyperedge"
    assert Style(hyperedge_node_color="hyperedge").hex("hyperedge_node_color") == "hyperedge"
    with pytest.raises(ValueError):
        Style(node_fill="hyperedge")
    with pytest.raises(ValueError):
        Style(hyperedge_node_color="#e07b0080")  # transparency, as before


# ----------------------------------------------------------------------------- 4. SVG export
def _small() -> Hypergraph:
    return random_hypergraph(10, 5, seed=4)


def test_save_writes_an_svg_and_its_export(tmp_path: Path) -> None:
    r = HyperViz().render(_small())
    out = r.save(tmp_path / "v.svg")  # ValueError before
    data = out.read_bytes()
    assert data.startswith(b"<?xml") and b"<svg" in data
    root = ET.fromstring(data)  # well-formed XML
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == (str(r.width), str(r.height))
    assert data == r.to_svg()
    png_export = json.loads(r.save(tmp_path / "v.png").with_suffix(".json").read_text())
    assert json.loads((tmp_path / "v.json").read_text()) == png_export
    for h in r.export()["hyperedges"]:  # the PNG's colours
        assert h["color"].encode() in data
    assert b"<dc:date>" not in data


def test_the_svg_is_deterministic_across_hash_seeds() -> None:
    code = ("import hashlib\n"
            "from hyperviz_core.render import HyperViz\n"
            "from hyperviz_core.testing import random_hypergraph\n"
            "r = HyperViz().render(random_hypergraph(14, 7, seed=5), query='river')\n"
            "print(hashlib.sha256(r.to_svg()).hexdigest())\n")
    digests = []
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, check=True, timeout=180)
        digests.append(done.stdout.strip())
    assert len(set(digests)) == 1 and len(digests[0]) == 64
    here = HyperViz().render(random_hypergraph(14, 7, seed=5), query="river")
    assert hashlib.sha256(here.to_svg()).hexdigest() == digests[0]


HOSTILE = "</text><script>alert(1)</script>"


def test_a_hostile_name_makes_no_markup_in_the_svg(tmp_path: Path) -> None:
    hg = Hypergraph()
    for name in (HOSTILE, "B & <C>", "D"):
        hg.add_entity(Entity(name=name, description=HOSTILE))
    keys = sorted(hg.entities)
    hg.add_hyperedge(Hyperedge(members=keys, description=HOSTILE + " ]]> & \"'"))
    r = HyperViz().render(hg, query=HOSTILE, title=HOSTILE)
    assert any(HOSTILE in e["name"] for e in r.export()["entities"])
    data = r.save(tmp_path / "h.svg").read_bytes()
    root = ET.fromstring(data)  # well-formed
    tags = {el.tag.split("}")[-1] for el in root.iter()}
    assert not tags & {"script", "text", "foreignObject", "a", "image"}
    for needle in (b"<script", b"alert", b"</text>", b"<text", b"]]>", b"&lt;"):
        assert needle not in data, needle


def test_the_svg_save_is_atomic(tmp_path: Path) -> None:
    r = HyperViz().render(_small())
    (tmp_path / "v.svg").write_bytes(b"old")
    (tmp_path / "v.json").mkdir()  # the export cannot be written: neither file is
    with pytest.raises(OSError):
        r.save(tmp_path / "v.svg")
    assert (tmp_path / "v.svg").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.json", "v.svg"]


def test_a_rendering_read_back_cannot_draw_an_svg(tmp_path: Path) -> None:
    r = HyperViz().render(_small())
    back = Rendering.model_validate_json(r.model_dump_json())
    assert back == r  # the drawing kept for the SVG does not count
    with pytest.raises(ValueError, match="render the hypergraph again"):
        back.save(tmp_path / "b.svg")
    assert not (tmp_path / "b.svg").exists() and not (tmp_path / "b.json").exists()
    assert copy.deepcopy(r).to_svg() == r.to_svg()
    with pytest.raises(ValueError, match=r"ending in .png \(or .svg"):
        r.save(tmp_path / "v.jpg")


def test_cli_render_writes_an_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _hif(tmp_path, random_hypergraph(14, 7, seed=3))
    out = tmp_path / "out" / "view.svg"
    assert main(["render", str(src), "--out", str(out)]) == 0  # exit 2 before
    assert out.read_bytes().startswith(b"<?xml")
    assert json.loads(out.with_suffix(".json").read_text())["layouts"] == ["set-force",
                                                                            "bi-inc"]
    err = capsys.readouterr().err
    assert f"wrote {out} (1536x768) and {out.with_suffix('.json')}" in err
    assert main(["render", str(src), "--out", str(tmp_path / "view.gif")]) == 2
    assert "must end in .png or .svg" in capsys.readouterr().err
