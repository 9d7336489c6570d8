"""Readers of a PostgreSQL store write nothing: a database without a store stays empty (a
mistyped name is "no store", not a new empty one), and a role that may only SELECT (or a
read-only standby session) can query, count and check a store."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import store_exists


def _tables(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() ORDER BY 1").fetchall()]


def _as_user(url: str, user: str) -> str:
    parts = conninfo_to_dict(url)
    return f"postgresql://{user}@/{parts['dbname']}?host={parts['host']}"


def test_readers_never_create_a_store(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from vizrag_langchain import HyperVizRunnable, VizRAGRetriever
    from vizrag_llamaindex import VizRAGIndex

    assert store_exists(pg_url) is False
    for command in (["query", "Who?", "--store", pg_url], ["stats", "--store", pg_url],
                    ["check", "--store", pg_url], ["export", "--store", pg_url, "--hif", "-"]):
        assert main(command) == 2, command
        assert "no VizRAG store at postgresql://" in capsys.readouterr().err
    for make in (lambda: VizRAGRetriever(store=pg_url), lambda: HyperVizRunnable(store=pg_url),
                 lambda: VizRAGIndex.from_store(pg_url)):
        with pytest.raises(FileNotFoundError, match="no VizRAG store at postgresql://"):
            make()
    assert _tables(pg_url) == []  # nothing was created
    with VizRAG(pg_url, show_progress=False) as rag:  # a writer creates it
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    assert store_exists(pg_url) is True


def test_a_select_only_role_and_a_read_only_session_can_read(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(["Iron Maiden formed in Leyton in 1975.", "Leyton is in London."])
    dbname = conninfo_to_dict(pg_url)["dbname"]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS vizrag_reader")
        conn.execute("CREATE ROLE vizrag_reader LOGIN")
        conn.execute(f'GRANT CONNECT ON DATABASE "{dbname}" TO vizrag_reader')
        conn.execute("GRANT USAGE ON SCHEMA public TO vizrag_reader")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO vizrag_reader")
    reader = _as_user(pg_url, "vizrag_reader")
    standby = pg_url + "&options=-c%20default_transaction_read_only%3Don"
    try:
        for url in (reader, standby):
            assert main(["query", "Where did Iron Maiden form?", "--store", url]) == 0, url
            assert "Leyton" in capsys.readouterr().out
            assert main(["stats", "--store", url]) == 0
            assert main(["check", "--store", url]) == 0
            assert capsys.readouterr().out.count("documents 2") == 1
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DROP OWNED BY vizrag_reader")
            conn.execute("DROP ROLE vizrag_reader")


def _counting_connects(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count every new PostgreSQL connection (direct and the pool's) from now on."""
    calls: list[str] = []
    real = psycopg.Connection.connect.__func__  # type: ignore[attr-defined]

    def connect(cls: type, conninfo: str = "", **kwargs: object) -> object:
        calls.append(conninfo)
        return real(cls, conninfo, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "connect", classmethod(connect))
    monkeypatch.setattr(psycopg, "connect", psycopg.Connection.connect)
    return calls


def test_a_reader_opens_a_database_as_a_writer_does(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """The "must exist" question is asked on the connection that opens the store, not on
    one more connection before it."""
    from hyperviz_core.rag.store import open_store
    from vizrag_langchain import VizRAGRetriever

    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    calls = _counting_connects(monkeypatch)
    open_store(pg_url).close()
    writer = len(calls)
    assert writer >= 1
    calls.clear()
    assert main(["stats", "--store", pg_url]) == 0
    assert "documents 1" in capsys.readouterr().out
    assert len(calls) == writer
    calls.clear()
    VizRAGRetriever(store=pg_url).close()
    assert len(calls) == writer


def test_eval_generate_reads_a_database_store(pg_url: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    questions = Path(__file__).parent / "data" / "eval" / "questions.jsonl"
    out = tmp_path / "answers"
    args = ["eval", "generate", "--store", pg_url, "--questions", str(questions),
            "--modes", "naive", "--out", str(out), "--no-progress"]
    assert main(args) == 2  # no store in the database yet: none is created
    assert "no VizRAG store at postgresql://" in capsys.readouterr().err
    assert _tables(pg_url) == [] and not out.exists()
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    assert main(args) == 0, capsys.readouterr().err
    lines = (out / "naive.jsonl").read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(x)["answer"] for x in lines)
