"""``vizrag import-hyperrag`` and ``vizrag export``, and the store commands afterwards."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
from interop_fakes import HYPERRAG_DIR, fixture_copy

from hyperviz_core import Hypergraph
from hyperviz_core.cli import main


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "store"
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(path),
                 "--no-progress"]) == 0
    return path


def test_import_prints_counts_and_is_idempotent(store: Path, capsys: pytest.CaptureFixture[str]
                                                ) -> None:
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert (rep["documents"], rep["chunks"], rep["vertices"], rep["hyperedges"]) == (
        28, 29, 348, 666)
    assert (rep["documents_added"], rep["documents_skipped"]) == (0, 28)
    assert rep["store_stats"]["relation_hyperedges"] == 666


def test_import_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(tmp_path / "s"),
                 "--reuse-embeddings", "--embed", "hashing:64", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert "28 documents, 29 chunks, 348 vertices (32 UNKNOWN), 666 hyperedges" in out
    assert "28 added" in out
    assert "embeddings: reused Hyper-RAG's 64-d vectors" in out
    assert "entities 348, relation hyperedges 666" in out
    # re-run without --embed: the store's recorded embedder, as vizrag index does
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(tmp_path / "s"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "0 added, 0 replaced, 28 unchanged" in out
    assert ("embeddings: nothing embedded or reused: no document changed (the store's "
            "vectors are hashing-v5-d64-c34's)") in out


def test_stats_query_render_work_on_the_imported_store(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--store", str(store), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["documents"], stats["entities"]) == (28, 348)
    q = "Which Austrian chess players from Vienna represented Austria in Chess Olympiads?"
    assert main(["query", q, "--store", str(store), "--json", "--no-render", "--top-k", "3"]) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert any("Kindermann" in c["text"] or "Palme" in c["text"] for c in line["chunks"])
    assert main(["query", q, "--store", str(store), "--no-render", "--top-k", "1"]) == 0
    first = next(t for t in capsys.readouterr().out.splitlines() if t.startswith("  [1] "))
    assert first.count("doc-") == 1  # an untitled document is named once, not "id  (id)"
    out = tmp_path / "sub.json"
    assert main(["export", "--store", str(store), "--hif", str(out), "--query", q,
                 "--top-k", "3"]) == 0
    assert "nodes" in capsys.readouterr().err  # stdout: data only
    png = tmp_path / "sub_view.png"
    assert main(["render", str(out), "--out", str(png), "--max-entities", "8",
                 "--max-hyperedges", "6", "--layout", "bi-inc"]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_export_whole_store_and_by_document(store: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    whole = tmp_path / "all.json"
    assert main(["export", "--store", str(store), "--hif", str(whole)]) == 0
    hg = Hypergraph.from_hif(json.loads(whole.read_text("utf-8")))
    assert len(hg.entities) == 348
    assert len(hg.hyperedges) == 666 + 29
    assert hg.metadata["layer"] == "both"  # it said "bottom" though it held the themes
    bottom = tmp_path / "bottom.json"
    assert main(["export", "--store", str(store), "--hif", str(bottom), "--layer", "bottom"]) == 0
    assert len(json.loads(bottom.read_text("utf-8"))["edges"]) == 666
    assert Hypergraph.from_hif(json.loads(bottom.read_text("utf-8"))).metadata["layer"] == "bottom"
    one = tmp_path / "doc.json"
    doc = "doc-c4b651b6b39633e0f45fd4bfe9f87796"  # Vienna Walzer Orchestra
    assert main(["export", "--store", str(store), "--hif", str(one), "--doc", doc]) == 0
    sub = Hypergraph.from_hif(json.loads(one.read_text("utf-8")))
    assert sub.metadata["layer"] == "both"
    assert "Vienna Walzer Orchestra" in sub.entities or "vienna walzer orchestra" in sub.entities
    assert 0 < len(sub.hyperedges) < 666
    capsys.readouterr()
    assert main(["export", "--store", str(store), "--hif", str(one), "--doc", "doc-x"]) == 2
    assert "no document 'doc-x'" in capsys.readouterr().err


def test_errors_are_one_line_and_write_nothing(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    wd = fixture_copy(tmp_path)
    marker = tmp_path / "pwned"

    class _Evil:
        def __reduce__(self) -> tuple[object, ...]:
            return (os.system, (f"touch {marker}",))

    (wd / "hypergraph_chunk_entity_relation.hgdb").write_bytes(pickle.dumps(_Evil()))
    store = tmp_path / "store"
    assert main(["import-hyperrag", str(wd), "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("vizrag import-hyperrag: error: ") and "\n" not in err
    assert "refusing to load it" in err
    assert not marker.exists() and not store.exists()
    assert main(["import-hyperrag", str(tmp_path / "nowhere"), "--store", str(store)]) == 2
    assert "nowhere: no such file or directory" in capsys.readouterr().err
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store),
                 "--llm", "nonsense"]) == 2
    assert "\n" not in capsys.readouterr().err.strip()
    assert main(["export", "--store", str(tmp_path / "none"), "--hif", "x.json"]) == 2
    assert "no VizRAG store" in capsys.readouterr().err
    assert not store.exists()
    for bad, said in ((["--top-k", "0"], "--top-k must be at least 1, got 0"),
                      (["--hops", "9"], "--hops must be between 0 and 3, got 9")):
        assert main(["export", "--store", str(tmp_path / "none"), "--hif", "x.json",
                     "--query", "Who?", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"vizrag export: error: {said}"  # one line, before the store is read
    assert main(["export", "--store", str(tmp_path / "none"), "--hif", "x.json",
                 "--query", "Who?", "--mode", ""]) == 2  # an empty mode is no default
    assert "mode" in capsys.readouterr().err
    assert main(["export", "--store", str(tmp_path / "none"), "--hif", "x.json",
                 "--top-k", "3", "--mode", "naive"]) == 2  # without --query they did nothing
    assert capsys.readouterr().err.strip() == (
        "vizrag export: error: --mode, --top-k apply to --query only (without it the whole "
        "store, or --doc, is exported)")


def test_import_and_export_take_a_postgresql_store(pg_url: str, store: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", pg_url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_added"] == 28
    pg_hif, lite_hif = tmp_path / "pg.json", tmp_path / "lite.json"
    assert main(["export", "--store", pg_url, "--hif", str(pg_hif)]) == 0
    assert main(["export", "--store", str(store), "--hif", str(lite_hif)]) == 0
    assert json.loads(pg_hif.read_text()) == json.loads(lite_hif.read_text())


def test_a_store_url_never_prints_its_password(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--store", "mysql://rag:S3cretPW@db.example/rag"]) == 2
    err = capsys.readouterr().err
    assert "S3cretPW" not in err and "mysql://rag:***@db.example/rag" in err
