"""Offline word tokens of scripts written without spaces between words (stop 56): the
hashed embedder, the theme keywords and the query keywords read a run of kana, Han, Hangul,
Thai, Lao, Myanmar or Khmer as the overlapping pairs BM25 reads (stop 42).

Before, a run of Han or kana was one word (``東京は日本の首都です``), so the query "首都"
(capital) shared no word with it; Thai was cut at its marks into fragments. The embedder
that reads pairs is ``hashing-v3``; a store embedded with ``hashing-v2`` is still queried
with v2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.rag import Document, HashingEmbedder, VizRAG
from hyperviz_core.rag.extract.heuristic import heuristic_keywords
from hyperviz_core.rag.providers.offline import content_words, word_tokens
from hyperviz_core.rag.providers.spec import matched_embedder, store_embedder
from hyperviz_core.rag.retrieve.lexical import tokens

CITIES = json.loads((Path(__file__).parent / "data" / "scripts" / "cities.json")
                    .read_text(encoding="utf-8"))


def test_runs_without_spaces_read_as_bm25_reads_them() -> None:
    assert word_tokens("東京は首都 (Tokyo)") == ["東京", "京は", "は首", "首都", "tokyo"]
    assert word_tokens("กรุงเทพ ไม้") == ["กรุ", "รุง", "งเ", "เท", "ทพ", "ไม้"]
    assert word_tokens("ភ្នំពេញ") == ["ភ្នំពេ", "ពេញ"]  # a coeng joins its consonant
    assert word_tokens("python入門 दिल्ली O’Brien") == ["python", "入門", "दिल्ली", "o'brien"]
    for p in CITIES["passages"]:  # the pairs BM25 reads (it drops its stop words)
        assert [t for t in word_tokens(p["text"]) if not t.isdigit()] == [
            t for t in tokens(p["text"]) if not t.isdigit()], p["id"]
    assert word_tokens("東京は首都", pairs=False) == ["東京は首都"]  # hashing-v2's words
    assert content_words("Tokyo: 東京は首都") == ["tokyo", "東京", "京は", "は首", "首都"]
    # a query's keywords: pairs holding hiragana (particles, endings) after the others
    assert heuristic_keywords("東京の人口は")[:4] == ["東京", "人口", "京の", "の人"]


def test_v3_finds_each_city_where_v2_missed_half() -> None:
    new, old = HashingEmbedder(alike=False), HashingEmbedder(pairs=False)
    assert (new.name, old.name) == ("hashing-v3-d512-c34", "hashing-v2-d512-c34")
    ids = [p["id"] for p in CITIES["passages"]]

    def first(embedder: HashingEmbedder) -> int:
        m = embedder.embed([p["text"] for p in CITIES["passages"]])
        found = 0
        for q in CITIES["queries"]:
            best = ids[int(np.argmax(m @ embedder.embed([q["query"]])[0]))]
            found += best in q["answers"]
        return found

    assert (first(new), first(old)) == (16, 9)
    v = new.embed(["首都", "東京は日本の首都です", "ภูเก็ตเป็นเกาะ"])
    assert float(v[0] @ v[1]) > 0.25 and abs(float(v[0] @ v[2])) < 0.05


def test_text_without_such_runs_keeps_its_vector() -> None:
    texts = ["Marie Curie won the Nobel Prize", "दिल्ली भारत की राजधानी है", "Zürich Москва"]
    assert np.array_equal(HashingEmbedder().embed(texts),
                          HashingEmbedder(pairs=False).embed(texts))
    assert HashingEmbedder(marks=False).name == "hashing-v1-d512-c34"  # v1 reads no pairs
    assert repr(HashingEmbedder(pairs=False)).endswith("pairs=False)")


def _store(path: Path, embedder: HashingEmbedder) -> VizRAG:
    rag = VizRAG(path, embedder=embedder, show_progress=False)
    rag.insert([Document(id=p["id"], text=p["text"]) for p in CITIES["passages"]])
    return rag


@pytest.mark.filterwarnings("ignore")
def test_dense_retrieval_and_themes_read_pairs(tmp_path: Path) -> None:
    rag = _store(tmp_path / "s", HashingEmbedder())
    for query, doc in (("日本の首都", "ja1"), ("ภาคเหนือ", "th2"), ("អង្គរវត្ត", "km2")):
        assert rag.retrieve(query, mode="naive", render=False).chunks[0].doc_id == doc, query
    themes = {t.chunk_id: t.keywords for t in rag.store.themes()}
    tokyo = themes[rag.store.chunk_ids("ja1")[0]]
    assert tokyo and all(k in CITIES["passages"][0]["text"] or k.isdigit() for k in tokyo)
    assert "東京" in tokyo and tokyo[-1] == "あり"  # v2: whole clauses, "東京は日本の首都であり"
    rag.close()


@pytest.mark.filterwarnings("ignore")
def test_a_v2_store_is_queried_with_v2(tmp_path: Path) -> None:
    assert store_embedder(("hashing-v2-d256-c34", 256)).pairs is False
    assert store_embedder(("hashing-v3-d256-c34", 256)).pairs is True
    given = matched_embedder(HashingEmbedder(), ("hashing-v2-d512-c34", 512))
    assert given is not None and given.name == "hashing-v2-d512-c34"
    _store(tmp_path / "old", HashingEmbedder(pairs=False)).close()
    rag = VizRAG(tmp_path / "old", embedder=HashingEmbedder(), show_progress=False)
    assert rag.embedder.name == "hashing-v2-d512-c34"
    rag.close()


def test_names_written_without_spaces_are_linked_in_a_run() -> None:
    """A document-title or entity name of kana or Han is found inside a longer run of a
    query or a passage (its pairs are a stretch of the run's); before, the run was one word
    and only the whole run could name it."""
    from hyperviz_core.model import Entity, Hypergraph
    from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
    from hyperviz_core.rag.types import Chunk

    chunks = [Chunk(id="c1", doc_id="d1", text="東京タワーは高さ333メートルの電波塔です。"),
              Chunk(id="c2", doc_id="d2", text="観光客は東京タワーの展望台に上る。")]
    bottom = Hypergraph(entities=[Entity(name="東京タワー", type="entity", source_ids=["c1"])])
    index = ChunkIndex(chunks, {"d1": "東京タワー"}, bottom)
    assert index.link("東京タワーの高さは？") == ["東京タワー"]
    assert index.walk is not None and index.walk.link("東京タワーの高さは？") == ["東京タワー"]
    assert "東京タワー" in index.chunk_entities[1]  # the other passage names it too
