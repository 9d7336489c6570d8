"""Helpers of the offline-BM25 script tests (Thai/Lao/Khmer/Myanmar, combining marks): a
store's derived FTS5 objects put back to an older version, and the queries a store must
answer with the document they name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.rag import Document, HashingEmbedder, VizRAG
from hyperviz_core.rag.providers.spec import matched_embedder
from hyperviz_core.rag.retrieve.lazy import LazyCorpus
from hyperviz_core.rag.retrieve.state import Corpus
from hyperviz_core.rag.store.sqlite import fts


@pytest.fixture(autouse=True)
def always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are small: make the default (auto) read lazily from the first chunk
    (autouse in every module that imports it)."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def insert_docs(rag: VizRAG, docs: list[tuple[str, str]]) -> None:
    """Insert untitled documents given as (id, text)."""
    rag.insert([Document(id=i, text=text) for i, text in docs])


def check_queries(store: str | Path, queries: dict[str, str], *, lazy: bool) -> None:
    """Each query's top chunk is from the document it names, on the lazy or loaded path."""
    rag = VizRAG(store, show_progress=False)
    rag.retriever.lazy = lazy
    for query, doc in queries.items():
        res = rag.retrieve(query, mode="vizrag", render=False)
        assert res.chunks and res.chunks[0].doc_id == doc, (query, lazy)
    assert isinstance(rag.retriever.query_corpus(), LazyCorpus if lazy else Corpus)
    rag.close()


def assert_older_index_rebuilt(path: Path, version: int, queries: dict[str, str],
                               tokenizer: str = "") -> None:
    """Give the SQLite store at ``path`` the derived objects of ``version`` (the current
    ones renamed, ``tokenizer`` left out of the FTS5 table's options, bodies without titles,
    every BM25 length 1), then check that the next lazy query drops them, makes the current
    ones and answers ``queries``, and that nothing stored changed."""
    old = f"_v{version}"
    conn = sqlite3.connect(path / "vizrag.sqlite")
    for name in fts._NAMES[5:]:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in (fts._INST, fts.FTS_TABLE, fts.LENGTHS, fts.TERMS):
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    for statement in fts._CREATE:
        current = statement.replace(f"_v{fts._VERSION}", old)
        conn.execute(current.replace(tokenizer, "") if tokenizer else current)
    conn.execute(f"INSERT INTO vizrag_chunk_fts{old}(rowid, body) SELECT rowid, text FROM chunks")
    conn.execute(f"INSERT INTO vizrag_chunk_bm25{old} SELECT rowid, 1, 0 FROM chunks")
    before = conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    conn.commit()
    conn.close()
    check_queries(path, queries, lazy=True)
    conn = sqlite3.connect(path / "vizrag.sqlite")
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    after = conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    conn.close()
    assert not [n for n in names if old in n] and fts.FTS_TABLE in names
    assert after == before


def check_new_store(store: str | Path, docs: list[tuple[str, str]],
                    queries: dict[str, str]) -> None:
    """Insert ``docs`` into the store at ``store`` (a folder or a PostgreSQL URL), then
    :func:`check_queries` on the lazy and on the loaded path."""
    with VizRAG(store, show_progress=False) as rag:
        insert_docs(rag, docs)
    check_queries(store, queries, lazy=True)
    check_queries(store, queries, lazy=False)


def check_dense(path: Path, docs: list[tuple[str, str]], embedder: str,
                queries: dict[str, str]) -> None:
    """A new store at ``path`` of ``docs`` is embedded with ``embedder`` (today's default)
    and each query's top ``naive`` (dense) chunk is from the document it names."""
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, docs)
        assert rag.embedder.name == embedder
        for query, doc in queries.items():
            assert rag.retrieve(query, mode="naive", render=False).chunks[0].doc_id == doc


def assert_older_embedder_kept(path: Path, old: HashingEmbedder, docs: list[tuple[str, str]],
                               added: tuple[str, str], query: str) -> None:
    """A store at ``path`` embedded with the older hashed embedder ``old`` is opened with
    today's default, yet queried and extended with ``old`` (whose vectors it holds, as
    :func:`~hyperviz_core.rag.providers.spec.matched_embedder` chooses): the document
    ``added`` (id, text) then ranks first for ``query``."""
    given = matched_embedder(HashingEmbedder(), (old.name, old.dim))
    assert given is not None and given.name == old.name
    with VizRAG(path, embedder=old, show_progress=False) as rag:
        insert_docs(rag, docs)
    with VizRAG(path, embedder=HashingEmbedder(), show_progress=False) as rag:
        assert rag.embedder.name == old.name
        insert_docs(rag, [added])
        assert rag.retrieve(query, mode="naive", render=False).chunks[0].doc_id == added[0]
        assert rag.store.embedder_info() == (old.name, old.dim)


def check_embedder_flag(old: HashingEmbedder, names: tuple[str, str], flag: str,
                        pair: list[str], below: float, unchanged: list[str]) -> None:
    """The default hashed embedder against ``old``, made with ``flag=False``: their names,
    ``old``'s repr naming the flag, the two texts of ``pair`` the same vector for the default
    (cosine 1) and apart for ``old`` (under ``below``), and ``unchanged`` (texts the flag
    does not touch) the very same vectors from both."""
    new = HashingEmbedder()
    assert (new.name, old.name) == names
    assert repr(old).endswith(f"{flag}=False)") and repr(new).endswith("(3, 4))")
    v, w = new.embed(pair), old.embed(pair)
    assert float(v[0] @ v[1]) == pytest.approx(1.0) and float(w[0] @ w[1]) < below
    assert np.array_equal(new.embed(unchanged), old.embed(unchanged))
