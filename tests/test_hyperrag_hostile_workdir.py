"""Hostile Hyper-RAG working dirs beyond crafted opcodes: a pickle whose memo shares one long
text with every record (amplification), files that are not regular files (a symlink to a
device, a FIFO, a directory) or too large, and document ids colliding with documents that
another command stored. Each is a one-line error before anything is written; the limits
are module constants, lowered here to keep the inputs small."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import pickle
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from interop_fakes import HYPERRAG_DIR, fixture_copy

from hyperviz_core.cli import main
from hyperviz_core.interop import (
    DocumentConflictError,
    HyperRAGFormatError,
    import_hyperrag,
    load_hgdb,
    read_workdir,
)
from hyperviz_core.interop.hyperrag_import import read_for_import
from hyperviz_core.interop.hyperrag_stream import read_hgdb_rows
from hyperviz_core.interop.hyperrag_vdb import read_vdb_lazy
from hyperviz_core.rag import Document, HypergraphStore, VizRAG

HG = "hypergraph_chunk_entity_relation.hgdb"
CACHE = "kv_store_llm_response_cache.json"
DOCS = "kv_store_full_docs.json"
PICKLE, FILES = "hyperviz_core.interop.hyperrag_pickle", "hyperviz_core.interop.hyperrag_files"


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in this thread after ``seconds`` (a blocked open() included)."""
    def fail(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still blocked after {seconds} s")

    old = signal.signal(signal.SIGALRM, fail)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _one_line(exc: BaseException, *parts: str) -> None:
    text = str(exc)
    assert "\n" not in text and len(text) < 400, text
    for part in parts:
        assert part in text, (part, text)


# ------------------------------------------------------------- 1: memo-shared long texts
def amplified(records: int, size: int) -> dict[str, Any]:
    """Hypergraph-DB data whose every vertex and hyperedge holds the same ``size``-character
    description object: pickled once, referenced from the memo ``2 * records`` times."""
    big = "Lorem ipsum " * (size // 12)
    names = [f"ENTITY {i}" for i in range(records)]
    v = {n: {"entity_type": "PERSON", "description": big, "source_id": "chunk-x"} for n in names}
    e = {(names[i], names[i + 1]): {"description": big, "keywords": "k", "source_id": "chunk-x",
                                    "weight": 1.0} for i in range(records - 1)}
    return {"v_data": v, "v_inci": collections.defaultdict(set), "e_data": e}


@pytest.mark.parametrize("proto", [4, 1])  # 4: streamed, 1: the restricted unpickler
def test_a_long_text_shared_by_every_record_is_refused(tmp_path: Path, proto: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{PICKLE}.EXPAND_BASE", 0, raising=False)  # 16 per byte only
    path = tmp_path / HG
    path.write_bytes(pickle.dumps(amplified(200, 3000), protocol=proto, fix_imports=False))
    assert path.stat().st_size < 25_000  # ~1.2 MB of text once expanded
    for read in (read_hgdb_rows, load_hgdb):
        with pytest.raises(HyperRAGFormatError, match="each shared string counted") as err:
            read(path)
        _one_line(err.value, str(path), "EXPAND_PER_BYTE")


def test_the_fixture_is_far_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{PICKLE}.EXPAND_BASE", 0)
    monkeypatch.setattr(f"{PICKLE}.EXPAND_PER_BYTE", 2)  # it holds 1.16 per byte (each
    # record's texts counted once per source chunk)
    for read in (read_hgdb_rows, load_hgdb):
        assert len(read(HYPERRAG_DIR / HG).edges) == 666


def test_the_cli_refuses_an_amplifying_pickle_and_creates_no_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(f"{PICKLE}.EXPAND_BASE", 0, raising=False)
    wd = fixture_copy(tmp_path)
    (wd / HG).write_bytes(pickle.dumps(amplified(200, 3000), protocol=4))
    store = tmp_path / "store"
    assert main(["import-hyperrag", str(wd), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vizrag import-hyperrag: error: {wd / HG}: its texts")
    assert len(err.splitlines()) == 1 and not store.exists()
    with pytest.raises(HyperRAGFormatError, match="each shared string counted"):
        import_hyperrag(wd, store, show_progress=False)
    assert not store.exists()


# ------------------------------------------------------ 2: not a regular file, too large
@pytest.mark.parametrize("name", [CACHE, DOCS, "vdb_entities.json", "vdb_relationships.json",
                                  HG])
def test_a_symlink_to_a_device_is_refused(tmp_path: Path, name: str) -> None:
    wd = fixture_copy(tmp_path)
    (wd / name).unlink(missing_ok=True)
    (wd / name).symlink_to("/dev/null")  # /dev/zero would never end (unguarded: OOM)
    for read in (read_workdir, lambda p: read_for_import(p, reuse_embeddings=True)):
        with pytest.raises(HyperRAGFormatError, match="is a character device, not a regular "
                                                      "file") as err:
            read(wd)
        _one_line(err.value, str(wd / name))


@pytest.mark.parametrize("name", [CACHE, "vdb_chunks.json", HG])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, name: str) -> None:
    wd = fixture_copy(tmp_path)
    (wd / name).unlink(missing_ok=True)
    os.mkfifo(wd / name)  # unguarded: open() waits for a writer forever
    with deadline(5), pytest.raises(HyperRAGFormatError, match=r"is a FIFO \(named pipe\)"):
        read_for_import(wd, reuse_embeddings=True)


def test_a_vdb_file_swapped_for_a_fifo_after_the_check_is_refused(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    vdb = read_vdb_lazy(wd / "vdb_entities.json", "entity_name")
    assert vdb.lazy is not None
    (wd / "vdb_entities.json").unlink()
    os.mkfifo(wd / "vdb_entities.json")
    with deadline(5), pytest.raises(HyperRAGFormatError, match="FIFO"):
        vdb.lazy.take([0])


def test_a_directory_and_symlinked_regular_files(tmp_path: Path) -> None:
    wd = fixture_copy(tmp_path)
    for f in wd.iterdir():  # symlinks to regular files are read as the files
        f.unlink()
        f.symlink_to(HYPERRAG_DIR / f.name)
    assert len(read_workdir(wd).docs) == 28
    (wd / CACHE).unlink(missing_ok=True)
    (wd / CACHE).mkdir()
    with pytest.raises(HyperRAGFormatError, match="is a directory, not a regular file"):
        read_workdir(wd)


@pytest.mark.parametrize(("limit", "name"), [("MAX_JSON_BYTES", "vdb_entities.json"),
                                                     ("MAX_HGDB_BYTES", HG)])
def test_a_file_over_the_size_limit_is_refused_naming_the_limit(
        tmp_path: Path, limit: str, name: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    wd = fixture_copy(tmp_path)
    monkeypatch.setattr(f"{FILES}.{limit}", 20 << 10)  # the fixture's files: 23-341 kB
    store = tmp_path / "store"
    assert main(["import-hyperrag", str(wd), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and not store.exists()
    assert f"{wd / name}: " in err and "more than the 20 KiB limit for a Hyper-RAG" in err
    assert f"(hyperrag_files.{limit})" in err


# ------------------------------------------------------- 3: ids another command stored
def _indexed_store(path: Path, doc_id: str) -> None:
    with VizRAG(path, show_progress=False) as rag:
        rag.insert([Document(id=doc_id, title="My notes", text="Alice met Bob in Vienna.")])


def _first_doc_id() -> str:
    return sorted(json.loads((HYPERRAG_DIR / DOCS).read_text("utf-8")))[0]


def test_an_import_never_replaces_an_indexed_document_silently(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, doc_id = tmp_path / "store", _first_doc_id()
    _indexed_store(store, doc_id)
    args = ["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store), "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"not written by a Hyper-RAG import: '{doc_id}'" in err
    assert "--replace-documents" in err
    with HypergraphStore(store) as s:  # nothing written
        assert s.stats().documents == 1
        doc = s.get_document(doc_id)
        assert doc is not None and doc.text == "Alice met Bob in Vienna."
    with pytest.raises(DocumentConflictError, match=doc_id):
        import_hyperrag(HYPERRAG_DIR, store, show_progress=False)
    assert main([*args, "--replace-documents", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert (rep["documents_added"], rep["documents_replaced"]) == (27, 1)
    assert main(args) == 0  # now every stored id was written by an import: a no-op
    assert "0 added, 0 replaced, 28 unchanged" in capsys.readouterr().out
