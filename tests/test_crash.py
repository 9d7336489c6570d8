"""Crash safety: SIGKILL an indexing subprocess mid-run, then check and resume the store.

The child indexes real MuSiQue passages offline and prints a line just before each document
transaction starts; the parent kills it with SIGKILL a random few milliseconds after the
k-th such line (random k per seed), so kills land inside and between transactions.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.index.indexer import Indexer
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.types import Document

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys
from hyperviz_core.rag.index.indexer import Indexer
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.types import Document

store = HypergraphStore(sys.argv[1])
orig = store.add_documents  # the indexer writes through add_documents
def add(*a, **kw):
    print("writing", flush=True)
    out = orig(*a, **kw)
    print("written", flush=True)
    return out
store.add_documents = add
docs = [Document(text=p["text"], title=p["title"]) for p in json.load(open(sys.argv[2]))]
print("ready", flush=True)
Indexer(store, show_progress=False, concurrency=4, chunk_size=300, chunk_overlap=40,
        max_batch_documents=1).index(docs)  # one document per transaction
print("done", flush=True)
"""


def _docs(data_dir: Path) -> list[Document]:
    return [Document(text=p["text"], title=p["title"])
            for p in json.loads((data_dir / "musique_sample.json").read_text())]


def _indexer(store: HypergraphStore) -> Indexer:
    return Indexer(store, show_progress=False, concurrency=4, chunk_size=300, chunk_overlap=40)


def _assert_complete(store: HypergraphStore, docs: dict[str, Document]) -> None:
    assert store.check() == []
    themed = {t.chunk_id for t in store.themes()}
    vec_ids = set(store.vectors("chunk")[0])
    for stored in store.documents():
        want = [c.id for c in chunk_document(docs[stored.id], 300, 40)]
        assert store.chunk_ids(stored.id) == want, f"partial chunks for {stored.id}"
        assert set(want) <= themed and set(want) <= vec_ids
    s = store.stats()
    assert s.chunks == len(store.chunk_doc_ids()) == s.vectors["chunk"] == s.themes
    assert s.vectors["entity"] == s.entities
    # a compact store (issue 17) keeps no hyperedge vectors
    kept = "hyperedge" in store.vector_spaces()
    assert s.vectors["hyperedge"] == (s.relation_hyperedges if kept else 0)
    assert s.vectors["theme"] == s.theme_hyperedges


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, data_dir_module: Path) -> dict:
    store = HypergraphStore(tmp_path_factory.mktemp("ref") / "ref")
    _indexer(store).index(_docs(data_dir_module))
    out = {"stats": store.stats().model_dump(exclude={"path"}),
           "bottom": store.bottom().model_dump(), "top": store.top().model_dump()}
    store.close()
    return out


@pytest.fixture(scope="module")
def data_dir_module() -> Path:
    return Path(__file__).parent / "data"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_mid_indexing_then_resume(
    seed: int, tmp_path: Path, data_dir_module: Path, reference: dict
) -> None:
    rng = random.Random(seed)
    docs = _docs(data_dir_module)
    by_id = {d.id: d for d in docs}
    store_dir = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(store_dir), str(data_dir_module / "musique_sample.json")],
        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    assert proc.stdout is not None
    kill_after = rng.randint(1, len(docs) - 5)
    writes = 0
    try:
        for line in proc.stdout:
            if line.startswith("writing"):
                writes += 1
                if writes == kill_after:
                    time.sleep(rng.uniform(0.0, 0.012))
                    proc.send_signal(signal.SIGKILL)
                    break
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL

    store = HypergraphStore(store_dir)
    n = store.stats().documents
    assert kill_after - 1 <= n < len(docs)  # the in-flight document is all or nothing
    _assert_complete(store, by_id)
    report = _indexer(store).index(docs)
    assert report.documents_skipped == n and report.documents_added == len(docs) - n
    _assert_complete(store, by_id)
    assert store.stats().model_dump(exclude={"path"}) == reference["stats"]
    assert store.bottom().model_dump() == reference["bottom"]
    assert store.top().model_dump() == reference["top"]
    store.close()
