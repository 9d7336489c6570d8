"""A PostgreSQL store of an older schema: readers read it as it is (a role granted only
SELECT, a read-only open), its first write or ``vizrag migrate --upgrade`` upgrades it, and a
role that may not change its tables is told who can (``tests/data/store_v1``, loaded into
the tables of the first PostgreSQL release)."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from hyperviz_core.cli import main
from hyperviz_core.rag.store import HypergraphStore, StoreError, StoreProtocol, open_store
from hyperviz_core.rag.store.postgres.schema import MIGRATIONS, SCHEMA_VERSION

OLD = Path(__file__).parent / "data" / "store_v1" / "vizrag.sqlite"
_TABLES = ("documents", "chunks", "entity_mentions", "entities", "hyperedge_mentions",
           "hyperedges", "incidences", "themes", "key_entities", "llm_cache")


def _load_v1(url: str) -> None:
    """The schema-1 tables on ``url`` holding the rows of the schema-1 SQLite fixture."""
    lite = sqlite3.connect(OLD)
    with psycopg.connect(url, autocommit=True) as conn:
        for stmt in MIGRATIONS[0].split(";"):
            if stmt.strip():
                conn.execute(stmt)
        with conn.transaction():
            for key, value in lite.execute("SELECT key, value FROM meta"):
                if key not in ("vector_spaces", "vector_dtype"):  # not kept by schema 1
                    conn.execute("INSERT INTO meta VALUES (%s, %s)", (key, value))
            for table in _TABLES:
                cur = lite.execute(f"SELECT * FROM {table}")
                cols = ",".join(f'"{d[0]}"' for d in cur.description)
                marks = ",".join(["%s"] * len(cur.description))
                for row in cur:
                    conn.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})", row)
            for space, key, text_hash, blob in lite.execute("SELECT * FROM embeddings"):
                vec = np.frombuffer(blob, dtype=np.float16).astype(np.float32).tolist()
                conn.execute("INSERT INTO embeddings VALUES (%s, %s, %s, %s::vector)",
                             (space, key, text_hash, str(vec)))
    lite.close()


def _version(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert row is not None
        return int(row[0])


def _reads(store: StoreProtocol) -> dict[str, Any]:
    keys = sorted(store.bottom().entities)
    return {
        "bottom": store.bottom().model_dump(), "top": store.top().model_dump(),
        "documents": [d.model_dump() for d in store.documents()],
        "chunks": [c.model_dump() for c in store.chunks()],
        "themes": [t.model_dump() for t in store.themes()],
        "entity_chunks": store.entity_chunks(keys),  # type: ignore[attr-defined]
        "extractions": [e.model_dump() for d in store.documents()
                        for e in store.extractions(d.id)],
        "counts": store.stats().model_dump(include={"documents", "chunks", "entities"}),
    }


@pytest.fixture
def v1_url(pg_url: str) -> str:
    _load_v1(pg_url)
    return pg_url


@pytest.fixture
def roles(v1_url: str) -> Iterator[tuple[str, str]]:
    """URLs of the schema-1 store as a role granted only SELECT and as one that may write
    rows but is not the tables' owner."""
    parts = conninfo_to_dict(v1_url)
    tag = f"{os.getpid()}_{parts['dbname'].rsplit('_', 1)[-1]}"
    reader, writer = f"pgfix_reader_{tag}", f"pgfix_writer_{tag}"
    with psycopg.connect(v1_url, autocommit=True) as conn:
        for role, rights in ((reader, "SELECT"), (writer, "SELECT, INSERT, UPDATE, DELETE")):
            conn.execute(f"CREATE ROLE {role} LOGIN")
            conn.execute(f'GRANT CONNECT ON DATABASE "{parts["dbname"]}" TO {role}')
            conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
            conn.execute(f"GRANT {rights} ON ALL TABLES IN SCHEMA public TO {role}")
        conn.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {writer}")
    as_role = [f"postgresql://{r}@/{parts['dbname']}?host={parts['host']}"
               for r in (reader, writer)]
    try:
        yield as_role[0], as_role[1]
    finally:
        with psycopg.connect(v1_url, autocommit=True) as conn:
            for role in (reader, writer):
                conn.execute(f"DROP OWNED BY {role}")
                conn.execute(f"DROP ROLE {role}")


def test_a_select_only_role_reads_an_old_schema_as_it_is(
        v1_url: str, roles: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    reader, _ = roles
    with HypergraphStore(OLD.parent, read_only=True) as lite:
        want = _reads(lite)
    with open_store(reader, read_only=True, must_exist=True) as store:
        assert store.schema_version() == 1  # type: ignore[attr-defined]
        assert _reads(store) == want
        assert store.check() == []
    assert main(["stats", "--store", reader]) == 0
    assert "documents 6" in capsys.readouterr().out
    assert main(["check", "--store", reader]) == 0
    assert main(["query", "Who founded it?", "--store", reader]) == 0
    captured = capsys.readouterr()
    assert "must be owner" not in captured.err and captured.out
    assert _version(v1_url) == 1  # readers wrote nothing
    with open_store(v1_url, read_only=True, must_exist=True) as store:  # the owner's open
        assert _reads(store) == want  # upgrades it (a reader of an old schema beside an
    assert _version(v1_url) == SCHEMA_VERSION  # upgrading writer deadlocked)


def test_a_role_that_may_not_upgrade_is_told_who_can(
        v1_url: str, roles: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    writer = roles[1]
    for url in roles:  # a writer's open of a role that may not: read as it is
        with open_store(url) as store:
            assert store.stats().documents == 6
            with pytest.raises(StoreError, match=r"is schema 1; run `vizrag migrate "
                               r"--upgrade postgresql://pgfix_\w+@/\w+\?host=/\S+` as its owner"):
                store.delete_document("no-such-document")
    assert main(["migrate", "--upgrade", writer]) == 2
    err = capsys.readouterr().err
    assert "is schema 1; run `vizrag migrate --upgrade" in err and "as its owner" in err
    assert _version(v1_url) == 1


def test_upgrade_reports_the_schema_it_found_and_checks(
        v1_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with open_store(v1_url, upgrade_on_open=False) as store:
        before = _reads(store)
    assert main(["migrate", "--upgrade", v1_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["schema_before"], out["schema"], out["upgraded"], out["problems"], out["ok"]
            ) == (1, SCHEMA_VERSION, True, [], True)
    assert _version(v1_url) == SCHEMA_VERSION
    with open_store(v1_url) as store:
        assert _reads(store) == before
    assert main(["migrate", "--upgrade", v1_url]) == 0
    assert f"already at schema {SCHEMA_VERSION}; check: ok" in capsys.readouterr().out


def test_upgrade_runs_the_check(v1_url: str, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.store.postgres.store import PostgresStore

    monkeypatch.setattr(PostgresStore, "check", lambda self: ["planted problem"])
    assert main(["migrate", "--upgrade", v1_url, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["problems"], out["ok"]) == (["planted problem"], False)


def test_the_first_write_of_an_open_that_did_not_upgrade_upgrades(v1_url: str) -> None:
    with open_store(v1_url, upgrade_on_open=False) as store:
        assert store.schema_version() == 1  # type: ignore[attr-defined]
        store.delete_document("no-such-document")
        assert _version(v1_url) == SCHEMA_VERSION
        assert store.schema_version() == SCHEMA_VERSION  # type: ignore[attr-defined]
        assert store.check() == []
