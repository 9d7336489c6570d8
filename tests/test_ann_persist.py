"""Issue 17: the SQLite store's persisted, incrementally updated ANN index of big spaces.

A small ``ann_threshold`` (50) lets tiny stores cross it. Vectors are random 32-d rows given
with the documents (well separated), so HNSW search must equal exact search (up to float16
rounding of near-ties).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.rag import Chunk, Document, ExactVectorIndex, HypergraphStore
from hyperviz_core.rag import ann as ann_module
from hyperviz_core.rag.ann import usearch_available

needs_usearch = pytest.mark.skipif(not usearch_available(),
                                   reason="optional package usearch not installed")
DIM = 32
PER_DOC = 6


def _vec(name: str) -> np.ndarray:
    seed = int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:12], 16)
    return np.random.default_rng(seed).normal(size=DIM).astype(np.float32)


def _add(store: HypergraphStore, *numbers: int, version: str = "") -> list[str]:
    """Documents ``d<n>`` of ``PER_DOC`` chunks each; the chunk ids added."""
    added = []
    for n in numbers:
        doc = Document(id=f"d{n}", text=f"document {n} {version}")
        chunks = [Chunk(id=f"d{n}-c{j}{version}", doc_id=doc.id, text=f"chunk {n} {j}",
                        index=j) for j in range(PER_DOC)]
        ids = [c.id for c in chunks]
        store.add_document(doc, chunks, vectors={"chunk": (ids, np.stack([_vec(i)
                                                                          for i in ids]))})
        added += ids
    return added


def _exact(store: HypergraphStore) -> ExactVectorIndex:
    exact = ExactVectorIndex()
    exact.add(*store.vectors("chunk"))
    return exact


def _same_as_exact(store: HypergraphStore, ids: list[str], k: int = 5) -> None:
    exact = _exact(store)
    rng = np.random.default_rng(3)
    for i in ids[::4]:
        q = _vec(i) + 0.05 * rng.normal(size=DIM).astype(np.float32)
        got, want = store.search("chunk", q, k), exact.search(q, k)
        score = dict(exact.search(q, len(exact)))
        assert len(got) == k and got[0][0] == want[0][0] == i
        # the same ranking up to float16 rounding (near-ties may swap)
        assert all(abs(score[g] - w) < 2e-3 for (g, _), (_, w) in zip(got, want, strict=True))


def _open(path: Path, **kw: object) -> HypergraphStore:
    return HypergraphStore(path, ann_threshold=50, **kw)  # type: ignore[arg-type]


@needs_usearch
def test_built_past_the_threshold_and_equal_to_exact(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        ids = _add(store, *range(10))  # 60 vectors
        index = store.replaced_vector_index("chunk")
        assert index is not None and len(index) == 60
        assert store.vector_index("chunk") is index
        assert store.ann_files.stats["built"] == 1 and store.ann_files.stats["saved"] == 1
        assert (tmp_path / "vizrag.ann" / "chunk.json").is_file()
        assert len(list((tmp_path / "vizrag.ann").glob("chunk-*.usearch"))) == 1
        _same_as_exact(store, ids)
        assert store.replaced_vector_index("entity") is None  # empty space: exact


@needs_usearch
def test_reopen_restores_without_rebuilding(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        ids = _add(store, *range(10))
        before = store.search("chunk", _vec(ids[7]), 5)
    with _open(tmp_path) as store:
        assert store.ann_files.stats.total() == 0  # opening reads no index file
        assert store.search("chunk", _vec(ids[7]), 5) == before
        assert store.ann_files.stats == {"restored": 1}
        assert store.replaced_vector_index("chunk").view  # type: ignore[union-attr]


@needs_usearch
def test_one_build_when_the_writer_closes(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        for n in range(12):  # twelve write transactions, no search
            _add(store, n)
        assert store.ann_files.stats.total() == 0
    assert store.ann_files.stats == {"built": 1, "saved": 1}
    with _open(tmp_path) as store:
        _same_as_exact(store, _exact(store).ids)
        assert store.ann_files.stats == {"restored": 1}


@needs_usearch
def test_added_found_and_deleted_never_returned(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        _add(store, *range(10))
        store.search("chunk", _vec("d0-c0"), 3)
        new = _add(store, 20)
        assert store.search("chunk", _vec(new[2]), 1)[0][0] == new[2]
        assert store.ann_files.stats["built"] == 1 and store.ann_files.stats["updated"] == 1
        gone = [f"d3-c{j}" for j in range(PER_DOC)]
        assert store.delete_document("d3")["chunks"] == PER_DOC
        for i in gone:
            found = {h[0] for h in store.search("chunk", _vec(i), 100)}
            assert len(found) >= 54 and not found & set(gone)  # HNSW: may miss a few
        replaced = _add(store, 4, version="v2")  # a new version of d4: new chunk ids
        old = {f"d4-c{j}" for j in range(PER_DOC)}
        for i in replaced:
            assert store.search("chunk", _vec(i), 1)[0][0] == i
        for i in sorted(old):
            assert not old & {h[0] for h in store.search("chunk", _vec(i), 100)}
        assert store.ann_files.stats["built"] == 1  # every change applied incrementally
        before = store.search("chunk", _vec(new[0]), 100)
    with _open(tmp_path) as store:  # the updated files were saved
        assert store.search("chunk", _vec(new[0]), 100) == before
        assert store.ann_files.stats == {"restored": 1}


@needs_usearch
def test_a_second_store_object_writing_is_seen(tmp_path: Path) -> None:
    with _open(tmp_path) as reader, _open(tmp_path) as writer:
        _add(writer, *range(10))
        reader.search("chunk", _vec("d0-c0"), 1)
        new = _add(writer, 30)
        writer.delete_document("d1")
        assert reader.search("chunk", _vec(new[1]), 1)[0][0] == new[1]
        hits = {h[0] for h in reader.search("chunk", _vec("d1-c0"), 100)}
        assert len(hits) >= 54 and not any(h.startswith("d1-") for h in hits)
        assert reader.ann_files.stats["updated"] == 1


@needs_usearch
def test_another_process_writing_is_seen(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        _add(store, *range(10))
        assert store.search("chunk", _vec("d2-c0"), 1)[0][0] == "d2-c0"
        code = textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(Path(__file__).parent)!r})
            from test_ann_persist import _add, _open
            with _open({str(tmp_path)!r}) as other:
                _add(other, 40)
                other.delete_document("d2")
        """)
        subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
        assert store.search("chunk", _vec("d40-c3"), 1)[0][0] == "d40-c3"
        hits = {h[0] for h in store.search("chunk", _vec("d2-c0"), 100)}
        assert len(hits) >= 54 and not any(h.startswith("d2-") for h in hits)
        # the other process saved its update: this one restored it instead of rebuilding
        assert store.ann_files.stats == {"built": 1, "saved": 1, "restored": 1}


@needs_usearch
@pytest.mark.parametrize("damage", ["graph", "manifest", "keys", "foreign", "missing"])
def test_damaged_or_foreign_files_are_rebuilt(tmp_path: Path, damage: str) -> None:
    with _open(tmp_path) as store:
        ids = _add(store, *range(10))
        store.search("chunk", _vec(ids[0]), 1)
    folder = tmp_path / "vizrag.ann"
    graph = next(folder.glob("chunk-*.usearch"))
    if damage == "graph":
        graph.write_bytes(b"\x07" * graph.stat().st_size)
    elif damage == "manifest":
        (folder / "chunk.json").write_text("{not json", encoding="utf-8")
    elif damage == "keys":
        next(folder.glob("chunk-*.keys.npy")).write_bytes(b"garbage")
    elif damage == "foreign":
        text = (folder / "chunk.json").read_text(encoding="utf-8")
        (folder / "chunk.json").write_text(text.replace('"store": "', '"store": "x'),
                                           encoding="utf-8")
    else:
        graph.unlink()
    with _open(tmp_path) as store:
        _same_as_exact(store, ids)
        assert store.ann_files.stats["rejected"] == 1 and store.ann_files.stats["built"] == 1
    with _open(tmp_path) as store:
        store.search("chunk", _vec(ids[0]), 1)
        assert store.ann_files.stats == {"restored": 1}


@needs_usearch
def test_read_only_store_without_index_searches_exactly(tmp_path: Path) -> None:
    with HypergraphStore(tmp_path, ann_threshold=None) as store:
        ids = _add(store, *range(10))
    with _open(tmp_path, read_only=True) as store, \
            HypergraphStore(tmp_path, ann_threshold=None, read_only=True) as off:
        assert store.replaced_vector_index("chunk") is None  # no build it could not keep
        for i in ids[::7]:
            assert store.search("chunk", _vec(i), 5) == off.search("chunk", _vec(i), 5)
        assert store.ann_files.stats.total() == 0
    assert not (tmp_path / "vizrag.ann").exists()


@needs_usearch
def test_read_only_store_restores_and_catches_up(tmp_path: Path) -> None:
    with _open(tmp_path) as store:
        ids = _add(store, *range(10))
        store.search("chunk", _vec(ids[0]), 1)
        with _open(tmp_path, read_only=True) as reader:
            assert reader.search("chunk", _vec(ids[5]), 1)[0][0] == ids[5]
            new = _add(store, 50)  # the writer does not save until it searches or closes
            assert reader.search("chunk", _vec(new[0]), 1)[0][0] == new[0]
            assert reader.ann_files.stats == {"restored": 1, "updated": 1}


def test_below_the_threshold_exact_and_no_file(tmp_path: Path) -> None:
    with _open(tmp_path) as store, HypergraphStore(tmp_path / "b", ann_threshold=None) as off:
        ids = _add(store, *range(8))  # 48 vectors < 50
        _add(off, *range(8))
        assert store.replaced_vector_index("chunk") is None
        assert isinstance(store.vector_index("chunk"), ExactVectorIndex)
        for i in ids[::5]:
            assert store.search("chunk", _vec(i), 7) == off.search("chunk", _vec(i), 7)
    assert not (tmp_path / "vizrag.ann").exists()


def test_without_usearch_search_is_exact(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ann_module, "usearch_available", lambda: False)
    with _open(tmp_path) as store:
        ids = _add(store, *range(10))
        assert store.replaced_vector_index("chunk") is None
        _same_as_exact(store, ids)
    assert not (tmp_path / "vizrag.ann").exists()


@needs_usearch
def test_retrieval_goes_through_the_persisted_index(tmp_path: Path) -> None:
    from rag_fakes import demo_documents

    from hyperviz_core.rag import VizRAG

    question = "Where did the band form?"
    ranked = {}
    for name, threshold in (("exact", None), ("ann", 50)):
        store = HypergraphStore(tmp_path / name, ann_threshold=threshold)
        with VizRAG(store, show_progress=False) as rag:
            rag.insert(demo_documents(0, 12))
            ranked[name] = [c.chunk_id for c in rag.retrieve(question, render=False).chunks]
            used = sorted(s for s in store.vector_spaces()
                          if store.replaced_vector_index(s) is not None)
        if threshold:
            assert used and store.ann_files.stats["built"] == len(used)
            assert sorted(p.stem for p in (tmp_path / name / "vizrag.ann").glob("*.json")) == used
    assert ranked["ann"] and ranked["ann"][0] == ranked["exact"][0]
    assert len(set(ranked["ann"]) & set(ranked["exact"])) >= 0.8 * len(ranked["exact"])


@needs_usearch
def test_cli_index_ann_threshold(tmp_path: Path) -> None:
    """``vizrag index --ann-threshold N``: the run builds the persisted index of every space
    of N vectors or more at its end; 0 builds none."""
    for name, threshold in (("on", "20"), ("off", "0")):
        assert _index_with_threshold(tmp_path, 12, name, threshold) == 0
    built = sorted(p.stem for p in (tmp_path / "on" / "vizrag.ann").glob("*.json"))
    assert built and set(built) <= {"chunk", "entity", "theme"}
    assert not (tmp_path / "off" / "vizrag.ann").exists()


def test_cli_ann_threshold_without_the_extra_says_so(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Asked for, approximate search without usearch is a notice, not silence; 0 (never)
    asks for nothing."""
    from hyperviz_core.rag import ann

    monkeypatch.setattr(ann, "usearch_available", lambda: False)
    for name, threshold in (("on", "20"), ("off", "0")):
        assert _index_with_threshold(tmp_path, 3, name, threshold) == 0
        err = capsys.readouterr().err
        said = "--ann-threshold needs the 'ann' extra" in err
        assert said == (threshold != "0"), err
        assert not said or "pip install 'vizrag[ann]'" in err


def _index_with_threshold(tmp_path: Path, n: int, name: str, threshold: str) -> int:
    """``vizrag index`` of the first ``n`` demo passages into ``tmp_path/name`` with
    ``--ann-threshold threshold``; its exit code."""
    import json as _json

    from rag_fakes import demo_documents

    from hyperviz_core.cli import main

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(_json.dumps({"id": d.id, "text": d.text}) + "\n"
                              for d in demo_documents(0, n)), encoding="utf-8")
    return main(["index", str(corpus), "--store", str(tmp_path / name), "--no-progress",
                 "--ann-threshold", threshold])
