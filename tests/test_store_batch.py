"""Batched writes (``add_documents``) and the appending merge of store schema 2 (issues 13, 17).

On both backends: a batch ends exactly as writing its documents one by one (replacements,
repeats and identical re-inserts included); inserting documents in an order where every
write appends (forward) or where every write must rebuild (reverse) gives the same store.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hyperviz_core.rag import HashingEmbedder
from hyperviz_core.rag.extract import HeuristicExtractor, HeuristicThemeExtractor
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.store import DocumentInput, StoreError, StoreProtocol, open_store
from hyperviz_core.rag.types import Document

DATA = Path(__file__).parent / "data" / "musique_sample.json"
BACKENDS = ("sqlite", "postgres")


def _documents(n: int = 14) -> list[Document]:
    rows = json.loads(DATA.read_text())[:n]
    return [Document(id=f"d{i:02d}", text=r["text"], title=r["title"])
            for i, r in enumerate(rows)]


def _item(doc: Document, *, with_vectors: bool = True) -> DocumentInput:
    chunks = chunk_document(doc, 300, 40)
    ex, th = HeuristicExtractor(), HeuristicThemeExtractor()
    extractions = [ex.extract(c) for c in chunks]
    themes = [th.theme(c, e) for c, e in zip(chunks, extractions, strict=True)]
    vectors = None
    if with_vectors and chunks:
        mat = HashingEmbedder().embed([c.text for c in chunks])
        vectors = {"chunk": ([c.id for c in chunks], mat)}
    return DocumentInput(doc=doc, chunks=chunks, extractions=extractions, themes=themes,
                         vectors=vectors)


def _sequence() -> list[DocumentInput]:
    """Documents with a replacement, an identical repeat and a later re-replacement."""
    docs = _documents()
    seq = [_item(d) for d in docs]
    changed = docs[3].model_copy(update={"text": docs[3].text + " Paris is in France."})
    seq.insert(6, _item(changed))                 # replaces d03 (earlier in the same batch)
    seq.insert(9, _item(docs[5]))                 # identical: skipped
    seq.append(_item(docs[3]))                    # back to the first version
    return seq


def _snapshot(store: StoreProtocol) -> dict[str, Any]:
    bottom, top = store.bottom(), store.top()
    keys = sorted(bottom.entities)
    out: dict[str, Any] = {
        "stats": store.stats().model_dump(exclude={"path"}),
        "bottom": bottom.model_dump(),
        "top": top.model_dump(),
        "documents": [d.model_dump() for d in store.documents()],
        "chunks": [c.model_dump() for c in store.chunks()],
        "themes": [t.model_dump() for t in store.themes()],
        "theme_chunks": store.theme_hyperedge_chunks(),
        "entity_chunks": store.entity_chunks(keys),  # type: ignore[attr-defined]
        "neighbourhood": store.neighbourhood(keys[:5], hops=2).model_dump(),  # type: ignore[attr-defined]
    }
    for space in ("entity", "theme", "chunk"):
        ids, mat = store.vectors(space)
        out[f"vectors_{space}"] = (ids, np.round(mat, 3).tolist())
    return out


@pytest.fixture(params=BACKENDS)
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A factory of fresh store locations of one backend."""
    if request.param == "postgres":
        request.getfixturevalue("pg_server")
        return lambda name: str(request.getfixturevalue("pg_url")) if name == "a" else \
            _another_db(request)
    return lambda name: str(tmp_path / name)


def _another_db(request: pytest.FixtureRequest) -> str:
    import psycopg

    from tests.pg_server import database_url

    server = str(request.getfixturevalue("pg_server"))
    name = f"vizrag_batch_{random.randrange(10**9)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return str(database_url(server, name))


def test_batch_equals_one_by_one(spec: Any) -> None:
    seq = _sequence()
    embedder = HashingEmbedder()
    with open_store(spec("a")) as one:
        statuses_one = [one.add_document(it.doc, it.chunks, it.extractions, it.themes,
                                         it.vectors, embedder=embedder).status for it in seq]
        expected = _snapshot(one)
    with open_store(spec("b")) as many:
        statuses, embedded, rng, i = [], 0, random.Random(3), 0
        while i < len(seq):
            size = rng.choice((1, 3, 5, 8))
            batch = many.add_documents(seq[i:i + size], embedder=embedder)
            statuses += [w.status for w in batch.writes]
            embedded += batch.embedded
            assert sum(w.embedded for w in batch.writes) == batch.embedded
            i += size
        assert statuses == statuses_one
        assert statuses.count("skipped") == 1 and statuses.count("replaced") == 2
        assert embedded > 0
        assert _snapshot(many) == expected
        assert many.check() == []


def test_whole_sequence_in_one_call(spec: Any) -> None:
    seq = _sequence()
    with open_store(spec("a")) as one:
        for it in seq:
            one.add_document(it.doc, it.chunks, it.extractions, it.themes, it.vectors,
                             embedder=HashingEmbedder())
        expected = _snapshot(one)
    with open_store(spec("b")) as many:
        batch = many.add_documents(seq, embedder=HashingEmbedder())
        # d03 repeats twice: the batch is cut before each repeat
        assert batch.transactions == 3
        assert [w.doc_id for w in batch.writes] == [it.doc.id for it in seq]
        assert _snapshot(many) == expected


def test_append_and_rebuild_paths_agree(spec: Any) -> None:
    """Forward id order appends to stored rows, reverse order rebuilds them from every
    mention: the merged rows (and everything read from them) are the same."""
    items = [_item(d) for d in _documents()]
    with open_store(spec("a")) as fwd:
        for it in items:
            fwd.add_documents([it], embedder=HashingEmbedder())
        forward = _snapshot(fwd)
    with open_store(spec("b")) as rev:
        for it in reversed(items):
            rev.add_documents([it], embedder=HashingEmbedder())
        assert _snapshot(rev) == forward


def test_sources_are_sorted_chunk_ids(tmp_path: Path) -> None:
    items = [_item(d) for d in _documents(8)]
    with open_store(tmp_path / "s") as store:
        store.add_documents(items, embedder=HashingEmbedder())
        chunk_ids = set(store.chunk_ids())
        for ent in store.bottom().entities.values():
            assert ent.source_ids == sorted(set(ent.source_ids)) and ent.source_ids
            assert set(ent.source_ids) <= chunk_ids
        for edge in store.bottom().hyperedges.values():
            assert edge.source_ids == sorted(set(edge.source_ids)) and edge.source_ids


def test_invalid_item_writes_nothing(tmp_path: Path) -> None:
    good = _item(_documents(1)[0])
    bad = _item(_documents(2)[1])
    bad = bad.model_copy(update={"chunks": [c.model_copy(update={"doc_id": "other"})
                                            for c in bad.chunks]})
    with open_store(tmp_path / "s") as store:
        with pytest.raises(StoreError, match="do not belong to document 'd01'"):
            store.add_documents([good, bad])
        assert store.stats().documents == 0


def test_compact_keeps_contents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli import main

    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(json.loads(DATA.read_text())[:12]))
    assert main(["index", str(corpus), "--store", str(tmp_path / "n"), "--no-progress",
                 "--no-compact"]) == 0
    assert "compacted:" not in capsys.readouterr().out
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    assert "compacted:" in capsys.readouterr().out  # a run that filled an empty store
    with open_store(tmp_path / "n") as plain, open_store(tmp_path / "s") as packed:
        assert _snapshot(plain) == _snapshot(packed)
    with open_store(tmp_path / "s") as store:
        before = _snapshot(store)
        size = (tmp_path / "s" / "vizrag.sqlite").stat().st_size
        freed = store.compact()  # type: ignore[attr-defined]
        assert freed >= 0
        assert (tmp_path / "s" / "vizrag.sqlite").stat().st_size <= size
        assert _snapshot(store) == before and store.check() == []
    capsys.readouterr()
    more = tmp_path / "more.json"
    more.write_text(json.dumps(json.loads(DATA.read_text())[12:16]))
    assert main(["index", str(more), "--store", str(tmp_path / "s"), "--no-progress",
                 "--compact"]) == 0
    assert "compacted:" in capsys.readouterr().out


CHILD = r"""
import json, sys
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import open_store
store = open_store(sys.argv[1])
orig = store.add_documents
def add(items, **kw):
    items = list(items)
    print("writing", len(items), flush=True)
    return orig(items, **kw)
store.add_documents = add
docs = [Document(text=p["text"], title=p["title"]) for p in json.load(open(sys.argv[2]))]
Indexer(store, show_progress=False, concurrency=8, chunk_size=300, chunk_overlap=40).index(docs)
print("done", flush=True)
"""


def test_killed_batch_commit_leaves_whole_batches(tmp_path: Path) -> None:
    """A writer killed during a group commit loses that batch whole; resuming ends with the
    store a single uninterrupted run writes."""
    import os
    import signal
    import subprocess
    import sys

    from hyperviz_core.rag import Indexer

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "s"), str(DATA)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd=root)
    assert proc.stdout is not None
    committed, sizes = 0, []
    try:
        for line in proc.stdout:
            if line.startswith("writing"):
                sizes.append(int(line.split()[1]))
                if len(sizes) == 3:
                    proc.send_signal(signal.SIGKILL)
                    break
    finally:
        proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert max(sizes) > 1  # documents were committed in batches
    committed = sum(sizes[:2])  # the batches before the killed one
    docs = [Document(text=r["text"], title=r["title"]) for r in json.loads(DATA.read_text())]
    with open_store(tmp_path / "s") as store:
        n = store.stats().documents
        assert committed <= n <= committed + sizes[2]
        assert store.check() == []
        report = Indexer(store, show_progress=False, chunk_size=300, chunk_overlap=40).index(docs)
        assert report.documents_skipped == n
        resumed = _snapshot(store)
    with open_store(tmp_path / "ref") as ref:
        Indexer(ref, show_progress=False, chunk_size=300, chunk_overlap=40).index(docs)
        assert resumed == _snapshot(ref)
