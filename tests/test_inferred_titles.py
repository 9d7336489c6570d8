"""Titles inferred for untitled long documents (:mod:`hyperviz_core.rag.index.titles`): what
is read as a title, which documents get one, and that a question naming the document then
finds the passage it asks about instead of the title page (fails with ``infer_titles=False``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import Document, VizRAG, infer_title, with_inferred_title
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.store import HypergraphStore


@pytest.mark.parametrize(("text", "title"), [
    ("Produced by X THE DIARY OF SAMUEL PEPYS M.A. F.R.S. CLERK OF THE ACTS",
     "THE DIARY OF SAMUEL PEPYS"),
    ("[Illustration] TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON, AUTHOR OF A MISSION",
     "TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON"),  # cut to 8 words, ',' dropped
    ("FROM SAND HILL TO PINE By Bret Harte CONTENTS A NIECE", "FROM SAND HILL TO PINE"),
    ("ÉTUDES SUR L'ÉTAT DE LA FRANCE, par M. Dupont", "ÉTUDES SUR L'ÉTAT DE LA FRANCE"),
    ("HARRY'S OWN STORY. Chapter one", "HARRY'S OWN STORY"),
    ("Only TWO CAPS here, then A B C single letters", ""),
    ("If James M. Goodhue could revisit the earth", ""),
    ("x " * 600 + "A TITLE TOO LATE", ""),  # beyond the opening searched
])
def test_infer_title_reads_the_first_run_of_capitals(text: str, title: str) -> None:
    assert infer_title(text) == title


BOOK = (
    "THE DIARY OF JOHN EVELYN. The diary of John Evelyn, Esquire, edited from the original "
    "manuscript of John Evelyn's diary, with notes on John Evelyn. "
    + "".join(f"Day {i}. Up early and to the office all the morning, then home to dinner and "
              f"to walk in the garden with my wife until supper time. " for i in range(12))
    + "Day 12. At the yard my Lord was angry with Mr. Howe for the lost anchor. "
    + "".join(f"Day {i}. Up early and to the office all the morning, then home to dinner and "
              f"to walk in the garden with my wife until supper time. "
              for i in range(13, 20))
    + "End of the diary of John Evelyn, by John Evelyn."
)
QUESTION = "In John Evelyn's diary, with whom was my Lord angry?"


def test_untitled_long_document_chunks_carry_the_inferred_title() -> None:
    doc = Document(id="book", text=BOOK)
    plain = chunk_document(doc, size=300, overlap=0, infer_titles=False)
    titled = chunk_document(doc, size=300, overlap=0)
    assert len(plain) >= 4
    assert [c.id for c in titled] == [c.id for c in plain]  # ids do not depend on it
    assert [c.text for c in titled] == [c.text for c in plain]
    assert all(c.metadata == {"title": "THE DIARY OF JOHN EVELYN", "title_inferred": True}
               for c in titled)
    assert all(c.metadata == {} for c in plain)


@pytest.mark.parametrize("doc", [
    Document(id="titled", text=BOOK, title="Evelyn's Diary"),
    Document(id="meta", text=BOOK, metadata={"title": "Evelyn's Diary"}),
    Document(id="prose", text=BOOK.replace("THE DIARY OF JOHN EVELYN", "The diary")),
])
def test_a_given_title_or_no_capital_run_is_left_alone(doc: Document) -> None:
    chunks = chunk_document(doc, size=300, overlap=0)
    assert not any(c.metadata.get("title_inferred") for c in chunks)
    assert {c.metadata.get("title") for c in chunks} == {doc.title or doc.metadata.get("title")}


def test_short_documents_keep_no_title() -> None:
    doc = Document(id="short", text="THE BOOK OF TESTS. A short passage. Another one.")
    assert with_inferred_title(doc, chunk_document(doc, size=30, overlap=0,
                                                   infer_titles=False), min_chunks=4)[0] \
        .metadata == {}


def _top(tmp_path: Path, infer: bool, lazy: bool) -> str:
    engine = VizRAG(tmp_path / f"s-{infer}", show_progress=False, chunk_size=300,
                    chunk_overlap=0, infer_titles=infer, lazy=lazy)
    try:
        if engine.store.stats().documents == 0:
            engine.insert([Document(id="book", text=BOOK)])
        res = engine.retrieve(QUESTION, mode="vizrag", top_k=1, render=False)
        return res.chunks[0].text
    finally:
        engine.close()


@pytest.mark.parametrize("lazy", [False, True])
def test_a_question_naming_the_book_finds_the_passage_not_the_title_page(
        tmp_path: Path, lazy: bool) -> None:
    assert "angry" in _top(tmp_path, True, lazy)
    # without the inferred title the name words pull up the pages that print the name
    assert "angry" not in _top(tmp_path, False, lazy)


def test_cli_index_infers_titles_unless_told_not_to(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "books.jsonl"  # a record without a title (a .txt file is titled by its name)
    src.write_text(json.dumps({"id": "book", "text": BOOK}) + "\n", encoding="utf-8")
    for flag, want in (([], {"THE DIARY OF JOHN EVELYN"}), (["--no-infer-titles"], {None})):
        store = tmp_path / f"store{len(flag)}"
        assert main(["index", str(src), "--store", str(store), "--no-progress",
                     "--chunk-size", "300", "--chunk-overlap", "0", *flag]) == 0
        capsys.readouterr()
        with HypergraphStore(store) as s:
            assert {c.metadata.get("title") for c in s.chunks()} == want
