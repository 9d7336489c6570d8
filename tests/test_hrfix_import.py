"""Fixes of the Hyper-RAG import: re-import of a grown working dir, stale documents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.cli import main
from hyperviz_core.interop.hyperrag_import import import_hyperrag
from hyperviz_core.interop.hyperrag_write import build_workdir, write_workdir
from hyperviz_core.rag.store import open_store

DOCS = {"doc-1": "Vienna is the capital of Austria.", "doc-2": "Graz is a city in Austria."}


def _vertex(desc: str, src: str, typ: str = "GEO", props: str = "") -> dict[str, str]:
    return {"entity_type": typ, "description": desc, "source_id": src,
            "additional_properties": props}


def _workdir(grown: bool) -> tuple[dict[str, str], dict[str, Any], dict[Any, Any]]:
    """Two documents; ``grown``: Hyper-RAG inserted a third that appends a ``<SEP>`` line
    (and a property, a keyword, weight) to the records the older chunks share."""
    docs = dict(DOCS)
    austria = _vertex("Austria is a country.", "chunk-1<SEP>chunk-2", props="eu")
    edge = {"description": "Vienna is in Austria.", "keywords": "capital",
            "source_id": "chunk-1", "weight": 2.0}
    verts: dict[str, Any] = {"VIENNA": _vertex("The capital.", "chunk-1"),
                             "GRAZ": _vertex("A city.", "chunk-2"), "AUSTRIA": austria}
    if grown:
        docs["doc-3"] = "Austria borders Vienna's neighbours."
        austria["description"] += "<SEP>Austria has neighbours."
        austria["source_id"] += "<SEP>chunk-3"
        austria["additional_properties"] += "<SEP>alpine"
        edge = {"description": edge["description"] + "<SEP>Both border.",
                "keywords": "capital<SEP>border", "source_id": "chunk-1<SEP>chunk-3",
                "weight": 5.0}
    return docs, verts, {("AUSTRIA", "VIENNA"): edge}


def _write(path: Path, grown: bool) -> Path:
    docs, verts, edges = _workdir(grown)
    write_workdir(build_workdir(docs, verts, edges, dim=8), path)
    return path


def _dump(store_path: Path) -> dict[str, Any]:
    """Every document's stored extraction, and the merged entities and hyperedges."""
    with open_store(store_path) as st:
        out: dict[str, Any] = {}
        for doc in sorted(d.id for d in st.documents()):
            for ex in st.extractions(doc):
                out[ex.chunk_id] = ex.model_dump()
        g = st.bottom()
        out["entities"] = {k: e.model_dump() for k, e in sorted(g.entities.items())}
        out["hyperedges"] = {k: h.model_dump() for k, h in sorted(g.hyperedges.items())}
        return out


def test_reimport_of_a_grown_workdir_equals_a_fresh_import(tmp_path: Path) -> None:
    old, grown = _write(tmp_path / "old", False), _write(tmp_path / "grown", True)
    sync, fresh = tmp_path / "sync", tmp_path / "fresh"
    import_hyperrag(old, sync, show_progress=False)
    rep = import_hyperrag(grown, sync, show_progress=False)
    assert (rep.documents_added, rep.documents_replaced) == (1, 2)  # both mention AUSTRIA
    import_hyperrag(grown, fresh, show_progress=False)
    assert _dump(sync) == _dump(fresh)
    again = import_hyperrag(grown, sync, show_progress=False)
    assert again.documents_skipped == 3 and again.documents_replaced == 0  # still a no-op


def test_deleting_the_new_document_leaves_what_a_fresh_import_leaves(tmp_path: Path) -> None:
    old, grown = _write(tmp_path / "old", False), _write(tmp_path / "grown", True)
    sync, fresh = tmp_path / "sync", tmp_path / "fresh"
    import_hyperrag(old, sync, show_progress=False)
    import_hyperrag(grown, sync, show_progress=False)
    import_hyperrag(grown, fresh, show_progress=False)
    for path in (sync, fresh):
        with open_store(path) as st:
            st.delete_document("doc-3")
            assert "Austria has neighbours." in st.bottom().entities["austria"].description


# ---------------------------------------------------------------------------- 6: stale documents
def test_reimport_names_stale_documents_and_prune_removes_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, grown = _write(tmp_path / "old", False), _write(tmp_path / "grown", True)
    store = tmp_path / "store"
    import_hyperrag(grown, store, show_progress=False)
    rep = import_hyperrag(old, store, show_progress=False)  # doc-3 is gone from the dir
    assert rep.stale_documents == ["doc-3"] and rep.documents_pruned == 0
    assert any("'doc-3'" in line and "--prune" in line for line in rep.lines())
    with open_store(store) as st:
        assert st.has_document("doc-3")  # kept: only named
    assert main(["import-hyperrag", str(old), "--store", str(store), "--no-progress",
                 "--prune"]) == 0
    out = capsys.readouterr().out
    assert "pruned 1 document(s)" in out and "'doc-3'" in out
    with open_store(store) as st:
        assert not st.has_document("doc-3") and st.has_document("doc-1")
    again = import_hyperrag(old, store, show_progress=False)
    assert again.stale_documents == [] and not any("note:" in x for x in again.lines())


def test_documents_of_other_commands_are_never_stale(tmp_path: Path) -> None:
    from hyperviz_core.rag import Document, VizRAG

    store = tmp_path / "store"
    rag = VizRAG(str(store), show_progress=False)
    rag.insert([Document(id="mine", text="Marie Curie worked in Paris.")])
    rag.store.close()
    rep = import_hyperrag(_write(tmp_path / "old", False), store, show_progress=False,
                          prune=True)
    assert rep.stale_documents == [] and rep.documents_pruned == 0


# ---------------------------------------------------------------------------- 5: expansion
def _many_chunks(path: Path, n: int, desc_len: int) -> Path:
    """``n`` one-chunk documents all sourcing one vertex with a long description."""
    from hyperviz_core.interop.hyperrag_read import ChunkRow

    docs = {f"doc-{i}": f"Vienna note {i}." for i in range(n)}
    chunks = {f"chunk-{i}": ChunkRow(f"chunk-{i}", f"Vienna note {i}.", f"doc-{i}", 0, 3)
              for i in range(n)}
    src = "<SEP>".join(chunks)
    verts = {"VIENNA": _vertex("x" * desc_len, src)}
    write_workdir(build_workdir(docs, verts, {("VIENNA",): {
        "description": "e", "keywords": "k", "source_id": src, "weight": 1.0}},
        chunks=chunks, dim=8), path)
    return path


def test_a_long_description_in_many_chunks_counts_once_per_chunk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store keeps a copy of a description per chunk mention: 100 chunks of a 3,000
    character description are 300,000 characters from a file of about 6 kB."""
    from hyperviz_core.interop import HyperRAGFormatError, hyperrag_pickle
    from hyperviz_core.interop.hyperrag_read import read_workdir

    monkeypatch.setattr(hyperrag_pickle, "EXPAND_BASE", 0)  # the per-byte bound alone
    wd = _many_chunks(tmp_path / "wd", 100, 3000)
    size = (wd / "hypergraph_chunk_entity_relation.hgdb").stat().st_size
    assert 3000 * 100 > hyperrag_pickle.EXPAND_PER_BYTE * size > 3000 + size
    for read in (lambda: read_workdir(wd), lambda: import_hyperrag(wd, tmp_path / "s")):
        with pytest.raises(HyperRAGFormatError, match="once per chunk of its source_id"):
            read()
    assert not (tmp_path / "s").exists()
    small = _many_chunks(tmp_path / "ok", 3, 3000)  # three copies: within the bound
    assert import_hyperrag(small, tmp_path / "s2", show_progress=False).documents_added == 3
