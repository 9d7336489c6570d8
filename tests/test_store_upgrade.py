"""Store schema 1 → 2 (issue 17): ``vizrag migrate --upgrade`` and the upgrade on first write.

``tests/data/store_v1`` was written by the schema-1 code (6 documents of
``musique_sample.json``, ``Indexer(chunk_size=300, chunk_overlap=40)``, offline defaults).
Reads must return the same before and after the upgrade, and indexing more documents into
the upgraded store must give what a new store gives that holds the same 6 documents (copied
as stored: their extraction is the schema-1 code's, which later extractor changes do not
redo) and indexes the rest.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import HypergraphStore, StoreError, StoreProtocol, open_store
from hyperviz_core.rag.store.transfer import copy_store

DATA = Path(__file__).parent / "data"
OLD = DATA / "store_v1" / "vizrag.sqlite"


def _docs(n: int) -> list[Document]:
    rows = json.loads((DATA / "musique_sample.json").read_text())
    return [Document(text=p["text"], title=p["title"]) for p in rows][:n]


def _index(store: StoreProtocol, docs: list[Document]) -> None:
    Indexer(store, show_progress=False, concurrency=2, chunk_size=300,
            chunk_overlap=40).index(docs)


def _reads(store: StoreProtocol) -> dict[str, Any]:
    keys = sorted(store.bottom().entities)
    ids, mat = store.vectors("entity")
    return {
        "stats": store.stats().model_dump(exclude={"path"}),
        "bottom": store.bottom().model_dump(), "top": store.top().model_dump(),
        "documents": [d.model_dump() for d in store.documents()],
        "chunks": [c.model_dump() for c in store.chunks()],
        "themes": [t.model_dump() for t in store.themes()],
        "entity_chunks": store.entity_chunks(keys),  # type: ignore[attr-defined]
        "neighbourhood": store.neighbourhood(keys[:4], hops=1).model_dump(),  # type: ignore[attr-defined]
        "extractions": [e.model_dump() for d in store.documents()
                        for e in store.extractions(d.id)],
        "vectors": (ids, np.round(mat, 4).tolist()),
    }


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    target = tmp_path / "old"
    target.mkdir()
    shutil.copy(OLD, target / "vizrag.sqlite")
    return target


def test_fixture_is_schema_1() -> None:
    assert _version(OLD) == 1


def test_cli_upgrade_keeps_every_read(old_store: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    with HypergraphStore(old_store, read_only=True) as store:
        before = _reads(store)
        assert store.check() == []
    assert main(["migrate", "--upgrade", str(old_store)]) == 0
    assert "upgraded from schema 1 to 3; check: ok" in capsys.readouterr().out
    assert _version(old_store / "vizrag.sqlite") == 3
    with HypergraphStore(old_store) as store:
        assert _reads(store) == before
        assert store.check() == []
    assert main(["migrate", "--upgrade", str(old_store)]) == 0
    assert "already at schema 3" in capsys.readouterr().out


def test_first_write_upgrades_and_continues_like_a_new_store(old_store: Path,
                                                            tmp_path: Path) -> None:
    docs = _docs(10)
    with open_store(old_store) as store:
        _index(store, docs)       # the first 6 are already there (skipped)
        upgraded = _reads(store)
    assert _version(old_store / "vizrag.sqlite") == 3
    (tmp_path / "v1").mkdir()
    shutil.copy(OLD, tmp_path / "v1" / "vizrag.sqlite")
    with open_store(tmp_path / "new") as fresh:
        with HypergraphStore(tmp_path / "v1", read_only=True) as v1:
            copy_store(v1, fresh, show_progress=False)  # the 6 as the schema-1 code stored them
        _index(fresh, docs)
        assert _reads(fresh) == upgraded


def test_migrate_needs_from_and_to(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--from", "x"]) == 2
    assert "--upgrade STORE" in capsys.readouterr().err


def test_postgres_schema_1_is_upgraded_when_opened(pg_url: str, tmp_path: Path) -> None:
    """A database holding schema 1 (the tables of the first PostgreSQL release) is brought
    to schema 2 when opened, and then stores what the SQLite backend stores."""
    import psycopg

    from hyperviz_core.rag.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION

    with psycopg.connect(pg_url, autocommit=True) as conn:
        for stmt in MIGRATIONS[0].split(";"):
            if stmt.strip():
                conn.execute(stmt)
        conn.execute("INSERT INTO meta(key, value) VALUES ('format', 'vizrag-store'), "
                     "('schema_version', '1')")
    docs = _docs(5)
    with open_store(pg_url) as pg:
        _index(pg, docs)
        assert pg.check() == []
        got = _reads(pg)
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert row is not None and row[0] == str(SCHEMA_VERSION)
    with open_store(tmp_path / "lite") as lite:
        _index(lite, docs)
        want = _reads(lite)
    # a schema-1 database keeps float32 vectors of every space (no compact-store metadata)
    for key in ("stats", "vectors"):
        got.pop(key)
        want.pop(key)
    assert got == want


def test_a_current_store_opened_read_only_needs_no_upgrade(
        old_store: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`migrate --upgrade` of a read-only store already current says so (it errored: the
    upgrade asked for write access before looking at the version)."""
    with HypergraphStore(old_store, read_only=True) as store, \
            pytest.raises(StoreError, match="read-only"):
        store.upgrade()  # an old store does need writing
    assert main(["migrate", "--upgrade", str(old_store)]) == 0
    capsys.readouterr()
    with HypergraphStore(old_store, read_only=True) as store:
        assert store.upgrade() is False
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if mode == os.W_OK
                        else real(p, mode, **kw))  # as a user who may not write there
    assert main(["migrate", "--upgrade", str(old_store)]) == 0
    assert "already at schema 3; check: ok" in capsys.readouterr().out
