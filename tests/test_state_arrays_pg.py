"""Query arrays kept in a PostgreSQL store (``vizrag_state_arrays_v1``), as on SQLite.

A lazy query keeps both layers' incidence arrays, the mention pairs, the query-repair
vocabulary, the chunk catalogue and (a walk over few entities) the walk's two-step matrix in
the database for its state; another store object (a new process) reads them
back; a write makes them stale; a role that may not create the table computes them per
process and says so once. A real server (``pg_url``, see ``pg_server.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_lazy_query_pg import _app_role
from test_state_arrays import _answers as _sqlite_answers
from test_state_arrays import _docs
from test_walk_kept import dense_docs

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.walk import TWO_STEPS
from hyperviz_core.rag.store.postgres import state_arrays
from hyperviz_core.rag.store.postgres.state_arrays import STATE_TABLE
from hyperviz_core.rag.store.postgres.store import PostgresStore


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def _answers(url: str, lazy: bool = True) -> list[Any]:
    return _sqlite_answers(url, lazy, close=True)  # the same questions and fields


def _kept(url: str) -> dict[str, str]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        if c.execute("SELECT to_regclass(%s)", (STATE_TABLE,)).fetchone()[0] is None:
            return {}
        return dict(c.execute(f"SELECT name, state FROM {STATE_TABLE}").fetchall())


class _Counting:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: list[str] = []
        real = state_arrays.PgKeptArrays.get

        def counting(kept: Any, name: str, compute: Any, valid: Any = None) -> Any:
            def counted() -> Any:
                self.names.append(name)
                return compute()
            return real(kept, name, counted, valid)

        monkeypatch.setattr(state_arrays.PgKeptArrays, "get", counting)


@pytest.mark.parametrize("dense", [False, True])
def test_pg_kept_read_back_and_stale_after_a_write(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, dense: bool) -> None:
    """``dense``: few entities, many facts — the walk's two-step matrix is kept too."""
    docs = dense_docs(40) if dense else _docs(40)
    names = ["catalogue", "layer:relation", "layer:theme", "mentions", "strings:vocabulary"]
    if dense:
        names.insert(1, f"floats:{TWO_STEPS}")
    VizRAG(pg_url, show_progress=False).insert(docs[:30])
    full = _answers(pg_url, lazy=False)
    counting = _Counting(monkeypatch)
    assert _answers(pg_url) == full  # computes and keeps them
    assert sorted(counting.names) == names
    assert sorted(_kept(pg_url)) == names
    counting.names.clear()
    assert _answers(pg_url) == full  # a new store object: read back, nothing computed
    assert counting.names == []
    before = _kept(pg_url)
    VizRAG(pg_url, show_progress=False).insert(docs[30:])
    assert _answers(pg_url) == _answers(pg_url, lazy=False)
    assert sorted(counting.names) == names  # stale: computed and replaced
    assert all(_kept(pg_url)[n] != before[n] for n in names)


def test_pg_role_that_cannot_create_the_table_computes_them(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """The owner indexes; an application role without CREATE (granted before the table
    existed) queries: same results, nothing kept, one warning per store object."""
    owner = VizRAG(pg_url, show_progress=False)
    owner.insert(_docs(20))
    assert isinstance(owner.store, PostgresStore)
    owner.retriever.lazy = True
    owner.retriever.prepare()  # the postings tables (made by the owner), not the arrays' table
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"DROP TABLE IF EXISTS {STATE_TABLE}")
    app_url = _app_role(pg_url, "vizrag_arrays_app")
    with psycopg.connect(pg_url, autocommit=True) as c:  # the postings: readable by the app
        c.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO vizrag_arrays_app")
    owner.close()
    with caplog.at_level("WARNING", logger="hyperviz_core.rag.store.postgres"):
        assert _answers(app_url) == _answers(pg_url, lazy=False)
    warned = [r for r in caplog.records if "query arrays not kept" in r.getMessage()]
    assert len(warned) == 1
    assert _kept(pg_url) == {}


def test_pg_cli_index_leaves_the_store_query_ready(
        pg_url: str, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from test_state_arrays import _corpus

    from hyperviz_core.cli import main

    assert main(["index", str(_corpus(tmp_path)), "--store", pg_url, "--no-progress"]) == 0
    assert "query-ready" in capsys.readouterr().out
    assert sorted(_kept(pg_url)) == ["catalogue", "layer:relation", "layer:theme", "mentions",
                                     "strings:vocabulary"]


def test_pg_cli_migrate_leaves_the_copy_query_ready(
        pg_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``vizrag migrate`` into PostgreSQL keeps the query arrays of the copy's state, so a
    new store object (a new process) reads them back: answers equal the source's."""
    from test_state_arrays import _corpus

    from hyperviz_core.cli import main

    src = tmp_path / "src"
    assert main(["index", str(_corpus(tmp_path)), "--store", str(src), "--no-progress",
                 "--no-prepare"]) == 0
    assert main(["migrate", "--from", str(src), "--to", pg_url, "--no-progress"]) == 0
    assert "query-ready" in capsys.readouterr().out
    assert sorted(_kept(pg_url)) == ["catalogue", "layer:relation", "layer:theme", "mentions",
                                     "strings:vocabulary"]
    counting = _Counting(monkeypatch)
    assert _answers(pg_url) == _sqlite_answers(str(src), lazy=False, close=True)
    assert counting.names == []

