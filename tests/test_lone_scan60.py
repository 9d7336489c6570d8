"""A query's lone piece scans the SQLite store's passages once (stop 60).

Before, a lone character (``猫``) was looked for in every passage twice on a lazily read
SQLite store: once for the stored pairs holding it (``lexical_terms``), once more for the
passages holding those pairs (``lexical_candidates``); a common one (``一``) had every
passage holding it tokenized, then was left as it is. Now the pairs are looked for in the
passages the first scan found, while the store is as it was, and the first scan of a
common piece stops once more than ``MAX_PIECE_TERMS`` pairs hold it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lexical_stores import always_lazy, insert_docs  # noqa: F401
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.lexical import MAX_PIECE_TERMS

DOCS = [
    ("a0", "The harbour was quiet that spring."),
    ("b1", "我的小猫很可爱。"),  # my kitten is cute
    ("c2", "猫是动物。"),  # the cat is an animal
    ("d3", "北京是中国的首都。"),  # Beijing is China's capital
]
#: a common piece: more pairs than MAX_PIECE_TERMS hold 的, one passage each
COMMON = [(f"e{i:03d}", chr(0x4E00 + 2 * i) + "的。") for i in range(2 * MAX_PIECE_TERMS)]


def _store(path: Path, docs: list[tuple[str, str]]) -> VizRAG:
    rag = VizRAG(path, show_progress=False)
    insert_docs(rag, docs)
    assert rag.store.lexical_ready(prepare=True)  # the FTS index lazy retrieval reads
    return rag


def _ids(rag: VizRAG, tokens: list[str]) -> list[str]:
    return [c.doc_id for _, c, _ in rag.store.lexical_candidates(tokens)]


def _statements(rag: VizRAG) -> list[str]:
    """The SQL statements the store runs from now on (as written, ``?`` unfilled)."""
    seen: list[str] = []
    conn: sqlite3.Connection = rag.store._conn
    conn.set_trace_callback(seen.append)
    return seen


def test_pairs_are_looked_for_where_the_piece_is(tmp_path: Path) -> None:
    rag = _store(tmp_path / "s", DOCS)
    every = _ids(rag, ["小猫", "猫是", "猫"])  # no lone piece asked before: a scan of all
    assert rag.store.lexical_terms(["猫"]) == {"猫": ["小猫", "猫很", "猫是"]}
    seen = _statements(rag)
    assert _ids(rag, ["小猫", "猫是", "猫"]) == every
    scans = [s for s in seen if "instr(" in s]
    assert len(scans) == 1 and "AND EXISTS" in scans[0] and "OR EXISTS" not in scans[0]
    rag.store._conn.set_trace_callback(None)
    assert _ids(rag, ["小猫", "猫是", "猫"]) == every == ["b1", "c2"]
    rag.close()


def test_a_write_after_the_scan_is_seen(tmp_path: Path) -> None:
    """The passages kept from the first scan are of one state of the store: a passage
    written after it (by this store or another process) is still found."""
    path = tmp_path / "s"
    rag = _store(path, DOCS)
    rag.store.lexical_terms(["猫"])
    other = VizRAG(path, show_progress=False)
    insert_docs(other, [("f5", "一只小猫在睡觉。")])  # a kitten is sleeping
    other.close()
    assert _ids(rag, ["小猫"]) == ["b1", "f5"]
    rag.store.lexical_terms(["猫"])
    rag.delete("b1")
    assert _ids(rag, ["小猫"]) == ["f5"]
    rag.close()


def test_a_common_piece_stops_the_scan(tmp_path: Path) -> None:
    """``的`` is held by more pairs than ``MAX_PIECE_TERMS``: the scan stops there (the
    rest of its passages are not read), and the query ranks as before, lazy or loaded."""
    path = tmp_path / "s"
    rag = _store(path, [*DOCS, *COMMON])
    found = rag.store.lexical_terms(["的", "猫"])
    assert len(found["的"]) == MAX_PIECE_TERMS + 1 and found["猫"] == ["小猫", "猫很", "猫是"]
    assert list(rag.store._held_pieces()) == ["猫"]  # the common piece's rows not kept
    rag.close()
    assert_lazy_equals_loaded(path, ["的", "猫", "小猫", "的 猫", "猫 harbour"])
