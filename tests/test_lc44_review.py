"""``VizRAGRetriever.from_documents(..., search_kwargs={"filter": ...})`` takes the filter as
the constructor does; it raised "this retriever has no metadata filter", the text meant for
retrievers without one."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document

from vizrag_langchain import VizRAGRetriever

DOCS = [Document(page_content="Ada Lovelace worked with Charles Babbage in London.", id="a",
                 metadata={"lang": "en"}),
        Document(page_content="Ada Lovelace vécut à Londres avec sa mère.", id="b",
                 metadata={"lang": "fr"})]


def test_from_documents_takes_a_filter_in_search_kwargs(tmp_path: Path) -> None:
    r = VizRAGRetriever.from_documents(DOCS, tmp_path / "s", k=2,
                                       search_kwargs={"filter": {"lang": "fr"}})
    assert [d.metadata["lang"] for d in r.invoke("Ada Lovelace")] == ["fr"]


def test_a_filter_given_twice_with_two_values_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"got 'filter' twice"):
        VizRAGRetriever(store=tmp_path / "s", filter={"lang": "en"},
                        search_kwargs={"filter": {"lang": "fr"}})


def test_an_unknown_search_option_lists_filter_among_the_options(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"'fetch_k'; its options: .*filter"):
        VizRAGRetriever(store=tmp_path / "s", search_kwargs={"fetch_k": 2})
