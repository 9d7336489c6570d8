"""``vizrag migrate`` and store specs: a source or an upgrade that names no store creates
nothing, a libpq keyword connection string is refused (not made a directory, its password
never echoed), one database spelled two ways is one store, and two schemas of one database
are two stores, told apart in messages."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreError, open_store, store_exists
from hyperviz_core.rag.store.postgres.schema import mask_url

DSN = "host=127.0.0.1 port=1 user=rag password=s3cretpw dbname=rag"


def _tables(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() ORDER BY 1").fetchall()]


def _insert(url: str, texts: list[str]) -> None:
    with VizRAG(url, show_progress=False) as rag:
        rag.insert(texts)


def test_migrate_from_a_database_without_a_store_creates_nothing(
        pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--from", pg_url, "--to", str(tmp_path / "dst")]) == 2
    assert "no VizRAG store at postgresql://" in capsys.readouterr().err
    assert _tables(pg_url) == []
    assert not (tmp_path / "dst").exists()


def test_upgrade_of_no_store_creates_nothing(pg_url: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for spec in (pg_url, str(tmp_path / "typo")):
        assert main(["migrate", "--upgrade", spec, "--json"]) == 2, spec
        assert "no VizRAG store at " in capsys.readouterr().err
    assert _tables(pg_url) == []
    assert not (tmp_path / "typo").exists()


def test_a_keyword_connection_string_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.store.postgres.schema import is_keyword_dsn

    monkeypatch.chdir(tmp_path)
    assert is_keyword_dsn(DSN) and not is_keyword_dsn("out/run=3")
    with pytest.raises(StoreError, match=r"postgresql://rag@127\.0\.0\.1:1/rag") as info:
        open_store(DSN)
    assert "s3cretpw" not in str(info.value)
    with pytest.raises(StoreError, match="keyword connection string"):
        store_exists(DSN)
    for command in (["stats", "--store", DSN], ["check", "--store", DSN],
                    ["migrate", "--upgrade", DSN],
                    ["migrate", "--from", DSN, "--to", "elsewhere"]):
        assert main(command) == 2, command
        captured = capsys.readouterr()
        assert "postgresql://rag@127.0.0.1:1/rag" in captured.err, command
        assert "s3cretpw" not in captured.out + captured.err, command
    assert list(tmp_path.iterdir()) == []  # no directory named after it


def test_one_database_spelled_two_ways_is_one_store(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    _insert(pg_url, ["Iron Maiden formed in Leyton in 1975."])
    other_spelling = pg_url + "&connect_timeout=7"
    assert main(["migrate", "--from", pg_url, "--to", other_spelling]) == 2
    assert "name the same store" in capsys.readouterr().err


def test_two_schemas_of_one_database_are_two_stores(
        pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # shared, in public
        conn.execute("CREATE SCHEMA tenant_a")
        conn.execute("CREATE SCHEMA tenant_b")
    a = pg_url + "&options=-csearch_path%3Dtenant_a%2Cpublic"
    b = pg_url + "&options=-csearch_path%3Dtenant_b%2Cpublic"
    assert mask_url(a) != mask_url(b) and "tenant_a" in mask_url(a)
    _insert(a, ["Iron Maiden formed in Leyton in 1975.", "Leyton is in London."])
    assert main(["migrate", "--from", a, "--to", b, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "tenant_b" in out and "counts verified" in out
    with open_store(b, must_exist=True) as store:
        assert store.stats().documents == 2
        assert "tenant_b" in str(store.path)
