"""Rows edited into values no write makes: ``vizrag check`` names them, reads stop clearly.

Before the fix (a security review's reproduction, one edited row per case):

* a hyperedge weight stored as text (``'abc'``, ``'NaN'``): ``vizrag check`` said ok, then
  ``vizrag export`` crashed with ``TypeError: must be real number, not str``;
* keywords or entity metadata of ``'[' * 100000``: check exit 0, ``query`` printed a
  ``RecursionError``, ``export`` a traceback from ``schema.loads``;
* an entity whose stored name no longer gives its key: check exit 0, ``query`` failed with
  ``DuplicateIdError``;
* a vector blob of the wrong length: ``query`` said only ``ValueError: buffer size must be a
  multiple of element size``.

Now ``vizrag check`` lists each as a problem naming the table, column and row, and the reads
that meet one raise one :class:`StoreError` naming the same (the CLI: one line, exit 2).
"""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import one_line_error, run_cli
from rag_fakes import demo_documents, fresh_copy, store_with

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store import HypergraphStore, StoreError
from hyperviz_core.rag.store.sqlite.check import check_store

DEEP = "[" * 100000 + "]" * 100000
QUESTION = "Which county is Glen Cove in?"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("store39") / "store", demo_documents(0, 6))


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return fresh_copy(pristine, tmp_path)


def _one(store: Path, sql: str) -> Any:
    conn = sqlite3.connect(store / "vizrag.sqlite")
    try:
        return conn.execute(sql).fetchone()
    finally:
        conn.close()


def _edit(store: Path, sql: str, *params: Any) -> None:
    """Edit the store file as a hand (or a broken tool) would: no checks, no triggers."""
    conn = sqlite3.connect(store / "vizrag.sqlite")
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def _problems(store: Path) -> list[str]:
    report = check_store(store)
    assert not report.ok
    return report.problems


def _export(store: Path, tmp_path: Path) -> Any:
    return run_cli(["export", "--store", str(store), "--hif", str(tmp_path / "g.hif.json")])


def _query(store: Path, tmp_path: Path) -> Any:
    return run_cli(["query", QUESTION, "--store", str(store), "--no-render"])


@pytest.mark.parametrize("weight", ["abc", "NaN"])
def test_a_weight_stored_as_text_is_named_by_check_and_stops_reads(
        store: Path, tmp_path: Path, weight: str) -> None:
    hid = _one(store, "SELECT id FROM hyperedges WHERE kind = 'relation' ORDER BY id")[0]
    _edit(store, "UPDATE hyperedges SET weight = ? WHERE id = ?", weight, hid)
    assert _one(store, f"SELECT typeof(weight) FROM hyperedges WHERE id = '{hid}'")[0] == "text"
    assert (f"table hyperedges column weight row {hid!r}: {weight!r} is not a finite number"
            in _problems(store))
    line = one_line_error(_export(store, tmp_path), "damaged store",
                          f"table hyperedges column weight row {hid!r}", "vizrag check")
    assert "TypeError" not in line
    with HypergraphStore(store, read_only=True) as st, pytest.raises(StoreError,
                                                                     match="column weight"):
        st.bottom()


def test_a_mention_weight_stored_as_text_is_named(store: Path) -> None:
    hid, cid, doc = _one(store, "SELECT m.hid, m.chunk_id, c.doc_id FROM hyperedge_mentions m "
                                "JOIN chunks c ON c.id = m.chunk_id WHERE m.kind = 'relation' "
                                "ORDER BY 1, 2")
    _edit(store, "UPDATE hyperedge_mentions SET weight = 'abc' WHERE hid = ? AND chunk_id = ?",
          hid, cid)
    row = f"row (hid {hid!r}, chunk_id {cid!r})"
    assert (f"table hyperedge_mentions column weight {row}: 'abc' is not a finite number"
            in _problems(store))
    with HypergraphStore(store, read_only=True) as st, pytest.raises(StoreError,
                                                                     match=re.escape(row)):
        st.extractions(doc)


@pytest.mark.parametrize(("table", "column"), [("hyperedges", "keywords"),
                                               ("entities", "metadata")])
def test_json_nested_too_deeply_is_named_by_check_and_stops_reads(
        store: Path, tmp_path: Path, table: str, column: str) -> None:
    _edit(store, f"UPDATE {table} SET {column} = ?", DEEP)
    count = _one(store, f"SELECT COUNT(*) FROM {table}")[0]
    assert count > 20
    problems = _problems(store)
    listed = [p for p in problems if p.startswith(f"table {table} column {column} row ")]
    assert len(listed) == 20  # every row is damaged: 20 listed, then a count
    assert all(p.endswith(": JSON nested too deeply to read") for p in listed)
    assert (f"... and {count - 20} more damaged values in table {table} column {column}"
            in problems)
    for res in (_query(store, tmp_path), _export(store, tmp_path)):
        line = one_line_error(res, "damaged store", f"table {table} column {column} row",
                              "JSON nested too deeply")
        assert "RecursionError" not in line


def test_json_that_does_not_parse_or_has_the_wrong_type_is_named(store: Path) -> None:
    doc = _one(store, "SELECT id FROM documents ORDER BY id")[0]
    cid = _one(store, "SELECT chunk_id FROM themes ORDER BY 1")[0]
    _edit(store, "UPDATE documents SET metadata = '{not json' WHERE id = ?", doc)
    _edit(store, "UPDATE themes SET keywords = '{\"a\": 1}' WHERE chunk_id = ?", cid)
    problems = _problems(store)
    assert any(p.startswith(f"table documents column metadata row {doc!r}: not JSON")
               for p in problems), problems
    assert (f"table themes column keywords row {cid!r}: JSON an object where an array "
            "belongs") in problems
    with HypergraphStore(store, read_only=True) as st:
        with pytest.raises(StoreError, match="table documents column metadata"):
            st.documents([doc])
        with pytest.raises(StoreError, match="table themes column keywords"):
            st.themes([cid])


def test_an_entity_whose_name_no_longer_gives_its_key_is_named(store: Path,
                                                               tmp_path: Path) -> None:
    key = _one(store, "SELECT key FROM entities ORDER BY key")[0]
    _edit(store, "UPDATE entities SET name = '</script><svg onload=x>' WHERE key = ?", key)
    assert any(p.startswith(f"table entities column name row {key!r}: the name "
                            "'</script><svg onload=x>' gives the key") for p in _problems(store))
    line = one_line_error(_export(store, tmp_path), "damaged store",
                          f"table entities column name row {key!r}")
    assert "DuplicateIdError" not in line
    with HypergraphStore(store, read_only=True) as st, pytest.raises(StoreError,
                                                                     match="column name"):
        st.bottom()


def test_a_vector_blob_of_the_wrong_length_is_named(store: Path, tmp_path: Path) -> None:
    cid = _one(store, "SELECT id FROM embeddings WHERE space = 'chunk' ORDER BY id")[0]
    _edit(store, "UPDATE embeddings SET vector = x'0102' WHERE space = 'chunk' AND id = ?", cid)
    assert (f"vector {'chunk/' + cid!r} has the wrong length (table embeddings column vector)"
            in _problems(store))
    row = f"table embeddings column vector row (space 'chunk', id {cid!r})"
    with HypergraphStore(store, read_only=True) as st:
        for read in (lambda: st.vectors("chunk"), lambda: st.unit_vectors("chunk"),
                     lambda: st.vectors("chunk", [cid])):
            with pytest.raises(StoreError, match=r"a blob of 2 bytes") as info:
                read()
            assert row in str(info.value)
    with pytest.raises(StoreError, match="table embeddings column vector"):
        VizRAG(str(store), show_progress=False).query(QUESTION, mode="naive")
    line = one_line_error(run_cli(["query", QUESTION, "--store", str(store), "--mode", "naive",
                                   "--no-render"]), "damaged store", row)
    assert "buffer size" not in line


def test_healthy_stores_stay_ok_and_their_json_is_not_decoded_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Metadata of NaN (JSON that SQLite does not take), 90 levels of nesting and long
    values are healthy; the check decodes in Python only the values SQLite flags."""
    nested: Any = []
    for _ in range(90):
        nested = [nested]
    meta = {"nan": math.nan, "nested": nested, "long": "x" * 5000}
    docs = [*demo_documents(0, 4), Document(id="odd", text="Glen Cove is in Nassau County.",
                                            metadata=meta)]
    path = store_with(tmp_path / "s", docs)
    import hyperviz_core.rag.store.sqlite.check_rows as check_rows

    decoded: list[str] = []
    real_problem = check_rows.json_problem

    def counting(text: Any, column: str) -> str | None:
        decoded.append(column)
        return real_problem(text, column)

    monkeypatch.setattr(check_rows, "json_problem", counting)
    report = check_store(path)
    assert report.ok, report.problems
    assert decoded == ["metadata"] * 2  # the odd document's and its chunk's: every other
    # value passes SQLite's test
    with HypergraphStore(path, read_only=True) as st:
        got = st.documents(["odd"])[0].metadata
    assert math.isnan(got["nan"]) and got["long"] == "x" * 5000


def test_without_sqlites_json_functions_every_value_is_decoded(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An SQLite built without its JSON functions still finds the damaged values (each
    non-empty one is decoded in Python) and never calls the store damaged for lacking them."""
    import hyperviz_core.rag.store.sqlite.check_rows as check_rows

    monkeypatch.setattr(check_rows, "_has_json1", lambda conn: False)
    assert check_store(store).ok
    hid = _one(store, "SELECT id FROM hyperedges ORDER BY id")[0]
    _edit(store, "UPDATE hyperedges SET keywords = ? WHERE id = ?", DEEP, hid)
    assert _problems(store) == [f"table hyperedges column keywords row {hid!r}: JSON nested "
                                "too deeply to read"]
