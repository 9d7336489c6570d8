"""What a user following README met: a failed ``from_documents`` leaves no store behind, and
a lone surrogate in a document without an id is named (field, place, item) instead of a bare
codec error."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.documents import Document as LCDocument
from llama_index.core.schema import Document as LIDocument
from llama_index.core.schema import ImageDocument

from hyperviz_core.rag import Document, VizRAG
from vizrag_langchain import VizRAGRetriever
from vizrag_llamaindex import VizRAGIndex


def test_langchain_from_documents_refuses_a_clash_before_making_a_store(tmp_path: Path) -> None:
    docs = [LCDocument(page_content="a", id="x"), LCDocument(page_content="b", id="x")]
    with pytest.raises(ValueError, match="two documents of one call have the id 'x'"):
        VizRAGRetriever.from_documents(docs, store=tmp_path / "s")
    assert not (tmp_path / "s").exists()


def test_langchain_names_a_lone_surrogate_in_metadata(tmp_path: Path) -> None:
    doc = LCDocument(page_content="ok", metadata={"k": "v\ud800"})
    with pytest.raises(ValueError, match="field 'metadata' holds a lone surrogate"):
        VizRAGRetriever.from_documents([doc], store=tmp_path / "s")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("bad", [ImageDocument(image="aGVsbG8=", id_="img"),
                                 LIDocument(text="bad \ud800", id_="s")])
def test_llamaindex_from_documents_refuses_before_making_a_store(tmp_path: Path,
                                                                 bad: object) -> None:
    with pytest.raises(ValueError):
        VizRAGIndex.from_documents([LIDocument(text="fine", id_="ok"), bad],
                                   store_dir=tmp_path / "s")
    assert not (tmp_path / "s").exists()


def test_a_document_without_an_id_names_its_lone_surrogate() -> None:
    with pytest.raises(ValueError, match=r"field 'text' holds a lone surrogate '\\ud800' at "
                                         "character 5"):
        Document(text="bad \ud800")


def test_insert_names_the_item_and_writes_nothing(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        with pytest.raises(ValueError, match="item 2 is no valid Document: field 'text'"):
            rag.insert(["fine text", "bad \ud800"])
        assert rag.stats().documents == 0


def test_query_many_takes_show_progress_per_call(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(["Ada Lovelace wrote notes.", "Charles Babbage built engines."])
        got = rag.query_many(["Who wrote notes?", "Who built engines?"], show_progress=False)
        assert [r.query for r in got] == ["Who wrote notes?", "Who built engines?"]
        again = asyncio.run(rag.aquery_many(["Ada?", "Babbage?"], show_progress=False))
        assert len(again) == 2
    assert "questions" not in capsys.readouterr().err


@pytest.mark.parametrize("split", [False, True])
def test_a_reader_files_front_matter_titles_it_and_is_not_indexed(tmp_path: Path,
                                                                  split: bool) -> None:
    """As ``vizrag index`` reads the file: the front matter titles the document and is never
    chunked, retrieved or quoted (it was, through SimpleDirectoryReader)."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter

    (tmp_path / "fm").mkdir()
    (tmp_path / "fm" / "a.md").write_text('---\ntitle: "Les Misérables"\nlang: fr\n---\n'
                                          "# Résumé\nJean Valjean meets Cosette in Paris.\n")
    docs = SimpleDirectoryReader(str(tmp_path / "fm")).load_data()
    index = VizRAGIndex.from_documents(
        docs, transformations=[SentenceSplitter(chunk_size=64, chunk_overlap=0)] if split
        else None)
    node = index.as_retriever(include_image=False).retrieve("Valjean")[0].node
    assert node.text.startswith("# Résumé") and "lang: fr" not in node.text
    assert node.metadata["title"] == "Les Misérables"
