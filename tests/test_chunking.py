"""Sliding-window chunking: sizes, overlap, boundaries, ids, metadata."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from hyperviz_core.rag.index.chunking import TOKEN_RE, chunk_document, chunk_documents, chunk_id
from hyperviz_core.rag.types import Document

TEXT = (
    "Hank Snow was a Canadian-American country music artist. He lived in Nashville, "
    "Tennessee, until his death in 1999. His song Hello Love topped the charts in 1974! "
    "Publix operates stores across the south-eastern United States; it was founded in 1930. "
) * 6


def test_char_windows_respect_size_and_cover_text() -> None:
    doc = Document(id="d", text=TEXT, title="T", metadata={"src": "x"})
    chunks = chunk_document(doc, size=200, overlap=40)
    assert len(chunks) > 5
    for c in chunks:
        assert len(c.text) <= 200
        assert TEXT[c.start : c.end] == c.text
        assert c.doc_id == "d" and c.metadata == {"src": "x", "title": "T"}
    assert [c.index for c in chunks] == list(range(len(chunks)))
    # every character of the text lies in some chunk
    covered: set[int] = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(TEXT) if not ch.isspace())
    # consecutive chunks overlap
    assert all(b.start < a.end for a, b in itertools.pairwise(chunks))


def test_char_windows_prefer_sentence_then_whitespace_boundaries() -> None:
    chunks = chunk_document(Document(id="d", text=TEXT), size=200, overlap=0)
    for c in chunks[:-1]:
        assert c.text[-1] in ".!;", c.text
    words = " ".join(["supercalifragilistic"] * 40)
    for c in chunk_document(Document(id="w", text=words), size=50, overlap=10):
        assert c.text.split() and all(w == "supercalifragilistic" for w in c.text.split())
    # no whitespace at all: hard cuts, still complete coverage
    blob = "x" * 250
    parts = chunk_document(Document(id="b", text=blob), size=100, overlap=0)
    assert "".join(p.text for p in parts) == blob


@pytest.mark.parametrize("stop", ["؟", "۔", "।", "።"])
def test_windows_end_at_the_sentence_stops_of_other_scripts(stop: str) -> None:
    """Arabic ``؟``, Urdu ``۔``, Devanagari ``।``, Ethiopic ``።`` end sentences as ``.``
    does: windows end there (before, mid-sentence at the last space)."""
    sentence = f"هل هذا مركز النيل للأبحاث في القاهرة{stop} "
    text = sentence * 30
    for unit, size in (("char", 200), ("token", 30)):
        chunks = chunk_document(Document(id="a", text=text), size=size, overlap=0, unit=unit)
        assert len(chunks) > 3
        assert all(c.text.endswith(stop) for c in chunks), [c.text[-5:] for c in chunks]


def test_token_windows() -> None:
    doc = Document(id="d", text=TEXT)
    chunks = chunk_document(doc, size=30, overlap=5, unit="token")
    for c in chunks:
        assert len(TOKEN_RE.findall(c.text)) <= 30
        assert TEXT[c.start : c.end] == c.text
    for c in chunks[:-1]:
        assert c.text[-1] in ".!;"
    all_tokens = TOKEN_RE.findall(TEXT)
    seen = [t for c in chunks for t in TOKEN_RE.findall(c.text)]
    assert len(seen) > len(all_tokens)  # overlap repeats tokens
    assert chunks[-1].text.endswith(all_tokens[-1])


def test_ids_are_content_hashes_and_stable() -> None:
    doc = Document(id="d", text=TEXT)
    a = chunk_document(doc, size=300, overlap=50)
    b = chunk_document(doc, size=300, overlap=50)
    assert [c.id for c in a] == [c.id for c in b]
    assert a[0].id == chunk_id("d", a[0].text) and a[0].id.startswith("chunk-")
    other = chunk_document(Document(id="e", text=TEXT), size=300, overlap=50)
    assert a[0].id != other[0].id
    # repeated text inside one document still gets distinct ids
    rep = chunk_document(Document(id="r", text="Same sentence here. " * 40), size=40, overlap=0)
    assert len({c.id for c in rep}) == len(rep)


def test_small_empty_and_invalid() -> None:
    assert chunk_document(Document(id="d", text="   \n "), size=10, overlap=0) == []
    (one,) = chunk_document(Document(id="d", text="  Short text.  "))
    assert one.text == "Short text." and (one.start, one.end) == (2, 13)
    with pytest.raises(ValueError, match="overlap"):
        chunk_document(Document(id="d", text="x"), size=10, overlap=10)
    with pytest.raises(ValueError, match="size"):
        chunk_document(Document(id="d", text="x"), size=0, overlap=0)
    with pytest.raises(ValueError, match="unit"):
        chunk_document(Document(id="d", text="x"), unit="word")  # type: ignore[arg-type]


def test_real_passages(data_dir: Path) -> None:
    docs = [Document(text=p["text"], title=p["title"])
            for p in json.loads((data_dir / "musique_sample.json").read_text())]
    chunks = chunk_documents(docs, size=400, overlap=50)
    assert len(chunks) >= len(docs)
    for c in chunks:
        assert 0 < len(c.text) <= 400 and c.metadata["title"]


def test_a_one_chunk_document_is_one_chunk_under_its_id() -> None:
    text = "Marie Curie isolated radium. " * 100  # far over the chunk size
    doc = Document(id="node-7", text=text + "\n\n", title="Curie", one_chunk=True)
    [chunk] = chunk_document(doc, size=200, overlap=20)
    assert (chunk.id, chunk.doc_id, chunk.text) == ("node-7", "node-7", text.rstrip())
    assert chunk.metadata == {"title": "Curie"} and (chunk.start, chunk.end) == (0, len(text) - 1)
    assert chunk_document(Document(id="e", text=" \n", one_chunk=True)) == []
    windowed = Document(id="node-7", text=doc.text, title="Curie")
    assert len(chunk_document(windowed, size=200, overlap=20)) > 1
    assert windowed.hash != doc.hash  # the same text chunked otherwise is another version
