"""``vizrag index`` / ``stats`` / ``delete`` end to end (offline)."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import pytest

from hyperviz_core.cli import main


def test_index_stats_delete_roundtrip(tmp_path: Path, data_dir: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    corpus = data_dir / "musique_sample.json"
    assert main(["index", str(corpus), "--store", str(store), "--no-progress",
                 "--chunk-size", "600", "--chunk-overlap", "50"]) == 0
    out = capsys.readouterr().out
    assert "indexed 40 documents" in out and "40 added" in out
    assert "documents 40, chunks" in out and "theme hyperedges" in out

    assert main(["stats", "--store", str(store), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["documents"] == 40 and stats["chunks"] >= 40
    for key in ("entities", "relation_hyperedges", "theme_hyperedges", "key_entities"):
        assert stats[key] > 0

    # re-running is a no-op
    assert main(["index", str(corpus), "--store", str(store), "--no-progress", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["documents_skipped"] == 40 and rep["documents_added"] == 0

    assert main(["stats", "--store", str(store)]) == 0
    text = capsys.readouterr().out
    assert "documents 40" in text and "vectors (hashing" in text

    from hyperviz_core.rag.store import HypergraphStore

    with HypergraphStore(store) as s:
        doc_id = s.documents()[0].id
    assert main(["delete", doc_id, "--store", str(store)]) == 0
    assert "deleted 1 document: " in capsys.readouterr().out
    assert main(["delete", "no-such-doc", "--store", str(store)]) == 1
    assert "no document 'no-such-doc'" in capsys.readouterr().err
    assert main(["stats", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 39

    with HypergraphStore(store) as s:
        two = [d.id for d in s.documents()[:2]]
    # several ids: one transaction; an unknown one is named and makes the exit code 1
    assert main(["delete", two[0], "gone", two[1], two[0], "--store", str(store)]) == 1
    captured = capsys.readouterr()
    assert "deleted 2 documents" in captured.out and "no document 'gone'" in captured.err
    with HypergraphStore(store) as s:
        assert s.stats().documents == 37 and not any(s.has_document(i) for i in two)


def test_delete_of_several_ids_is_one_transaction(tmp_path: Path, data_dir: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.store import HypergraphStore
    from hyperviz_core.rag.store.sqlite import writes

    store = tmp_path / "store"
    assert main(["index", str(data_dir / "musique_sample.json"), "--store", str(store),
                 "--no-progress", "--limit", "6"]) == 0
    with HypergraphStore(store) as s:
        ids = [d.id for d in s.documents()[:3]]
    real, calls = writes.delete_rows, []

    def failing_third(conn: object, doc_id: str, *rest: object) -> list[str]:
        calls.append(doc_id)
        if len(calls) == 3:  # the first two documents' rows are deleted by now
            raise RuntimeError("disk gone")
        return real(conn, doc_id, *rest)

    monkeypatch.setattr(writes, "delete_rows", failing_third)
    with pytest.raises(RuntimeError, match="disk gone"):
        main(["delete", *ids, "--store", str(store)])
    with HypergraphStore(store) as s:
        assert all(s.has_document(i) for i in ids) and s.check() == []


def test_index_jsonl_with_fields_and_text_files(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    jl = tmp_path / "c.jsonl"
    jl.write_text(json.dumps({"pid": "p1", "head": "Curie", "body": "Marie Curie met Pierre "
                              "Curie in Paris in 1894."}) + "\n")
    md = tmp_path / "notes.md"
    md.write_text("# Notes\n\nAda Lovelace worked with Charles Babbage in London.\n")
    store = tmp_path / "s.sqlite"
    assert main(["index", str(jl), str(md), "--store", str(store), "--no-progress",
                 "--text-field", "body", "--id-field", "pid", "--title-field", "head",
                 "--chunk-unit", "token", "--chunk-size", "50", "--chunk-overlap", "5",
                 "--concurrency", "2"]) == 0
    capsys.readouterr()
    assert store.is_file()
    from hyperviz_core.rag.store import HypergraphStore

    with HypergraphStore(store) as s:
        assert sorted(d.id for d in s.documents()) == ["notes", "p1"]
        assert s.get_document("p1").title == "Curie"  # type: ignore[union-attr]
        assert "marie curie" in s.bottom().entities


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\nnot json\n')
    assert main(["index", str(bad), "--store", str(tmp_path / "s"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "vizrag index: error:" in err and "bad.jsonl:2" in err
    assert main(["stats", "--store", str(tmp_path / "missing")]) == 2
    assert "no VizRAG store" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"junk" * 100)
    assert main(["stats", "--store", str(junk)]) == 2
    assert "not a usable VizRAG store" in capsys.readouterr().err
    good = tmp_path / "good.txt"
    good.write_text("Some text about Paris.")
    assert main(["index", str(good), "--store", str(tmp_path / "s2"), "--embed", "hashing:x",
                 "--no-progress"]) == 2
    assert "bad --embed" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--llm", "--embed"])
def test_missing_provider_extra_is_one_line(option: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A provider whose extra is not installed is a one-line error naming the extra, not a
    traceback, and the store keeps what it held."""
    store = tmp_path / "s"
    first = tmp_path / "first.txt"
    first.write_text("Paris is the capital of France.")
    assert main(["index", str(first), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "openai", None)  # `import openai` fails as if absent
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    second = tmp_path / "second.txt"
    second.write_text("Berlin is the capital of Germany.")
    assert main(["index", str(second), "--store", str(store), option, "openai:gpt-4o-mini",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"vizrag index: error: {option} 'openai:gpt-4o-mini' is unavailable" in err
    assert "pip install 'vizrag[openai]'" in err and "Traceback" not in err
    assert main(["query", "--store", str(store), "Paris?", option,
                 "openai:gpt-4o-mini"]) == 2
    assert "pip install 'vizrag[openai]'" in capsys.readouterr().err
    assert main(["stats", "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 1


@pytest.mark.parametrize("option", ["--llm", "--embed"])
def test_a_missing_api_key_is_one_line_before_anything_is_written(
        option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    doc = tmp_path / "a.txt"
    doc.write_text("Paris is the capital of France.")
    assert main(["index", str(doc), "--store", str(tmp_path / "s"), option,
                 "openai:gpt-4o-mini", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs an API key: set OPENAI_API_KEY" in err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--chunk-size", "0"], "must be >= 1"),
    (["--chunk-size", "100", "--chunk-overlap", "200"], "must be smaller than --chunk-size"),
    (["--chunk-overlap", "-1"], "must be >= 0"),
    (["--limit", "-1"], "must be >= 1"),
])
def test_bad_chunk_settings_are_refused_up_front(args: list[str], message: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("Paris is the capital of France.")
    with contextlib.suppress(SystemExit):  # argparse exits 2 itself
        assert main(["index", str(doc), "--store", str(tmp_path / "s"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_ctrl_c_keeps_the_committed_documents_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.index import indexer as indexer_module

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Paris is the capital of France.")
    assert main(["index", str(docs), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    (docs / "b.txt").write_text("Berlin is the capital of Germany.")

    def interrupted(self: object, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer_module.Indexer, "index", interrupted)
    capsys.readouterr()
    assert main(["index", str(docs), "--store", str(tmp_path / "s"), "--no-progress"]) == 130
    err = capsys.readouterr().err
    assert "interrupted; the store keeps its 1 committed documents" in err
    assert "Traceback" not in err
    monkeypatch.undo()
    assert main(["index", str(docs), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["stats", "--store", str(tmp_path / "s"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 2


def _mixed_folder(root: Path) -> Path:
    """A folder with one good text file and three unreadable ones (and a JSONL whose first
    record is fine: it must not be half indexed)."""
    root.mkdir()
    (root / "a.txt").write_text("Marie Curie worked in Paris with Pierre Curie.")
    (root / "b.txt").write_bytes(b"Ada Lovelace\xff\xfe wrote notes.")
    (root / "c.jsonl").write_text('{"id": "ok", "text": "Albert Einstein lived in Bern."}\n'
                                  "{oops\n")
    (root / "d.md").write_bytes(b"%PDF-1.7\x00\x01")
    return root


def test_skip_unreadable_leaves_out_whole_files_and_names_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.store import HypergraphStore

    folder = _mixed_folder(tmp_path / "in")
    store = tmp_path / "s"
    assert main(["index", str(folder), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "b.txt: not UTF-8 text" in err
    assert not store.exists()  # stopped before anything was written
    assert main(["index", str(folder), "--store", str(store), "--no-progress",
                 "--skip-unreadable"]) == 0
    out = capsys.readouterr().out
    assert "skipped 3 unreadable file(s)" in out
    for name, why in (("b.txt", "not UTF-8"), ("c.jsonl:2", "invalid JSON"), ("d.md", "binary")):
        assert f"unreadable {folder / name}" in out and why in out
    with HypergraphStore(store) as st:
        assert [d.id for d in st.documents()] == ["a"]  # nothing of c.jsonl, not even "ok"
    assert main(["index", str(folder), "--store", str(tmp_path / "t"), "--no-progress",
                 "--skip-unreadable", "--json"]) == 0
    inp = json.loads(capsys.readouterr().out)["input"]
    assert (inp["read"], inp["kept"], len(inp["unreadable"])) == (1, 1, 3)


def test_skip_unreadable_with_nothing_readable_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "d.md").write_bytes(b"%PDF-1.7\x00\x01")
    assert main(["index", str(folder), "--store", str(tmp_path / "s"), "--no-progress",
                 "--skip-unreadable"]) == 2
    err = capsys.readouterr().err
    assert "no input file could be read (1 skipped)" in err and "d.md" in err
    assert not (tmp_path / "s").exists()


def test_index_without_embed_uses_the_embedder_the_store_recorded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.store import HypergraphStore

    (tmp_path / "a.txt").write_text("Grace Hopper created COBOL.")
    (tmp_path / "b.txt").write_text("Ada Lovelace wrote notes on the Analytical Engine.")
    store = tmp_path / "s"
    assert main(["index", str(tmp_path / "a.txt"), "--store", str(store), "--embed",
                 "hashing:128", "--no-progress"]) == 0
    assert main(["index", str(tmp_path / "b.txt"), "--store", str(store),
                 "--no-progress"]) == 0  # no --embed: the store's 128-d hashed embedder
    with HypergraphStore(store) as st:
        assert st.embedder_info() == ("hashing-v5-d128-c34", 128)
        assert st.stats().documents == 2
    assert main(["index", str(tmp_path / "b.txt"), "--store", str(tmp_path / "new"),
                 "--no-progress"]) == 0  # a new store: the offline default
    with HypergraphStore(tmp_path / "new") as st:
        assert st.embedder_info() == ("hashing-v5-d512-c34", 512)


def test_a_document_without_text_is_reported(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """An empty file is stored (it replaces what the file held before) but named: nothing
    can retrieve it."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Marie Curie lived in Paris.\n")
    (corpus / "b.txt").write_text("Ada Lovelace lived in London.\n")
    store = tmp_path / "s"
    assert main(["index", str(corpus), "--store", str(store), "--no-progress"]) == 0
    assert "without text" not in "".join(capsys.readouterr())
    (corpus / "b.txt").write_text(" \n\n")
    assert main(["index", str(corpus), "--store", str(store), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "1 replaced, 1 unchanged, 0 failed, 1 without text (0 chunks)" in out
    assert "without text (stored with 0 chunks, nothing retrieves it): b" in err
    from hyperviz_core.rag import Document, VizRAG

    with VizRAG(store, show_progress=False) as rag:
        assert "London" not in " ".join(c.text for c in rag.store.chunks())
        report = rag.insert([Document(id="e", text=""), Document(id="f", text="Bern.")])
        assert report.empty_documents == ["e"]


def test_an_unchanged_corpus_says_so_first(tmp_path: Path, data_dir: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Re-indexing an unchanged corpus began "indexed 40 documents into ...", as if it had
    indexed something (a docs review, 2026-12-04)."""
    store, corpus = tmp_path / "store", data_dir / "musique_sample.json"
    assert main(["index", str(corpus), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["index", str(corpus), "--store", str(store), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"40 documents already indexed, unchanged, in {store}")
    assert "0 added, 0 replaced, 40 unchanged" in out
