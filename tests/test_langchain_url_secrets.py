"""A store URL's password never shows in a LangChain wrapper's repr or construction error
(pydantic wrapped the store's error in a ValidationError whose details held the raw URL,
the thing FastAPI/LangServe send back in a 422)."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store import StoreError
from vizrag_langchain import HyperVizRunnable, VizRAGRetriever

SECRET = "S3cretPw"


@pytest.mark.parametrize("url", [f"postgresql://rag:{SECRET}@127.0.0.1:1/rag",
                                 f"postgresql://rag:{SECRET}@/rag?host=/nonexistent"])
@pytest.mark.parametrize("wrapper", [VizRAGRetriever, HyperVizRunnable])
def test_an_unreachable_store_is_a_store_error_without_the_password(
        url: str, wrapper: type) -> None:
    with pytest.raises(StoreError) as info:
        wrapper(store=url)
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    assert "rag:***@" in str(info.value) or "postgresql://rag@" in str(info.value)


def test_repr_of_a_working_wrapper_hides_the_password(pg_url: str) -> None:
    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(pg_url)
    url = (f"postgresql://{parts.get('user') or 'postgres'}:{SECRET}@/{parts['dbname']}"
           f"?host={parts['host']}")  # the socket trusts its user: any password works
    with VizRAG(url, show_progress=False) as rag:
        rag.insert(["Iron Maiden formed in Leyton in 1975."])
    retriever = VizRAGRetriever(store=url, k=1)
    runnable = HyperVizRunnable(store=url)
    try:
        assert isinstance(retriever.invoke("Where did Iron Maiden form?")[0], Document)
        for shown in (repr(retriever), str(retriever), repr(runnable), str(runnable)):
            assert SECRET not in shown and ":***@" in shown
    finally:
        retriever.close()
