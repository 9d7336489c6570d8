"""Framework document loaders over the core's readers (stop 55): ``VizRAGLoader``
(LangChain) and ``VizRAGReader`` (LlamaIndex) read a folder as ``vizrag index`` reads it,
every format by the same code, and the documents they give index as ``vizrag index``
indexes the folder: the same ids, titles, texts and page numbers.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from office_files import index_json, write_xlsx

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.store import open_store

pytest.importorskip("openpyxl")

ADA = "---\ntitle: Ada Lovelace\n---\nAda Lovelace wrote the first program for the engine.\n"
CSV = "id,title,text,lang\np1,Oslo,Oslo is the capital of Norway.,en\np2,Bergen,Bergen is rainy.,\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "ada.md").write_text(ADA, encoding="utf-8")
    (root / "passages.csv").write_text(CSV, encoding="utf-8")
    write_xlsx(root / "staff.xlsx")
    return root


def _cli_store(folder: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple]:
    """(title, text, pages metadata) of each document ``vizrag index`` stores."""
    store = folder.parent / "cli"
    assert index_json(capsys, str(folder), "--store", str(store))["documents_added"] == 4
    with open_store(store) as st:
        return {d.id: (d.title, d.text, d.metadata.get("page_starts")) for d in st.documents()}


def test_langchain_loader_reads_the_folder_as_vizrag_index(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("langchain_core")
    from vizrag_langchain import VizRAGLoader, VizRAGVectorStore

    docs = VizRAGLoader(folder).load()
    assert [d.id for d in docs] == ["notes/ada", "p1", "p2", "staff.xlsx"]
    ada, oslo, bergen, staff = docs
    assert ada.page_content == "Ada Lovelace wrote the first program for the engine.\n"
    assert ada.metadata == {"source": str(folder / "notes" / "ada.md"), "title": "Ada Lovelace"}
    assert oslo.metadata == {"lang": "en", "title": "Oslo", "source": f"{folder}/passages.csv:2"}
    assert bergen.metadata == {"lang": "", "title": "Bergen", "source": f"{folder}/passages.csv:3"}
    assert staff.metadata["pages"] == 3 and staff.metadata["title"] == "staff"
    with VizRAGVectorStore.from_documents(docs, store=folder.parent / "lc") as vs:
        got = {d.id: (d.title, d.text, d.metadata.get("page_starts"))
               for d in vs.engine.store.documents()}
        hits = vs.similarity_search("Which city is the capital of Norway?", k=1)
    assert got == _cli_store(folder, capsys)
    assert hits[0].id == "p1"  # the record, not the file it is a row of


def test_langchain_loader_options_and_unreadable_files(folder: Path) -> None:
    pytest.importorskip("langchain_core")
    from vizrag_langchain import VizRAGLoader

    only = VizRAGLoader(folder / "passages.csv", text_field="title", id_from_path=False)
    assert [(d.id, d.page_content) for d in only.lazy_load()] == [("p1", "Oslo"),
                                                                  ("p2", "Bergen")]
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(LoaderError, match=r"broken\.pdf"):
        VizRAGLoader(folder).load()
    with pytest.warns(UserWarning, match=r"skipped an unreadable file: .*broken\.pdf"):
        assert len(VizRAGLoader(folder, on_unreadable="skip").load()) == 4
    async def collect() -> list[str]:
        return [d.id async for d in only.alazy_load() if d.id]

    assert asyncio.run(collect()) == ["p1", "p2"]
    with pytest.raises(ValueError, match="on_unreadable"):
        VizRAGLoader(folder, on_unreadable="ignore")  # type: ignore[arg-type]


def test_llamaindex_reader_reads_the_folder_as_vizrag_index(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.schema import MetadataMode

    from vizrag_llamaindex import VizRAGIndex, VizRAGReader

    docs = VizRAGReader().load_data(folder)
    assert [d.id_ for d in docs] == ["notes/ada", "p1", "p2", "staff.xlsx"]
    staff = docs[3]
    assert staff.metadata["page_starts"] == [0, 108, 108]
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):  # where the text came from: hidden
        shown = staff.get_content(mode)
        assert shown.startswith("title: staff\n\n") and "page_starts" not in shown, mode
    assert "lang: en" in docs[1].get_content(MetadataMode.LLM)  # a record's field: shown
    index = VizRAGIndex.from_documents(docs, store_dir=folder.parent / "li")
    got = {d.id: (d.title, d.text, d.metadata.get("page_starts"))
           for d in index.store.documents()}
    assert got == _cli_store(folder, capsys)
    node = index.as_retriever(include_image=False, top_k=1).retrieve(
        "Which country is Oslo in?")[0]
    assert (node.metadata["doc_id"], node.metadata["page"], node.metadata["page_end"]) == (
        "staff.xlsx", 1, 3)
    with pytest.raises(TypeError, match=r"takes the paths \(and extra_info\) only"):
        VizRAGReader().load_data(folder, text_field="title")


def test_llamaindex_reader_as_a_simple_directory_reader_file_extractor(folder: Path) -> None:
    """``SimpleDirectoryReader(file_extractor={".xlsx": VizRAGReader()})`` calls
    ``load_data(file, extra_info=<its file metadata>)``: the reader takes it (before, a
    ``TypeError``, which ``SimpleDirectoryReader`` printed as a skipped file)."""
    pytest.importorskip("llama_index.core")
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.schema import MetadataMode

    from vizrag_llamaindex import VizRAGReader

    reader = VizRAGReader()
    docs = SimpleDirectoryReader(input_dir=str(folder), recursive=True, file_extractor={
        ".xlsx": reader, ".csv": reader}).load_data()
    ours = {d.id_: d for d in docs if d.id_ in ("p1", "p2", "staff.xlsx")}
    assert sorted(ours) == ["p1", "p2", "staff.xlsx"]
    staff = ours["staff.xlsx"]
    assert (staff.metadata["file_name"], staff.metadata["title"]) == ("staff.xlsx", "staff")
    assert staff.metadata["page_starts"] == [0, 108, 108]
    shown = staff.get_content(MetadataMode.EMBED)
    assert "page_starts" not in shown and "file_size" not in shown
    assert ours["p1"].metadata["title"] == "Oslo"
    with pytest.raises(ValueError, match="local files only"):
        reader.load_data(folder, fs=object())


def test_both_show_a_progress_bar_over_the_files_when_asked(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from vizrag_langchain import VizRAGLoader
    from vizrag_llamaindex import VizRAGReader

    capsys.readouterr()
    assert len(VizRAGLoader(folder).load()) == 4 and capsys.readouterr().err == ""
    assert len(VizRAGLoader(folder, show_progress=True).load()) == 4
    assert "reading: 100%" in capsys.readouterr().err  # 3 files
    assert len(VizRAGReader(show_progress=True).load_data(folder)) == 4
    assert "3/3" in capsys.readouterr().err
