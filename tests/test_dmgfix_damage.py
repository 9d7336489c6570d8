"""A damaged store (table pages overwritten), vectors that disagree with their rows, and a
store of a newer schema: what ``vizrag check``, ``index``, ``delete`` and Python see."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import one_line_error, run_cli

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store.base import StoreError

_CITIES = ["Paris", "Rome", "Berlin", "Madrid", "Vienna", "Prague", "Oslo", "Lisbon"]


def _docs(n: int, start: int = 0) -> list[dict[str, str]]:
    return [{"id": f"d{i}", "text": f"Person{i} Smith was born in {_CITIES[i % 8]}. "
             f"Person{i} Smith founded Company{i} in {1900 + i} with Partner{i} Jones."}
            for i in range(start, start + n)]


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 300 small documents (offline embedder, no chat model)."""
    root = tmp_path_factory.mktemp("dmg")
    corpus = root / "c.json"
    corpus.write_text(json.dumps(_docs(300)))
    code, _, err = run_cli(["index", str(corpus), "--store", str(root / "s"), "--no-progress"])
    assert code == 0, err
    return root / "s"


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    for extra in dst.glob("vizrag.sqlite-*"):
        extra.unlink()
    return dst


def _damage_vectors(store: Path) -> bytes:
    """Overwrite a page holding chunk vectors with random bytes; the file's new bytes."""
    file = store / "vizrag.sqlite"
    conn = sqlite3.connect(file)
    blob = conn.execute("SELECT vector FROM embeddings WHERE space = 'chunk' "
                        "ORDER BY id LIMIT 1 OFFSET 100").fetchone()[0]
    page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.close()
    data = bytearray(file.read_bytes())
    at = data.index(bytes(blob)) // page * page
    data[at:at + page] = random.Random(2).randbytes(page)
    file.write_bytes(bytes(data))
    return bytes(data)


def _digest(store: Path) -> str:
    return hashlib.sha256((store / "vizrag.sqlite").read_bytes()).hexdigest()


def test_index_and_delete_refuse_a_store_with_damaged_vector_pages(healthy: Path,
                                                                   tmp_path: Path) -> None:
    store = _copy(healthy, tmp_path / "s")
    _damage_vectors(store)
    before = _digest(store)
    corpus = tmp_path / "more.json"
    corpus.write_text(json.dumps(_docs(5, start=1000)))
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 1 and "damaged" in out
    one_line_error(run_cli(["index", str(corpus), "--store", str(store), "--no-progress"]),
                   "is damaged", "nothing was written", "vizrag check --store")
    one_line_error(run_cli(["delete", "--store", str(store), "d1"]),
                   "is damaged", "nothing was written")
    assert _digest(store) == before


def test_a_healthy_store_is_still_written(healthy: Path, tmp_path: Path) -> None:
    store = _copy(healthy, tmp_path / "s")
    corpus = tmp_path / "more.json"
    corpus.write_text(json.dumps(_docs(2, start=1000)))
    assert run_cli(["index", str(corpus), "--store", str(store), "--no-progress"])[0] == 0
    assert run_cli(["delete", "--store", str(store), "d1"])[0] == 0
    assert run_cli(["check", "--store", str(store)])[0] == 0


def test_python_query_on_damaged_vectors_raises_store_error(healthy: Path,
                                                           tmp_path: Path) -> None:
    store = _copy(healthy, tmp_path / "s")
    _damage_vectors(store)
    with pytest.raises(StoreError, match="not a usable VizRAG store") as info:
        VizRAG(str(store), show_progress=False).query("Who was born in Paris?", mode="naive")
    assert isinstance(info.value.__cause__, sqlite3.DatabaseError)
    assert "malformed" in str(info.value.__cause__)


def test_check_lists_rows_without_vectors_and_vectors_without_rows(healthy: Path,
                                                                   tmp_path: Path) -> None:
    store = _copy(healthy, tmp_path / "s")
    conn = sqlite3.connect(store / "vizrag.sqlite")
    chunk, doc = conn.execute("SELECT id, doc_id FROM chunks ORDER BY id LIMIT 1").fetchone()
    conn.execute("DELETE FROM embeddings WHERE space = 'chunk' AND id = ?", (chunk,))
    conn.execute("INSERT INTO embeddings SELECT space, 'ghost', text_hash, vector FROM "
                 "embeddings WHERE space = 'entity' LIMIT 1")
    conn.commit()
    conn.close()
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 1, out  # the orphan vector is damage
    assert f"note: chunk {chunk!r} of document {doc!r} has no vector" in out
    assert "no command re-embeds one: delete its document" in out
    assert "vector 'entity/ghost' has no entity row" in out
    conn = sqlite3.connect(store / "vizrag.sqlite")
    conn.execute("DELETE FROM embeddings WHERE id = 'ghost'")
    conn.commit()
    conn.close()
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 0, out  # a row without a vector alone is a note, not damage (a write
    assert out.startswith("ok: ") and "note: chunk" in out  # without an embedder makes it)
    code, out, _ = run_cli(["check", "--store", str(store), "--json"])
    assert json.loads(out)["ok"] is True and json.loads(out)["notes"]


def test_check_says_a_newer_store_is_newer_not_damaged(healthy: Path, tmp_path: Path) -> None:
    store = _copy(healthy, tmp_path / "s")
    conn = sqlite3.connect(store / "vizrag.sqlite")
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    code, out, _ = run_cli(["check", "--store", str(store)])
    assert code == 1
    assert out.startswith("newer: ") and "upgrade vizrag" in out and "damaged" not in out
    code, out, _ = run_cli(["check", "--store", str(store), "--json"])
    assert json.loads(out)["newer"] is True
