"""A Hyper-RAG working dir an insert left half-written (Hyper-RAG saves its key-value stores
before its graph) imports with a warning naming the chunks that have no vertex and no
hyperedge; the summary counts UNKNOWN vertices among all vertices, as it counts those."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from interop_fakes import fixture_copy

from hyperviz_core.cli import main

TEXT = "Graz Opera\nThe Graz Opera is an opera house in Graz, Austria."


def test_chunks_without_any_vertex_are_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wd = fixture_copy(tmp_path)
    digest = hashlib.md5(TEXT.encode()).hexdigest()
    chunks = json.loads((wd / "kv_store_text_chunks.json").read_text(encoding="utf-8"))
    chunks[f"chunk-{digest}"] = {"tokens": 14, "content": TEXT, "chunk_order_index": 0,
                                 "full_doc_id": f"doc-{digest}"}
    (wd / "kv_store_text_chunks.json").write_text(json.dumps(chunks), encoding="utf-8")
    docs = json.loads((wd / "kv_store_full_docs.json").read_text(encoding="utf-8"))
    docs[f"doc-{digest}"] = {"content": TEXT}
    (wd / "kv_store_full_docs.json").write_text(json.dumps(docs), encoding="utf-8")
    assert main(["import-hyperrag", str(wd), "--store", str(tmp_path / "s"),
                 "--no-progress"]) == 0
    said = capsys.readouterr()
    assert (f"warning: 1 chunks have no vertex and no hyperedge (Hyper-RAG extracted nothing "
            f"from them, or an insert stopped before its graph was saved: run it again, then "
            f"import again), e.g. 'chunk-{digest}'") in said.out + said.err
    assert "348 vertices (32 UNKNOWN)" in said.out
