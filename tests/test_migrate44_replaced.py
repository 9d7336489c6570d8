"""``vizrag migrate`` names the destination's documents it replaced (the same id, other
content): a reviewer's destination lost ten documents of its own corpus without a word."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store import open_store
from hyperviz_core.rag.store.transfer import copy_store


def _stores(tmp_path: Path) -> tuple[Path, Path]:
    src, dst = tmp_path / "src", tmp_path / "dst"
    with VizRAG(src, show_progress=False) as rag:
        rag.insert([Document(id="a", text="Marie Curie discovered radium."),
                    Document(id="b", text="Albert Einstein lived in Bern.")])
    with VizRAG(dst, show_progress=False) as rag:
        rag.insert([Document(id="a", text="Another corpus's note a.")])
    return src, dst


def test_copy_store_reports_the_replaced_documents(tmp_path: Path) -> None:
    src, dst = _stores(tmp_path)
    with open_store(src) as s, open_store(dst) as d:
        report = copy_store(s, d, show_progress=False)
    assert report.documents_replaced == ["a"] and report.documents_copied == 2


def test_vizrag_migrate_says_what_it_replaced(tmp_path: Path) -> None:
    src, dst = _stores(tmp_path)
    code, out, err = run_cli(["migrate", "--from", str(src), "--to", str(dst), "--no-progress"])
    assert code == 0, err
    assert ("replaced 1 document(s) the destination held with other content: 'a' (the "
            "source's version is kept)") in out
    code, out, err = run_cli(["migrate", "--from", str(src), "--to", str(dst), "--json",
                              "--no-progress"])
    assert json.loads(out)["documents_replaced"] == []  # a resumed copy replaces none
