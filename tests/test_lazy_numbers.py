"""The integer copies of the incidences and mentions (:mod:`hyperviz_core.rag.store.sqlite.
numbers`): made with a new store, made by the first lazy query of an older one, kept equal
to what the texts say through every write, and read instead of them by lazy retrieval."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_lazy_query import QUESTIONS, _always_lazy, _docs, _key

from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve.lazy import LazyCorpus
from hyperviz_core.rag.store.lookups import pairs
from hyperviz_core.rag.store.sqlite.numbers import (
    _NAMES,
    INCIDENCES,
    MENTIONS,
    numbers_ready,
)

_BY_TEXT = ("SELECT h.rowid, i.position, e.rowid FROM incidences i JOIN hyperedges h ON "
            "h.id = i.hid JOIN entities e ON e.key = i.entity_key WHERE h.kind = ? "
            "ORDER BY h.rowid, i.position")
_MENTIONS_BY_TEXT = ("SELECT c.rowid, e.rowid FROM entity_mentions m JOIN chunks c ON "
                     "c.id = m.chunk_id JOIN entities e ON e.key = m.key ORDER BY 1, 2")


__all__ = ["_always_lazy"]  # the shared autouse fixture: every store reads lazily


def _assert_in_sync(path: Path) -> int:
    """The copies hold exactly what the texts say (every row, nothing stale); their size."""
    conn = sqlite3.connect(path / "vizrag.sqlite")
    try:
        assert numbers_ready(conn)
        total = 0
        for kind in ("relation", "theme"):
            want = conn.execute(_BY_TEXT, (kind,)).fetchall()
            got = conn.execute(f"SELECT h, pos, e FROM {INCIDENCES} WHERE kind = ? "
                               "ORDER BY h, pos", (kind,)).fetchall()
            assert got == want, kind
            total += len(got)
        assert conn.execute(f"SELECT COUNT(*) FROM {INCIDENCES}").fetchone()[0] == total
        mentions = conn.execute(_MENTIONS_BY_TEXT).fetchall()
        assert conn.execute(f"SELECT c, e FROM {MENTIONS} ORDER BY c, e").fetchall() == mentions
        return total + len(mentions)
    finally:
        conn.close()


def _drop(path: Path) -> None:
    conn = sqlite3.connect(path / "vizrag.sqlite")
    for name in _NAMES[2:]:
        conn.execute(f"DROP TRIGGER {name}")
    for name in _NAMES[:2]:
        conn.execute(f"DROP TABLE {name}")
    conn.commit()
    conn.close()


def test_new_store_has_them_and_every_write_keeps_them(tmp_path: Path, data_dir: Path) -> None:
    docs = _docs(data_dir)
    rag = VizRAG(tmp_path / "s", show_progress=False)
    assert _assert_in_sync(tmp_path / "s") == 0  # made with the store, before any query
    rng = random.Random(7)
    stored: dict[str, Document] = {}
    for step in range(14):  # adds, replacements (same id, new text) and deletions
        op = rng.choice(["add", "add", "replace", "delete"]) if stored else "add"
        if op == "add":
            batch = [d for d in rng.sample(docs, 4) if d.id not in stored]
            rag.insert(batch)
            stored.update((d.id, d) for d in batch)
        elif op == "replace":
            doc = stored[rng.choice(sorted(stored))]
            new = doc.model_copy(update={"text": doc.text + f" Kim Jong-chul met Publix {step}."})
            rag.insert([new])
            stored[doc.id] = new
        else:
            victim = rng.choice(sorted(stored))
            rag.delete(victim)
            del stored[victim]
        assert _assert_in_sync(tmp_path / "s") > 0, (step, op)
    rag.store.compact()  # VACUUM keeps the rowids both sides name
    _assert_in_sync(tmp_path / "s")


def test_arrays_read_from_them_equal_the_texts(tmp_path: Path, data_dir: Path) -> None:
    store = HypergraphStore(tmp_path / "s")
    VizRAG(store, show_progress=False).insert(_docs(data_dir)[:12])
    conn = store._conn
    for kind in ("relation", "theme"):
        ids, rowids, found = store.layer_structure(kind)
        want = pairs(conn.execute(
            "SELECT h.rowid, e.rowid FROM incidences i JOIN hyperedges h ON h.id = i.hid JOIN "
            "entities e ON e.key = i.entity_key WHERE h.kind = ? ORDER BY i.hid, i.position",
            (kind,)))
        assert np.array_equal(found, want), kind  # (id, member position) order
        assert ids == sorted(ids) and len(rowids) == len(ids)
    got = store.mention_rowids()
    assert sorted(map(tuple, got.tolist())) == conn.execute(_MENTIONS_BY_TEXT).fetchall()
    store.close()


def test_older_store_gets_them_and_read_only_reads_the_texts(tmp_path: Path,
                                                             data_dir: Path) -> None:
    path = tmp_path / "s"
    rag = VizRAG(path, show_progress=False)
    rag.insert(_docs(data_dir)[:10])
    want = {q: _key(rag.retrieve(q, render=False)) for q in QUESTIONS}
    rag.close()
    _drop(path)  # as a store made before the copies existed
    ro = HypergraphStore(path, read_only=True)
    old = VizRAG(ro, show_progress=False)
    assert isinstance(old.retriever.query_corpus(), LazyCorpus)
    assert {q: _key(old.retrieve(q, render=False)) for q in QUESTIONS} == want
    assert not numbers_ready(ro._conn)  # nothing written
    ro.close()
    again = VizRAG(path, show_progress=False)
    assert {q: _key(again.retrieve(q, render=False)) for q in QUESTIONS} == want
    again.close()
    _assert_in_sync(path)  # made and filled by the first lazy query


def test_lazy_results_do_not_depend_on_the_read_order(tmp_path: Path, data_dir: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk is built from the mentions in one canonical order, whichever order the
    backend reads them in (PostgreSQL gives no order)."""
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(_docs(data_dir)[:10])
    want = {q: _key(VizRAG(path, show_progress=False).retrieve(q, render=False))
            for q in QUESTIONS}
    original = HypergraphStore.mention_rowids

    def shuffled(self: Any) -> Any:
        out = original(self)
        return out[np.random.default_rng(3).permutation(len(out))]

    monkeypatch.setattr(HypergraphStore, "mention_rowids", shuffled)
    got = {q: _key(VizRAG(path, show_progress=False).retrieve(q, render=False))
           for q in QUESTIONS}
    assert got == want
