"""Issue 10, item 8: HIF node ids that differ only in case are kept, with every incidence.

Decision (documented in ``hyperviz_core.hif.read_hif``): such ids normalise to one entity
key, so they are *merged* into one entity named after the first id seen, with a
:class:`HIFAliasWarning`; the other ids (with their attributes) and every incidence through
them are remembered, and export writes all of them back.

Before the fix ``Hypergraph.from_hif`` raised ``DuplicateIdError`` on such a file, so every
test here failed (``vizrag render`` exited 2).
"""

from __future__ import annotations

import io
import json
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core import HIFAliasWarning, Hypergraph, validate_hif
from hyperviz_core.cli import main

DOC: dict[str, Any] = {
    "network-type": "undirected",
    "metadata": {"source": "co-authorship sample"},
    "nodes": [
        {"node": "Wenjie Zhang", "attrs": {"affiliation": "UNSW"}},
        {"node": "wenjie zhang", "attrs": {"affiliation": "UTS"}, "weight": 2},
        {"node": "Xuemin Lin"},
        {"node": "Ying Zhang"},
        {"node": "WENJIE  ZHANG"},
    ],
    "edges": [{"edge": "p1"}, {"edge": "p2"}, {"edge": "p3"}],
    "incidences": [
        {"edge": "p1", "node": "Wenjie Zhang"},
        {"edge": "p1", "node": "Xuemin Lin"},
        {"edge": "p2", "node": "wenjie zhang", "weight": 0.5},
        {"edge": "p2", "node": "Ying Zhang"},
        {"edge": "p3", "node": "Wenjie Zhang"},
        {"edge": "p3", "node": "wenjie zhang", "attrs": {"role": "corresponding"}},
        {"edge": "p3", "node": "WENJIE  ZHANG"},
        {"edge": "p3", "node": "Xuemin Lin"},
    ],
}


def _incidences(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((str(i["edge"]), str(i["node"]), json.dumps(
        {k: v for k, v in i.items() if k not in ("edge", "node")}, sort_keys=True))
        for i in doc["incidences"])


def _nodes(doc: dict[str, Any]) -> list[str]:
    return sorted(json.dumps(n, sort_keys=True) for n in doc["nodes"])


def test_case_differing_ids_load_with_one_warning() -> None:
    with pytest.warns(HIFAliasWarning) as caught:
        hg = Hypergraph.from_hif(DOC)
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "'Wenjie Zhang'" in msg and "'wenjie zhang'" in msg and "'WENJIE  ZHANG'" in msg
    assert sorted(hg.entities) == ["wenjie zhang", "xuemin lin", "ying zhang"]
    ent = hg.entities["wenjie zhang"]
    assert ent.name == "Wenjie Zhang" and ent.metadata["affiliation"] == "UNSW"
    assert [a["node"] for a in ent.metadata["hif_aliases"]] == ["wenjie zhang", "WENJIE  ZHANG"]
    assert hg.members("p2") == ["wenjie zhang", "ying zhang"]
    assert hg.members("p3") == ["wenjie zhang", "xuemin lin"]
    hg.check_consistency()


def test_round_trip_keeps_every_node_and_incidence() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HIFAliasWarning)
        hg = Hypergraph.from_hif(DOC)
        out = hg.to_hif()
        validate_hif(out)
        assert _incidences(out) == _incidences(DOC)
        assert _nodes(out) == _nodes(DOC)
        again = Hypergraph.from_hif(json.dumps(out))
    assert again.model_dump() == hg.model_dump()
    assert again.to_hif() == out


def test_integer_and_string_ids_of_one_node() -> None:
    doc = {"incidences": [{"edge": "e", "node": 7}, {"edge": "e", "node": "7"},
                          {"edge": "e", "node": "x"}]}
    with pytest.warns(HIFAliasWarning):
        hg = Hypergraph.from_hif(doc)
    assert hg.members("e") == ["7", "x"]
    assert _incidences(hg.to_hif()) == _incidences(doc)


def test_render_cli_shows_such_a_file(tmp_path: Path) -> None:
    src = tmp_path / "coauthors.hif.json"
    src.write_text(json.dumps(DOC), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["render", str(src), "--layout", "set-force", "--out",
                     str(tmp_path / "v.png")])
    assert code == 0, err.getvalue()
    lines = [t for t in err.getvalue().splitlines() if not t.startswith("wrote ")]
    assert len(lines) == 1 and lines[0].startswith("vizrag render: warning: HIF nodes")
    export = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert len(export["entities"]) == 3
