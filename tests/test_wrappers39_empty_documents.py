"""A document without text is stored without chunks, so no search can return it: the
framework wrappers, whose callers see no index report, say so in a ``UserWarning`` (they
were silent; ``vizrag index`` already listed them)."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

import pytest

from hyperviz_core.rag.index.report import IndexReport, warn_empty


def test_the_report_names_them() -> None:
    assert IndexReport().empty_warning() is None
    said = IndexReport(empty_documents=[f"d{i}" for i in range(7)]).empty_warning()
    assert said == ("7 document(s) hold no text ('d0', 'd1', 'd2', 'd3', 'd4', ...): stored "
                    "without chunks, so no search returns them")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_empty(IndexReport())  # nothing to say


def test_langchain_add_documents_warns(tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.documents import Document

    from vizrag_langchain import VizRAGVectorStore

    vs = VizRAGVectorStore.from_documents([Document(page_content="Marie Curie.")],
                                          store=tmp_path / "s")
    with pytest.warns(UserWarning, match=r"2 document\(s\) hold no text \('e', 'ws'\)"):
        vs.add_documents([Document(page_content="", id="e"), Document("   ", id="ws")])
    with pytest.warns(UserWarning, match=r"1 document\(s\) hold no text \('a'\)"):
        asyncio.run(vs.aadd_documents([Document(page_content="", id="a")]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vs.add_documents([Document(page_content="Pierre Curie.", id="p")])


def test_llamaindex_insert_warns(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core import Document

    from vizrag_llamaindex import VizRAGIndex

    index = VizRAGIndex.from_documents([Document(text="Marie Curie.", id_="c")],
                                       store_dir=tmp_path / "s")
    with pytest.warns(UserWarning, match=r"1 document\(s\) hold no text \('e'\)"):
        index.insert(Document(text="", id_="e"))


def test_llamaindex_says_node_embeddings_go_unused(tmp_path: Path) -> None:
    """Nodes an ``IngestionPipeline`` embedded: their vectors were dropped silently."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import TextNode

    from vizrag_llamaindex import VizRAGIndex

    nodes = [TextNode(text="Marie Curie.", id_="n0", embedding=[0.1, 0.2]),
             TextNode(text="Pierre Curie.", id_="n1")]
    with pytest.warns(UserWarning, match=r"1 node\(s\) carry an embedding \('n0', \.\.\.\): "
                                         r"VizRAGIndex does not use it"):
        index = VizRAGIndex(nodes, store_dir=tmp_path / "s")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index.insert_nodes([TextNode(text="Irène Curie.", id_="n2")])
