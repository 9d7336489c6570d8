"""Offline word tokens of words written with combining marks (stop 55): the hashed
embedder, the theme keywords and the query keywords.

Stop 53 taught BM25 that a vowel sign or virama belongs to its word; the offline word
tokens (:func:`~hyperviz_core.rag.providers.offline.word_tokens`, which the hashed embedder,
the theme keywords and the query keywords read) still cut ``दिल्ली`` (Delhi) into ``द``,
``ल``, ``ल``. So the vector of "लाल किला" (Red Fort: ``ल``, ``ल``, ``क``, ``ल``) lay at 0.74
from the vector of "दिल्ली", and a Hindi chunk's theme had no keyword (every piece was under
three letters). The embedder that keeps the marks is ``hashing-v2``; a store embedded with
``hashing-v1`` is still queried with v1 (its vectors were made so).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.rag import Document, HashingEmbedder, VizRAG
from hyperviz_core.rag.extract.heuristic import heuristic_keywords
from hyperviz_core.rag.providers.offline import content_words, word_tokens
from hyperviz_core.rag.providers.spec import store_embedder

DOCS = [
    ("a0", "लाल किला एक ऐतिहासिक किला है और लाल पत्थर से बना है।"),  # the Red Fort, red stone
    ("b1", "दिल्ली भारत की राजधानी है।"),  # Delhi is India's capital
    ("c2", "मुंबई महाराष्ट्र का सबसे बड़ा शहर है।"),  # Mumbai, Maharashtra's largest city
    ("d3", "சென்னை தமிழ்நாட்டின் தலைநகரம் ஆகும்."),  # Chennai, capital of Tamil Nadu
]


def test_a_word_keeps_its_marks() -> None:
    assert word_tokens("दिल्ली भारत, சென்னை") == ["दिल्ली", "भारत", "சென்னை"]
    assert word_tokens("दिल्ली", marks=False) == ["द", "ल", "ल"]  # hashing-v1's words
    assert content_words("दिल्ली भारत की राजधानी है") == ["दिल्ली", "भारत", "राजधानी"]
    assert heuristic_keywords("दिल्ली की जनसंख्या कितनी है?") == ["दिल्ली", "जनसंख्या", "कितनी"]
    for text in ("Zürich and Ærøskøbing, naïve café", "Москва — столица", "O’Brien's dog"):
        assert word_tokens(text) == word_tokens(text, marks=False), text


def test_marks_are_found_in_and_beyond_the_basic_plane() -> None:
    """``marked`` searches two classes (the plane's marks, the others): together they are
    every mark of :func:`~hyperviz_core.rag.scripts.mark_class`, and nothing else."""
    import re

    from hyperviz_core.rag.scripts import mark_class, marked

    one = re.compile(f"[{mark_class()}]")
    for cp in (*range(0x2F0, 0x3100), *range(0x1D100, 0x1D250), *range(0xE00F0, 0xE0200)):
        ch = chr(cp)
        assert marked("a" + ch) == (one.search(ch) is not None), hex(cp)
    assert marked("x\U0001D167") and marked("x\U000E0100") and not marked("x\U0001F600")


def test_hashed_vectors_no_longer_match_letters_of_other_words() -> None:
    new, old = HashingEmbedder(pairs=False), HashingEmbedder(marks=False)
    assert (new.name, old.name) == ("hashing-v2-d512-c34", "hashing-v1-d512-c34")
    texts = ["दिल्ली", "लाल किला", "दिल्ली में लाल किला है"]
    v, w = new.embed(texts), old.embed(texts)
    assert float(w[0] @ w[1]) > 0.5  # v1: Delhi ~ Red Fort by their shared letters
    assert abs(float(v[0] @ v[1])) < 0.05 and float(v[0] @ v[2]) > 0.3
    english = ["Marie Curie won the Nobel Prize", "Zürich naïve café Москва"]
    assert np.array_equal(new.embed(english), old.embed(english))  # unchanged without marks


def _store(path: Path, embedder: HashingEmbedder) -> VizRAG:
    rag = VizRAG(path, embedder=embedder, show_progress=False)
    rag.insert([Document(id=i, text=t) for i, t in DOCS])
    return rag


@pytest.mark.filterwarnings("ignore")
def test_dense_retrieval_finds_the_word_not_its_letters(tmp_path: Path) -> None:
    rag = _store(tmp_path / "s", HashingEmbedder())
    for query, doc in (("दिल्ली", "b1"), ("लाल किला", "a0")):
        res = rag.retrieve(query, mode="naive", render=False)
        assert res.chunks[0].doc_id == doc, query
        # v1 scored the other of the two at 0.84: its letters ल, क were in both
        assert all(c.score < 0.1 for c in res.chunks[1:]), (query, res.chunks)
    themes = {t.chunk_id: t.keywords for t in rag.store.themes()}
    delhi = rag.store.chunk_ids("b1")[0]
    assert themes[delhi] == ["दिल्ली", "भारत", "राजधानी"]  # v1: no keyword
    rag.close()


@pytest.mark.filterwarnings("ignore")
def test_a_v1_store_is_queried_with_v1(tmp_path: Path) -> None:
    assert store_embedder(("hashing-v1-d256-c23", 256)).name == "hashing-v1-d256-c23"
    assert store_embedder(("hashing-v2-d256-c34", 256)).marks is True
    assert store_embedder(("hashing-v9-d256-c34", 256)) is None  # unknown: not guessed
    _store(tmp_path / "old", HashingEmbedder(marks=False)).close()
    rag = VizRAG(tmp_path / "old", show_progress=False)
    assert rag.embedder.name == "hashing-v1-d512-c34"
    assert rag.retrieve("दिल्ली", mode="naive", render=False).chunks[0].doc_id == "b1"
    rag.close()
    from hyperviz_core.interop.store_export import store_embedder as export_embedder
    from hyperviz_core.rag.store import open_store

    with open_store(tmp_path / "old") as store:  # the export's seeds: v1 too (was v2)
        assert export_embedder(store).name == "hashing-v1-d512-c34"
    fresh = VizRAG(tmp_path / "new", show_progress=False)
    assert fresh.embedder.name == "hashing-v5-d512-c34"  # v3 since stop 56, v4 64, v5 65
    fresh.close()


@pytest.mark.filterwarnings("ignore")
def test_a_hashed_embedder_given_for_a_v1_store_is_v1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    """``VizRAG(v1_store, embedder=HashingEmbedder())`` and ``vizrag index --embed hashing``
    on a v1 store keep to v1: new documents embedded with v2 beside v1 vectors would be
    searched with v2 and miss (before, a warning said the names differ, and they did)."""
    from hyperviz_core.cli import main

    _store(tmp_path / "old", HashingEmbedder(marks=False)).close()
    rag = VizRAG(tmp_path / "old", embedder=HashingEmbedder(), show_progress=False)
    assert rag.embedder.name == "hashing-v1-d512-c34"
    rag.close()
    other = VizRAG(tmp_path / "old2", embedder=HashingEmbedder(dim=64), show_progress=False)
    assert other.embedder.name == "hashing-v5-d64-c34"  # a new store: as given
    other.close()
    more = tmp_path / "more.txt"
    more.write_text("कोलकाता पश्चिम बंगाल की राजधानी है।", encoding="utf-8")  # Kolkata
    caplog.clear()
    assert main(["index", str(more), "--store", str(tmp_path / "old"), "--embed", "hashing",
                 "--no-progress"]) == 0
    assert "was embedded with" not in caplog.text
    with VizRAG(tmp_path / "old", show_progress=False) as again:
        assert again.store.embedder_info() == ("hashing-v1-d512-c34", 512)
        res = again.retrieve("कोलकाता", mode="naive", render=False)
        assert res.chunks[0].doc_id == "more"
