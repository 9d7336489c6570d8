"""Text that is not valid Unicode (lone surrogates) is refused before anything is drawn or
written, naming where it is; earlier outputs at the same path survive. HIF export writes
valid JSON even for a weight JSON cannot hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core import Hypergraph
from hyperviz_core.cli import main
from hyperviz_core.hif import HIFError
from hyperviz_core.surrogates import first_surrogate


def _hif(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "g.hif.json"
    # written as ASCII JSON: the escape "\ud800" is what a file holds
    path.write_text(json.dumps({"nodes": [{"node": "Ada"}, {"node": name}],
                                "incidences": [{"edge": "e1", "node": "Ada"},
                                               {"edge": "e1", "node": name}]}))
    return path


def test_hif_with_a_lone_surrogate_is_refused_by_place(tmp_path: Path) -> None:
    with pytest.raises(HIFError, match=r"nodes/1/node holds a lone surrogate \(character 4\)"):
        Hypergraph.from_hif(_hif(tmp_path, "Bab\ud800"))


def test_render_refuses_it_and_keeps_earlier_outputs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, out = _hif(tmp_path, "Babbage"), tmp_path / "v.png"
    assert main(["render", str(good), "--out", str(out)]) == 0
    before = out.read_bytes(), out.with_suffix(".json").read_bytes()
    capsys.readouterr()
    bad = _hif(tmp_path, "Bab\ud800")
    assert main(["render", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lone surrogate" in err and "nodes/1/node" in err
    assert main(["render", str(good), "--query", "caf\udce9", "--out", str(out)]) == 2
    assert "--query is not valid Unicode text (character 4" in capsys.readouterr().err
    assert (out.read_bytes(), out.with_suffix(".json").read_bytes()) == before


def test_first_surrogate_paths() -> None:
    assert first_surrogate({"a": ["ok", {"b": "x"}]}) is None
    assert first_surrogate({"a": ["ok", {"b\udc80": 1}]}) == ("a/1/b\udc80 (key)", 1)
    deep: list[object] = ["\ud800"]
    for _ in range(5000):  # deeper than the recursion limit
        deep = [deep]
    assert first_surrogate(deep) == ("/".join(["0"] * 5001), 0)


def test_hif_export_leaves_out_a_non_finite_weight() -> None:
    import math

    from hyperviz_core.model import Entity, Hyperedge

    hg = Hypergraph()
    a, b = (hg.add_entity(Entity(name=n)).key for n in ("Ada", "Babbage"))
    good = Hyperedge(id="h1", members=[a, b], weight=2.5)
    # a store imported before weights were checked can hold one (model_construct skips it)
    bad = Hyperedge.model_construct(**{**good.model_dump(), "id": "h2", "weight": math.inf})
    hg.hyperedges.update({"h1": good, "h2": bad})
    doc = hg.to_hif()
    json.dumps(doc, allow_nan=False)  # valid JSON: raised ValueError before
    assert [e.get("weight") for e in doc["edges"]] == [2.5, None]


def test_save_replaces_the_pair_whole_or_not_at_all(tmp_path: Path) -> None:
    from hyperviz_core import HyperViz
    from hyperviz_core.model import Entity, Hyperedge

    hg = Hypergraph()
    a, b = (hg.add_entity(Entity(name=n)).key for n in ("Ada", "Babbage"))
    hg.add_hyperedge(Hyperedge(id="h1", members=[a, b]))
    out = tmp_path / "v.png"
    first = HyperViz().render(hg, title="x" * 5000)  # an explicit title is cut for drawing
    assert len(first.title) <= 200 and first.title.endswith("…")
    first.save(out)
    before = out.read_bytes(), out.with_suffix(".json").read_bytes()
    broken = HyperViz().render(hg)
    broken._export["metrics"] = {"bad": float("nan")}  # not JSON
    with pytest.raises(ValueError, match="JSON"):
        broken.save(out)
    assert (out.read_bytes(), out.with_suffix(".json").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.json", "v.png"]  # no temp files


def test_a_query_question_counts_its_character_from_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``vizrag query`` named the position from 0 (``character 0`` for the first), the other
    readers from 1."""
    from hyperviz_core.rag import Document, VizRAG

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(text="Ada Lovelace met Charles Babbage.")])
    capsys.readouterr()
    assert main(["query", "caf\udce9", "--store", str(tmp_path / "s")]) != 0
    assert "(character 4: '\\udce9')" in capsys.readouterr().err
